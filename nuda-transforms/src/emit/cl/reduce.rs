//! The `nuwork!` kernel of a nest with reduction variables (see `crate::checks::reduce`). The host
//! launches fewer work-items than iterations (`reduce_global` in the runtime), so each
//! work-item loops over several iterations of the mapped dimensions: a grid-stride apart on
//! GPUs, where neighbouring work-items then read neighbouring elements at once, and as one
//! contiguous block per dimension on CPUs (`NU_CPU`, set by the runtime's prelude), where a
//! work-item runs alone on a core and streams through its block. It accumulates every variable
//! in a private copy that starts at the operator's identity (passed as the variable's own
//! parameter). Then the group combines its copies in a tree in local memory, in a fixed
//! order, and its first work-item stores one partial per variable; the host folds them.
//!
//! The same form carries privatised atomic targets (`privatise.rs`), with or without
//! reduction variables.
//!
//! Every work-item reaches each barrier of the tree: the body is inside the loops, where a
//! top-level `continue` is C's `continue`, and nothing else leaves a `nuwork!` body early.

use super::ClEmitter;
use crate::base::ir::*;
use crate::checks::reduce::{contribution, RedOp};
use crate::emit::template::Ph;

/// `nu_lid` and `nu_lsz`: the work-item's number in its group and the group's size, over
/// every dimension.
const GROUP_IDS: [&str; 2] = [
    "nu_idx nu_lid = (nu_idx)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));",
    "nu_idx nu_lsz = (nu_idx)(get_local_size(0) * get_local_size(1) * get_local_size(2));",
];

/// Accumulators per variable and work-item on CPUs.
const LANES: usize = 16;

/// Grid strides a GPU work-item takes per round (`strides`).
const STRIDES: usize = 4;

/// The most expressions a body may have for `STRIDES` copies of it (`unrolls`).
const UNROLL_EXPRS: usize = 96;

/// Whether the grid-stride loop runs `STRIDES` copies of `body` a round: only a body with no
/// loop of its own and at most `UNROLL_EXPRS` expressions. The copies are there to put a
/// small body's loads in flight together; a large body, or one with its own loop (which the
/// device compiler unrolls), has independent work already, and four copies of it only
/// multiply its code (md5's search on sm_90: 1273 instructions a round where one copy takes
/// 336, and 160 registers where it takes 148).
pub(super) fn unrolls(body: &Block) -> bool {
    use crate::base::ir::visit::shared::{walk_expr, walk_stmt, Visit};
    #[derive(Default)]
    struct Size {
        exprs: usize,
        loops: bool,
    }
    impl Visit for Size {
        fn visit_stmt(&mut self, s: &Stmt) {
            self.loops |= matches!(
                s,
                Stmt::For { .. } | Stmt::While { .. } | Stmt::Loop { .. } | Stmt::Nest(_)
            );
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &Expr) {
            self.exprs += 1;
            walk_expr(self, e);
        }
    }
    let mut size = Size::default();
    size.visit_block(body);
    !size.loops && size.exprs <= UNROLL_EXPRS
}

/// `get_global_size(d)` as an index.
fn global_size(d: usize) -> String {
    format!("(nu_idx)get_global_size({d})")
}

/// The group's number over every dimension: where it stores its partials.
const GROUP_NUMBER: &str = "nu_idx nu_grp = (nu_idx)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2)));";

