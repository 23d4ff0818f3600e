//! Emitters, OpenCL C: the two-pass `nuwork!` scan kernels (see `crate::checks::reduce`), for a nest
//! whose scan must stop between its totals and its body: in a `nudist` launch (a rank's
//! prefix needs the ranks' totals) or with pushes (a vector grows to its new length). Other
//! scans run in one pass (`lookback.rs`). The iterations, in row-major order of the mapped
//! loops, are cut into one contiguous block per work-group.
//!
//! - `<name>_totals` runs the body's slice (its scan contributions only, no side effects)
//!   over the group's block, and the group's tree leaves one total per scan variable. The
//!   host turns the totals into each group's exclusive prefix (a few KiB each way; the data
//!   stays on the device).
//! - `<name>` runs the body once per iteration, each scan variable starting at its running
//!   value. On GPUs the group walks its block in tiles of one iteration per work-item: the
//!   slice gives each work-item's contribution, a work-efficient Blelloch scan in local
//!   memory the prefixes, and a carry the tiles before. On CPUs (`NU_CPU`) each work-item
//!   takes a contiguous part of the block: its slice total, the group's scan of those by its
//!   first work-item (a CPU runs the work-items in turn anyway), then the body in loop order
//!   from the work-item's prefix. Reductions of the same
//!   nest accumulate here and end in the usual tree.

use super::reduce::{combine, Red};
use super::ClEmitter;
use crate::base::ir::*;
use crate::emit::template::Ph;

/// The group's block of the iterations: `nu_N` in all, `nu_lo` to `nu_hi` here.
/// `nu_it` is `nu_idx` for a 1-D nest, whose count is a dim, else `ulong`; products that
/// could pass it are taken in `ulong` and clamped first.
const BLOCK: [&str; 4] = [
    "nu_it nu_ng = get_num_groups(0), nu_L = get_local_size(0), nu_li = get_local_id(0);",
    "nu_it nu_blk = nu_N / nu_ng + (nu_N % nu_ng != 0);",
    "nu_it nu_lo = (nu_it)min((ulong)get_group_id(0) * nu_blk, (ulong)nu_N), nu_hi = nu_lo + min(nu_blk, nu_N - nu_lo);",
    "nu_it nu_sub = (nu_hi - nu_lo) / nu_L + ((nu_hi - nu_lo) % nu_L != 0), nu_a = (nu_it)min((ulong)nu_lo + (ulong)nu_li * nu_sub, (ulong)nu_hi), nu_b = nu_a + min(nu_sub, nu_hi - nu_a);",
];

impl ClEmitter<'_> {
    /// Both kernels; `params` are the record, ranges and captures.
    pub(super) fn scan_kernels(
        mut self,
        name: &str,
        params: Vec<String>,
        mapped: &[Loop],
        body: &Block,
        slice: &Block,
    ) -> String {
        self.grid = true;
        let scans = self.reds(Some(true));
        let mut p1 = params.clone();
        p1.extend(self.reduction_params(&scans));
        self.prologue(mapped.len());
        self.totals(mapped, slice);
        self.tree(&scans);
        let totals = format!("{name}_totals");
        let first =
            super::marks::kernel_def(&totals, &self.bounds(), &p1, &std::mem::take(&mut self.out));
        let others = self.reds(Some(false));
        let mut p2 = params;
        p2.extend(self.scan_params(&scans));
        p2.extend(self.reduction_params(&others));
        self.prologue(mapped.len());
        self.raw_line("nu_it nu_P = 1;");
        self.raw_line("while (nu_P < nu_L) nu_P *= 2;");
        for Red { r, fill, .. } in &scans {
            self.raw_line(&format!(
                "{} nu_c{r} = nu_so{r}[get_group_id(0)];",
                Ph::ty(*fill)
            ));
        }
        self.out.push_str("#if NU_CPU\n");
        self.cpu_scan(mapped, body, slice, &scans);
        self.out.push_str("#else\n");
        self.gpu_scan(mapped, body, slice, &scans);
        self.out.push_str("#endif\n");
        self.tree(&others);
        let second = super::marks::kernel_def(name, &self.bounds(), &p2, &self.out);
        first + &second
    }

    /// Per scan variable: the groups' prefixes, the identity, local memory for the scan.
    fn scan_params(&self, scans: &[Red]) -> Vec<String> {
        let mut params = Vec::new();
        for Red { r, fill, .. } in scans {
            let t = Ph::ty(*fill);
            params.extend([
                format!(
                    "{}const {t}* restrict nu_so{r}, nu_idx nu_so{r}__d0",
                    super::marks::global()
                ),
                format!("{t} nu_id{r}"),
                super::marks::local_param(&t, &format!("nu_sl{r}"), true),
            ]);
        }
        params
    }

    /// The iteration count and the group's block.
    fn prologue(&mut self, k: usize) {
        self.iterations(k);
        BLOCK.iter().for_each(|l| self.raw_line(l));
    }

    /// The iteration type `nu_it` and count `nu_N`.
    pub(super) fn iterations(&mut self, k: usize) {
        let it = if k == 1 { "nu_idx" } else { "ulong" };
        self.raw_line(&format!("typedef {it} nu_it;"));
        let n: Vec<String> = (0..k).map(|d| format!("(nu_it)nu_n{d}")).collect();
        self.raw_line(&format!("nu_it nu_N = {};", n.join(" * ")));
    }

    /// Pass 1: each scan variable's private copy (its parameter, the identity) through the
    /// slice of every iteration of the work-item's share of the block.
    fn totals(&mut self, mapped: &[Loop], slice: &Block) {
        self.out.push_str("#if NU_CPU\n");
        self.raw_line("for (nu_it nu_t = nu_a; nu_t < nu_b; nu_t++) {");
        self.out.push_str("#else\n");
        self.raw_line("for (nu_it nu_t = nu_lo + nu_li; nu_t < nu_hi; nu_t += nu_L) {");
        self.out.push_str("#endif\n");
        self.indent += 1;
        self.at_iteration(mapped, slice);
        self.indent -= 1;
        self.raw_line("}");
    }

    /// Iteration `nu_t`'s coordinates and mapped variables, then `block` in a scope of its
    /// own where a top-level `continue` ends the iteration.
    pub(super) fn at_iteration(&mut self, mapped: &[Loop], block: &Block) {
        if mapped.len() == 1 {
            self.raw_line("nu_idx nu_g0 = (nu_idx)nu_t;");
        }
        if mapped.len() > 1 {
            self.raw_line("ulong nu_q = nu_t;");
        }
        for d in (0..mapped.len()).rev().filter(|_| mapped.len() > 1) {
            self.raw_line(&format!("nu_idx nu_g{d} = (nu_idx)(nu_q % nu_n{d});"));
            if d > 0 {
                self.raw_line(&format!("nu_q /= nu_n{d};"));
            }
        }
        self.raw_line("do {");
        self.indent += 1;
        self.iteration(mapped, block, None);
        self.indent -= 1;
        self.raw_line("} while (0);");
    }

    /// Declares each scan variable's C variable at `init(r)`.
    pub(super) fn declare_scans(&mut self, scans: &[Red], init: impl Fn(usize) -> String) {
        for Red { r, var, fill, .. } in scans {
            self.raw_line(&format!("{} {var} = {};", Ph::ty(*fill), init(*r)));
        }
    }

    /// CPUs: the work-item's part of the block, its total, the group's scan, the body.
    fn cpu_scan(&mut self, mapped: &[Loop], body: &Block, slice: &Block, scans: &[Red]) {
        self.part_totals(mapped, slice, scans);
        self.serial_scan(scans);
        self.raw_line("{");
        self.declare_scans(scans, |r| {
            combine_of(scans, r, &format!("nu_c{r}"), &format!("nu_sl{r}[nu_li]"))
        });
        self.raw_line("for (nu_it nu_t = nu_a; nu_t < nu_b; nu_t++) {");
        self.indent += 1;
        self.at_iteration(mapped, body);
        self.indent -= 1;
        self.raw_line("}");
        self.raw_line("}");
    }

    /// GPUs: tiles of one iteration per work-item, each scanned in local memory.
    fn gpu_scan(&mut self, mapped: &[Loop], body: &Block, slice: &Block, scans: &[Red]) {
        self.raw_line("for (nu_it nu_base = nu_lo; nu_base < nu_hi; nu_base += nu_L) {");
        self.indent += 1;
        self.raw_line("nu_it nu_t = nu_base + nu_li;");
        self.raw_line("if (nu_t < nu_hi) {");
        self.declare_scans(scans, |r| format!("nu_id{r}"));
        self.at_iteration(mapped, slice);
        for Red { r, var, .. } in scans {
            self.raw_line(&format!("nu_sl{r}[nu_li] = {var};"));
        }
        self.raw_line("} else {");
        for Red { r, .. } in scans {
            self.raw_line(&format!("    nu_sl{r}[nu_li] = nu_id{r};"));
        }
        self.raw_line("}");
        self.blelloch(scans);
        self.raw_line("if (nu_t < nu_hi) {");
        self.declare_scans(scans, |r| {
            combine_of(scans, r, &format!("nu_c{r}"), &format!("nu_sl{r}[nu_li]"))
        });
        self.at_iteration(mapped, body);
        self.raw_line("}");
        for Red { r, fill, op, .. } in scans {
            let c = combine(*fill, *op, &format!("nu_c{r}"), &format!("nu_tot{r}"));
            self.raw_line(&format!("nu_c{r} = {c};"));
        }
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.indent -= 1;
        self.raw_line("}");
    }

    /// CPUs: the slice's total over the work-item's part `nu_a..nu_b`, in `nu_sl<r>[nu_li]`.
    pub(super) fn part_totals(&mut self, mapped: &[Loop], slice: &Block, scans: &[Red]) {
        self.raw_line("{");
        self.declare_scans(scans, |r| format!("nu_id{r}"));
        self.raw_line("for (nu_it nu_t = nu_a; nu_t < nu_b; nu_t++) {");
        self.indent += 1;
        self.at_iteration(mapped, slice);
        self.indent -= 1;
        self.raw_line("}");
        for Red { r, var, .. } in scans {
            self.raw_line(&format!("nu_sl{r}[nu_li] = {var};"));
        }
        self.raw_line("}");
    }

    /// CPUs: the work-group's exclusive scan of `nu_sl<r>[0..nu_L]` in place, by its first
    /// work-item alone. A CPU driver runs a group's work-items one after another between
    /// barriers, so `nu_L` steps in one work-item beat a tree's `2 log nu_L` barrier phases
    /// (PoCL: the second pass of a 2^24 scan 10% faster). Operands keep their order.
    fn serial_scan(&mut self, scans: &[Red]) {
        self.serial_scan_open(scans);
        self.raw_line("}");
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
    }

    /// `serial_scan` up to the end of the first work-item's block, which the caller closes;
    /// there `nu_run<r>` holds the group's total.
    pub(super) fn serial_scan_open(&mut self, scans: &[Red]) {
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("if (nu_li == 0) {");
        self.declare_scans_named(scans, "nu_run");
        self.raw_line("    for (nu_it nu_k = 0; nu_k < nu_L; nu_k++) {");
        for Red { r, fill, op, .. } in scans {
            let t = Ph::ty(*fill);
            let c = combine(*fill, *op, &format!("nu_run{r}"), &format!("nu_x{r}"));
            self.raw_line(&format!(
                "        {t} nu_x{r} = nu_sl{r}[nu_k]; nu_sl{r}[nu_k] = nu_run{r}; nu_run{r} = {c};"
            ));
        }
        self.raw_line("    }");
    }

    /// `T <stem><r> = nu_id<r>;` per scan variable, indented one step.
    fn declare_scans_named(&mut self, scans: &[Red], stem: &str) {
        for Red { r, fill, .. } in scans {
            self.raw_line(&format!("    {} {stem}{r} = nu_id{r};", Ph::ty(*fill)));
        }
    }

    /// The work-group's exclusive scan of `nu_sl<r>[0..nu_L]` in place (Blelloch, over the
    /// power of two `nu_P`, the rest identities), its total in `nu_tot<r>`. Operands keep
    /// their order, earlier iterations on the left.
    fn blelloch(&mut self, scans: &[Red]) {
        for Red { r, .. } in scans {
            self.raw_line(&format!(
                "for (nu_it nu_k = nu_L + nu_li; nu_k < nu_P; nu_k += nu_L) nu_sl{r}[nu_k] = nu_id{r};"
            ));
        }
        self.blelloch_core(scans);
    }

    /// `blelloch` over `nu_sl<r>[0..nu_P]` as it is: the group's work-items stride over the
    /// tree's pairs, so `nu_P` may be many times the group size.
    fn blelloch_core(&mut self, scans: &[Red]) {
        self.raw_line("for (nu_it nu_d = 1; nu_d < nu_P; nu_d *= 2) {");
        self.raw_line("    barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("    for (nu_it nu_j = nu_li; nu_j < nu_P / (2 * nu_d); nu_j += nu_L) {");
        self.raw_line("        nu_it nu_i = (2 * nu_j + 2) * nu_d - 1;");
        for x in scans {
            let (a, b) = (
                format!("nu_sl{}[nu_i - nu_d]", x.r),
                format!("nu_sl{}[nu_i]", x.r),
            );
            self.raw_line(&format!("        {b} = {};", combine(x.fill, x.op, &a, &b)));
        }
        self.raw_line("    }");
        self.raw_line("}");
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        for Red { r, fill, .. } in scans {
            self.raw_line(&format!(
                "{} nu_tot{r} = nu_sl{r}[nu_P - 1];",
                Ph::ty(*fill)
            ));
        }
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        for Red { r, .. } in scans {
            self.raw_line(&format!("if (nu_li == 0) nu_sl{r}[nu_P - 1] = nu_id{r};"));
        }
        self.raw_line("for (nu_it nu_d = nu_P / 2; nu_d >= 1; nu_d /= 2) {");
        self.raw_line("    barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("    for (nu_it nu_j = nu_li; nu_j < nu_P / (2 * nu_d); nu_j += nu_L) {");
        self.raw_line("        nu_it nu_i = (2 * nu_j + 2) * nu_d - 1;");
        for x in scans {
            let t = Ph::ty(x.fill);
            let (l, h) = (
                format!("nu_sl{}[nu_i - nu_d]", x.r),
                format!("nu_sl{}[nu_i]", x.r),
            );
            self.raw_line(&format!(
                "        {{ {t} nu_x = {l}; {l} = {h}; {h} = {}; }}",
                combine(x.fill, x.op, &h, "nu_x")
            ));
        }
        self.raw_line("    }");
        self.raw_line("}");
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
    }
}

/// `a op b` for scan variable number `r` of `scans`.
pub(super) fn combine_of(scans: &[Red], r: usize, a: &str, b: &str) -> String {
    match scans.iter().find(|x| x.r == r) {
        Some(x) => combine(x.fill, x.op, a, b),
        None => a.to_string(),
    }
}