impl ClEmitter<'_> {
    /// The reduction kernel: `params` so far, then per variable its accumulator, local memory
    /// for the tree and the partials array.
    pub(super) fn reduction_kernel(
        mut self,
        name: &str,
        mut params: Vec<String>,
        mapped: &[Loop],
        body: &Block,
    ) -> String {
        let reds = self.reds(None);
        params.extend(self.reduction_params(&reds));
        params.extend(self.private_params());
        self.grid = true;
        self.private_start();
        self.out.push_str("#if NU_CPU\n");
        self.cpu_loops(mapped, body);
        self.out.push_str("#else\n");
        self.private_unswitched(|e| e.gpu_loops(mapped, body));
        self.out.push_str("#endif\n");
        self.private_flush();
        self.tree(&reds);
        super::marks::kernel_def(name, &self.bounds(), &params, &self.out)
    }

    /// The mapped variables and the body, in a scope of their own, with reduction updates
    /// going to lane `lane` of the lane accumulators (CPU) or to the variables (GPU).
    pub(super) fn iteration(&mut self, mapped: &[Loop], body: &Block, lane: Option<&str>) {
        self.lane = lane.map(str::to_string);
        self.names.push();
        self.mapped_vars(mapped);
        self.body(body);
        self.names.pop();
        self.lane = None;
    }

    /// GPUs: grid-stride loops over every dimension, the innermost one `STRIDES` strides a
    /// round while that many are left (`strides`). The step never passes `nu_n<d>`, so no
    /// index wraps whatever its width.
    fn gpu_loops(&mut self, mapped: &[Loop], body: &Block) {
        let last = mapped.len().saturating_sub(1);
        for d in 0..last {
            let (g, n, z) = (format!("nu_g{d}"), format!("nu_n{d}"), global_size(d));
            self.raw_line(&format!("for (nu_idx {g} = get_global_id({d}); {g} < {n}; {g} = {n} - {g} > {z} ? {g} + {z} : {n}) {{"));
            self.indent += 1;
        }
        self.strides(mapped, body, last);
        self.close(last);
    }

    /// The innermost grid-stride loop, of dimension `d`. While `STRIDES` strides are left
    /// they run unrolled and unguarded, so the compiler issues a work-item's loads of all of
    /// them before it uses one (a stride at a time, a dot product's two 4-byte loads leave an
    /// H200 SM a third of the bytes in flight its HBM needs, and a guard per stride keeps a
    /// histogram's loads behind its atomics); then, in a loop of its own, a stride at a time
    /// (one loop with a branch between the two lets LLVM sink the code they share below it,
    /// and AMD's compilers then wait for the last stride's load before the others'). `nu_left<d>`
    /// counts what is left of the dimension, so no index wraps, and it steps before the
    /// body, whose `continue` goes on to the next stride. A large body takes only the
    /// second loop (`unrolls`).
    fn strides(&mut self, mapped: &[Loop], body: &Block, d: usize) {
        let (g, n, z, left) = (
            format!("nu_g{d}"),
            format!("nu_n{d}"),
            global_size(d),
            format!("nu_left{d}"),
        );
        self.raw_line("{");
        self.indent += 1;
        self.raw_line(&format!(
            "nu_idx {left} = {n} > get_global_id({d}) ? {n} - (nu_idx)get_global_id({d}) : 0;"
        ));
        if unrolls(body) {
            self.raw_line(&format!("for (; {left} / {STRIDES} >= {z}; ) {{"));
            self.indent += 1;
            self.raw_line("NU_UNROLL");
            self.raw_line(&format!(
                "for (uint nu_u{d} = 0; nu_u{d} < {STRIDES}; nu_u{d}++) {{"
            ));
            self.indent += 1;
            self.raw_line(&format!("nu_idx {g} = {n} - {left};"));
            self.raw_line(&format!("{left} -= {z};"));
            self.iteration(mapped, body, None);
            self.close(2);
        }
        self.raw_line(&format!("for (; {left} != 0; ) {{"));
        self.indent += 1;
        self.raw_line(&format!("nu_idx {g} = {n} - {left};"));
        self.raw_line(&format!("{left} = {left} > {z} ? {left} - {z} : 0;"));
        self.iteration(mapped, body, None);
        self.close(2);
    }

    /// CPUs: a block of every dimension, the last one in steps of `LANES` iterations that
    /// update `LANES` accumulators per variable (independent chains the compiler can overlap
    /// or vectorise), then the block's tail; the lanes are combined in order at the end.
    fn cpu_loops(&mut self, mapped: &[Loop], body: &Block) {
        let reds = self.reds(None);
        for Red { r, var, fill, .. } in &reds {
            let t = Ph::ty(*fill);
            self.raw_line(&format!("{t} nu_a{r}[{LANES}];"));
            self.raw_line(&format!(
                "for (uint nu_k = 0; nu_k < {LANES}; nu_k++) nu_a{r}[nu_k] = {var};"
            ));
        }
        let k = mapped.len();
        for d in 0..k {
            let (n, z) = (format!("nu_n{d}"), global_size(d));
            self.raw_line(&format!("nu_idx nu_c{d} = {n} / {z} + ({n} % {z} != 0);"));
            let lo = format!("(nu_idx)min((ulong)get_global_id({d}) * nu_c{d}, (ulong){n})");
            self.raw_line(&format!(
                "nu_idx nu_lo{d} = {lo}, nu_hi{d} = nu_lo{d} + min(nu_c{d}, {n} - nu_lo{d});"
            ));
            if d + 1 < k {
                self.raw_line(&format!(
                    "for (nu_idx nu_g{d} = nu_lo{d}; nu_g{d} < nu_hi{d}; nu_g{d}++) {{"
                ));
                self.indent += 1;
            }
        }
        let last = k - 1;
        self.raw_line(&format!("nu_idx nu_b{last} = nu_lo{last};"));
        self.raw_line(&format!("for (; nu_hi{last} - nu_b{last} >= {LANES}; nu_b{last} += {LANES}) for (uint nu_k = 0; nu_k < {LANES}; nu_k++) {{"));
        self.indent += 1;
        self.raw_line(&format!("nu_idx nu_g{last} = nu_b{last} + nu_k;"));
        self.iteration(mapped, body, Some("nu_k"));
        self.close(1);
        self.raw_line(&format!(
            "for (nu_idx nu_g{last} = nu_b{last}; nu_g{last} < nu_hi{last}; nu_g{last}++) {{"
        ));
        self.indent += 1;
        self.iteration(mapped, body, Some("0"));
        self.close(k);
        for Red { r, var, fill, op } in &reds {
            let c = combine(*fill, *op, var, &format!("nu_a{r}[nu_k]"));
            self.raw_line(&format!(
                "for (uint nu_k = 0; nu_k < {LANES}; nu_k++) {var} = {c};"
            ));
        }
    }

    /// Closes `n` loops or blocks.
    pub(super) fn close(&mut self, n: usize) {
        for _ in 0..n {
            self.indent -= 1;
            self.raw_line("}");
        }
    }

    /// The reduction variables, all of them or (with `scan`) those that are or are not
    /// scans, each with its index among all of them.
    pub(super) fn reds(&self, scan: Option<bool>) -> Vec<Red> {
        let reds = &self.env.analysis.reductions;
        reds.iter()
            .enumerate()
            .filter(|(_, r)| scan.is_none_or(|s| s == r.scan.is_some()))
            .filter_map(|(r, red)| {
                let (fill, op) = self.env.reduction(&red.name)?;
                Some(Red {
                    r,
                    var: self.var(&red.name),
                    fill,
                    op,
                })
            })
            .collect()
    }

    /// Per reduction variable of `reds`: the accumulator (named as the variable), local
    /// memory, partials.
    pub(super) fn reduction_params(&self, reds: &[Red]) -> Vec<String> {
        let mut params = Vec::new();
        for Red { r, var, fill, .. } in reds {
            let t = Ph::ty(*fill);
            params.extend([
                format!("{t} {var}"),
                super::marks::local_param(&t, &format!("nu_rl{r}"), true),
                format!(
                    "{}{t}* restrict nu_rp{r}, nu_idx nu_rp{r}__d0",
                    super::marks::global()
                ),
            ]);
        }
        params
    }

    /// The group's tree over `reds`: halving strides over the largest power of two below
    /// the group size, so any group size works and the order is fixed. With warp shuffles
    /// (`NU_SHFL`: CUDA's and HIP's, and OpenCL's sub-groups where a device has them), a
    /// group of 64 or more halves through local memory down to 32 and its first warp
    /// finishes in registers: the same pairs in the same order, so the same result, with five
    /// barriers fewer. `NU_WARPED` says the group's first 32 items are one warp (OpenCL: the
    /// group's first dimension a multiple of 32, so sub-groups are its rows' runs of 32).
    pub(super) fn tree(&mut self, reds: &[Red]) {
        if reds.is_empty() {
            return;
        }
        GROUP_IDS.iter().for_each(|l| self.raw_line(l));
        for Red { r, var, .. } in reds {
            self.raw_line(&format!("nu_rl{r}[nu_lid] = {var};"));
        }
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("nu_idx nu_h = 1;");
        self.raw_line("while (2 * nu_h < nu_lsz) nu_h *= 2;");
        self.out.push_str(
            "#if NU_SHFL
",
        );
        self.raw_line("if (nu_lsz >= 64 && NU_WARPED) {");
        self.tree_steps(reds, "nu_h >= 32");
        self.warp_steps(reds);
        self.raw_line("} else");
        self.out.push_str(
            "#endif
",
        );
        self.raw_line("{");
        self.tree_steps(reds, "nu_h > 0");
        self.raw_line("}");
        self.raw_line("if (nu_lid == 0) {");
        self.raw_line(&format!("    {GROUP_NUMBER}"));
        for Red { r, .. } in reds {
            self.raw_line(&format!("    nu_rp{r}[nu_grp] = nu_rl{r}[0];"));
        }
        self.raw_line("}");
    }

    /// The tree's steps through local memory while `cond` holds of the stride `nu_h`.
    fn tree_steps(&mut self, reds: &[Red], cond: &str) {
        self.indent += 1;
        let slot = |r: usize, i: &str| format!("nu_rl{r}[{i}]");
        self.halving_steps(reds, cond, ("nu_lid", "nu_lsz"), slot);
        self.indent -= 1;
    }

    /// Steps of a tree in local memory while `cond` holds of the stride `nu_h`: work-item
    /// `id` below the stride folds `slot(r, id + nu_h)` into `slot(r, id)`, for slots below
    /// `count`, then the group meets at a barrier.
    pub(super) fn halving_steps(
        &mut self,
        reds: &[Red],
        cond: &str,
        (id, count): (&str, &str),
        slot: impl Fn(usize, &str) -> String,
    ) {
        self.raw_line(&format!("for (; {cond}; nu_h /= 2) {{"));
        self.raw_line(&format!("    if ({id} < nu_h && {id} + nu_h < {count}) {{"));
        for Red { r, fill, op, .. } in reds {
            let (a, b) = (slot(*r, id), slot(*r, &format!("{id} + nu_h")));
            self.raw_line(&format!("        {a} = {};", combine(*fill, *op, &a, &b)));
        }
        self.raw_line("    }");
        self.raw_line("    barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("}");
    }

    /// The last five steps (strides 16 to 1) in the first warp, through shuffles: every lane
    /// of the warp shuffles (the group has 64 items or more), the lanes below the stride
    /// combine, and the first stores the group's value where the tree's would be.
    fn warp_steps(&mut self, reds: &[Red]) {
        self.raw_line("    if (nu_lid < 32) {");
        for Red { r, fill, .. } in reds {
            let t = Ph::ty(*fill);
            self.raw_line(&format!("        {t} nu_w{r} = nu_rl{r}[nu_lid];"));
        }
        self.raw_line("        for (; nu_h > 0; nu_h /= 2) {");
        for Red { r, fill, .. } in reds {
            let t = Ph::ty(*fill);
            self.raw_line(&format!(
                "            {t} nu_o{r} = nu_shfl_down(nu_w{r}, (uint)nu_h);"
            ));
        }
        self.raw_line("            if (nu_lid < nu_h) {");
        for Red { r, fill, op, .. } in reds {
            let c = combine(*fill, *op, &format!("nu_w{r}"), &format!("nu_o{r}"));
            self.raw_line(&format!("                nu_w{r} = {c};"));
        }
        self.raw_line("            }");
        self.raw_line("        }");
        for Red { r, .. } in reds {
            self.raw_line(&format!("        if (nu_lid == 0) nu_rl{r}[0] = nu_w{r};"));
        }
        self.raw_line("    }");
    }

    /// An update of reduction variable `name`: its private copy, in the variable's type.
    pub(super) fn reduction_update(
        &mut self,
        name: &syn::Ident,
        op: Option<BinOp>,
        value: &Expr,
        span: proc_macro2::Span,
    ) {
        let Some((fill, red)) = self.env.reduction(name) else {
            return;
        };
        let e = self.expr(contribution(op, value));
        let target = match (
            &self.lane,
            self.env
                .analysis
                .reductions
                .iter()
                .position(|r| r.name == *name),
        ) {
            (Some(lane), Some(r)) => format!("nu_a{r}[{lane}]"),
            _ => self.var(name),
        };
        let t = Ph::ty(fill);
        let e = format!("(({t})({e}))");
        let new = match op {
            Some(op) => self.update(op, fill, &target, &e, span),
            None => combine(fill, red, &target, &e),
        };
        self.line(format!("{target} = {new};"));
    }
}

/// A reduction variable as the emitter needs it.
pub(super) struct Red {
    /// Its index among the nest's reduction variables, which numbers its parameters.
    pub r: usize,
    /// Its C name.
    pub var: String,
    /// Its type fill.
    pub fill: usize,
    /// Its operator.
    pub op: RedOp,
}

/// `a op b` in the variable's type, with Rust's semantics.
pub(super) fn combine(fill: usize, op: RedOp, a: &str, b: &str) -> String {
    match op.template_op() {
        (f, true) => format!("{}({a}, {b})", Ph::func(fill, f)),
        (o, false) => Ph::op(fill, o, &[a, b]),
    }
}
