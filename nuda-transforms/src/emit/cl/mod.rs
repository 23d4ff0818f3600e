//! OpenCL C emission: kernel bodies become C text with placeholders (see `emit::template`).
//! One file per IR area: `stmt.rs` for statements and loops, `expr.rs` for expressions,
//! `access.rs` for checked array and image accesses, `names.rs` for C names, this file for
//! whole kernels and functions.
//!
//! Every generated kernel and `#[nucode]` function takes the fault record `nu_err` first;
//! every check names its site (`emit::sites`) and is compiled in or out per launch through
//! `NU_C<site>` (see the runtime's `proof`).

mod access;
mod expr;
mod lookback;
mod marks;
mod names;
mod packed;
mod privatise;
mod reads;
mod reduce;
mod rowscan;
mod scan;
mod sincos;
mod stage;
mod stage_lanes;
mod stage_skew;
mod stmt;
mod vector;
mod vector_values;
mod window;
mod zeroing;

pub(crate) use access::atomic_args;
pub use expr::decimal;
pub use names::sanitize;

use crate::base::ctxt::Ctxt;
use crate::base::ir::*;
use crate::checks::capture::{Analysis, Context};
use crate::checks::sites::{SiteKind, Sites};
use crate::emit::template::Ph;
use names::Names;
use std::cell::RefCell;

/// What the kernels of one program share: the check sites and the access helpers.
#[derive(Debug, Default)]
pub struct Shared {
    /// The check sites, numbered for every engine.
    pub sites: Sites,
    /// Helper functions by name, in the order first needed.
    helpers: RefCell<Vec<(String, String)>>,
}

impl Shared {
    /// Nothing emitted yet.
    pub fn new() -> Shared {
        Shared::default()
    }

    /// Adds helper `name` with C text `text` unless it is there.
    fn helper(&self, name: &str, text: impl FnOnce() -> String) {
        let mut h = self.helpers.borrow_mut();
        if !h.iter().any(|(n, _)| n == name) {
            h.push((name.to_string(), text()));
        }
    }

    /// The helpers' C text, to go before the kernels that call them.
    pub fn helpers_text(&self) -> String {
        self.helpers
            .borrow()
            .iter()
            .map(|(_, t)| t.as_str())
            .collect()
    }
}

/// What the emitter needs to know about the body's surroundings.
pub struct Env<'a> {
    /// Capture analysis of the body.
    pub analysis: &'a Analysis,
    /// Fill index of the first capture: captures follow the type slots.
    pub capture_base: usize,
    /// Where the body sits.
    pub context: Context,
    /// Sites and helpers shared with the program's other kernels.
    pub shared: &'a Shared,
    /// The work-items of every group the kernels are launched with, where the macro knows
    /// it (a `nuwork!` whose sizes are literals): the kernels declare it (`NU_BOUNDS`).
    pub threads: Option<usize>,
}

impl Env<'_> {
    /// The fill index of capture `name`, if it is one.
    pub fn capture_fill(&self, name: &syn::Ident) -> Option<usize> {
        self.analysis
            .captures
            .iter()
            .position(|c| c.name == *name)
            .map(|i| self.capture_base + i)
    }

    /// The fill index and operator of reduction variable `name`, if it is one: reductions'
    /// type fills follow the captures'.
    pub fn reduction(&self, name: &syn::Ident) -> Option<(usize, crate::checks::reduce::RedOp)> {
        let a = self.analysis;
        a.reductions
            .iter()
            .position(|r| r.name == *name)
            .map(|i| (self.capture_base + a.captures.len() + i, a.reductions[i].op))
    }

    /// Whether capture `name` is written through.
    pub fn written(&self, name: &syn::Ident) -> bool {
        self.analysis.capture(name).is_some_and(|c| c.written)
    }

    /// `(NU_C<q>, <q>u)`: the check switch and site number arguments of site `k`.
    pub fn site_args(
        &self,
        kind: SiteKind,
        name: &str,
        rank: usize,
        span: proc_macro2::Span,
    ) -> (String, String) {
        let k = self.shared.sites.intern(kind, name, rank, span);
        let q = Ph::site(k);
        (format!("NU_C{q}"), format!("{q}u"))
    }
}

/// Whether `e` is an integer literal.
fn int_lit(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Lit(Lit::Int { .. }))
}

/// `x` without one pair of parentheses around the whole of it, if it has them: conditions
/// are written `if (a == b)`, not `if ((a == b))`, which compilers warn about.
pub fn unparen(x: &str) -> &str {
    let Some(inner) = x.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
        return x;
    };
    let mut depth = 0i32;
    for c in inner.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth < 0 {
            return x;
        }
    }
    if depth == 0 {
        inner
    } else {
        x
    }
}

/// Emits C text into a buffer.
pub struct ClEmitter<'a> {
    cx: &'a Ctxt,
    env: Env<'a>,
    names: Names,
    out: String,
    indent: usize,
    /// Statements a value expression needs run before the statement that uses it.
    pre: Vec<String>,
    /// Loops entered inside the body.
    depth: usize,
    /// Whether the current expression may hoist statements (not in loop conditions).
    hoist_ok: bool,
    /// Whether the body runs inside grid-stride loops (a reduction kernel), where a top-level
    /// `continue` goes on to the work-item's next iteration rather than returning.
    grid: bool,
    /// In a reduction kernel's lanes on CPUs: the lane whose accumulators updates go to.
    lane: Option<String>,
    /// In a `#[nucode]` function returning a tuple: its number of components, returned
    /// through the pointers `nu_out0`, `nu_out1`, ..
    outs: usize,
    /// Inside a `vector(w)` nest: what differs between its lanes.
    lanes: Option<std::rc::Rc<crate::checks::lanes::Plan>>,
    /// The names scope the lane body's declarations start at.
    lanes_scope: usize,
    /// Lane errors so far, and the lane locals whose definition had one: a later use of
    /// such a local is not reported again.
    lane_errors: std::cell::Cell<usize>,
    poisoned: Vec<String>,
    /// The lane errors reported, by place and text: the copies a `dmine` made of one
    /// statement report it once.
    lane_reported: std::cell::RefCell<Vec<String>>,
    /// Inside the staged loop of a `stage(..)` nest: the local copies its reads come from.
    staging: Option<std::rc::Rc<stage::Staging>>,
    /// Image reads made once per work-item (`reads.rs`), by the key of each occurrence: the
    /// C name of the value.
    merged: std::collections::HashMap<usize, String>,
    /// Locals whose sine and cosine one `sincos` computed (`sincos.rs`): C name to the C
    /// names of the two values.
    sincos: std::collections::HashMap<String, (String, String)>,
    /// A `#[nukernel]` body's stretches between top-level barriers
    /// (`crate::checks::phases`), and the top-level statement being emitted: a `nulocal!`
    /// array's reads are plain loads where its stretch has no atomic on it.
    phases: Option<(crate::checks::phases::Phases, usize)>,
}

impl<'a> ClEmitter<'a> {
    /// An emitter for a body in `env`; captured names are reserved as C parameter names.
    pub fn new(cx: &'a Ctxt, env: Env<'a>) -> Self {
        let mut names = Names::default();
        names.push();
        let reds = env.analysis.reductions.iter().map(|r| &r.name);
        for name in env.analysis.captures.iter().map(|c| &c.name).chain(reds) {
            names.reserve(&sanitize(&name.to_string()));
        }
        ClEmitter {
            cx,
            env,
            names,
            out: String::new(),
            indent: 1,
            pre: Vec::new(),
            depth: 0,
            hoist_ok: true,
            grid: false,
            lane: None,
            outs: 0,
            lanes: None,
            lanes_scope: 0,
            lane_errors: std::cell::Cell::new(0),
            poisoned: Vec::new(),
            lane_reported: std::cell::RefCell::new(Vec::new()),
            staging: None,
            merged: Default::default(),
            sincos: Default::default(),
            phases: None,
        }
    }

    fn line(&mut self, text: impl AsRef<str>) {
        for p in std::mem::take(&mut self.pre) {
            self.raw_line(&p);
        }
        self.raw_line(text.as_ref());
    }

    fn raw_line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Runs `f` with output captured, and returns what it wrote.
    fn captured(&mut self, f: impl FnOnce(&mut Self)) -> String {
        let saved = std::mem::take(&mut self.out);
        f(self);
        std::mem::replace(&mut self.out, saved)
    }

    /// The C name of a variable: a local, or a captured parameter.
    fn var(&self, name: &syn::Ident) -> String {
        if let Some(c) = self.names.lookup(name) {
            return c;
        }
        // A `#[nucode]` function has no parameters for what it names from outside: a
        // constant's value is written into its text (fills after its slots). In `nuwork!`,
        // a constant's value is written where its fill says it has a literal.
        let captures = &self.env.analysis.captures;
        let k = captures.iter().position(|c| c.name == *name);
        match (self.env.context, k) {
            (Context::Nucode, Some(k)) => Ph::value(self.env.capture_base + k),
            (Context::Nuwork, Some(k)) if crate::syntax::looks_const(name) => {
                Ph::konst(self.env.capture_base + k, &sanitize(&name.to_string()))
            }
            _ => sanitize(&name.to_string()),
        }
    }

    /// The `nuwork!` kernel: one work-item per iteration of the mapped loops. Each mapped
    /// loop passes its first value, step and trip count; a work-item computes its value
    /// with wrapping arithmetic, exact since the value is in the loop's range.
    /// With scan variables, `slice` is the body's slice (`crate::checks::reduce::slice`), and the
    /// text holds one kernel (`lookback.rs`) or two (`scan.rs`), as `form` says.
    pub fn nuwork_kernel(
        mut self,
        name: &str,
        mapped: &[Loop],
        body: &Block,
        slice: Option<(&Block, crate::checks::reduce::ScanForm)>,
    ) -> String {
        let mut params = vec![marks::record_param()];
        for (d, l) in mapped.iter().enumerate() {
            let t = Ph::ty(l.slot);
            params.extend([
                format!("{t} nu_s{d}"),
                format!("{t} nu_st{d}"),
                format!("nu_idx nu_n{d}"),
            ]);
        }
        params.extend(self.capture_params());
        match slice {
            Some((s, crate::checks::reduce::ScanForm::OnePass)) => {
                return self.lookback_kernel(name, params, mapped, body, s)
            }
            Some((s, crate::checks::reduce::ScanForm::TwoPass)) => {
                return self.scan_kernels(name, params, mapped, body, s)
            }
            None => {}
        }
        let a = self.env.analysis;
        if !a.reductions.is_empty() || !a.privatised.is_empty() {
            return self.reduction_kernel(name, params, mapped, body);
        }
        let guard: Vec<String> = (0..mapped.len())
            .map(|d| format!("nu_g{d} >= nu_n{d}"))
            .collect();
        // A staged nest runs a work-group per tile: the mapped loops count groups.
        let staged = staged_body(body);
        let id = if staged.is_some() {
            "get_group_id"
        } else {
            "get_global_id"
        };
        for (d, _) in mapped.iter().enumerate() {
            self.raw_line(&format!("nu_idx nu_g{d} = {id}({d});"));
        }
        self.raw_line(&format!("if ({}) return;", guard.join(" || ")));
        self.mapped_vars(mapped);
        // A staged kernel's work-group is fixed: the device compiler may budget registers
        // for exactly that many threads (`NU_GROUP`, the prelude's per dialect).
        let group = staged.map(|n| {
            let mut g: Vec<String> = crate::base::ir::staging::group_dims(n)
                .iter()
                .map(|d| d.1.to_string())
                .collect();
            g.resize(3, "1".into());
            format!("NU_GROUP({}) ", g.join(", "))
        });
        match staged {
            Some(n) => self.staged_nest(n),
            None => self.merged_body(body),
        }
        let attrs = group.unwrap_or_else(|| self.bounds());
        marks::kernel_def(name, &attrs, &params, &self.out)
    }

    /// The kernel attribute bounding its group where the launch's is known: without it,
    /// hiprtc budgets registers for 1,024 work-items (it spilled register blocks at 128
    /// VGPRs that fit, unspilled, with a group of 256). Each dialect decides what it spells.
    pub(super) fn bounds(&self) -> String {
        self.env
            .threads
            .map(|t| format!("NU_BOUNDS({t}) "))
            .unwrap_or_default()
    }

    /// The bound, and `warps` a multiprocessor should hold (`NU_BOUNDS_WARPS`: on CUDA the
    /// blocks that make them, which ptxas fills its register budget for).
    pub(super) fn bounds_warps(&self, warps: usize) -> String {
        self.env
            .threads
            .map(|t| format!("NU_BOUNDS_WARPS({t}, {warps}) "))
            .unwrap_or_default()
    }

    /// Each mapped loop's variable, from the work-item's iteration number `nu_g<d>`.
    fn mapped_vars(&mut self, mapped: &[Loop]) {
        for (d, l) in mapped.iter().enumerate() {
            let c = self.names.declare(&l.var);
            let (t, g) = (Ph::ty(l.slot), format!("nu_g{d}"));
            let k = Ph::op(l.slot, "from_int", &[&g]);
            // Without a written step (and not reversed) the step is 1: no multiply, which
            // keeps the loops of scan and reduction kernels plain enough to vectorise.
            // A literal step (`dmine`'s blocks) is written in, so that the device compiler sees
            // each work-item's stride. Every launch passes that step; the first value it
            // passes may differ from the written start (a rank's rows under `nuda::dist`).
            let step = match (&l.range.step, l.range.rev) {
                (None, false) => k,
                (Some(s), false) if int_lit(s) => Ph::op(l.slot, "mul", &[&k, &self.expr(s)]),
                _ => Ph::op(l.slot, "mul", &[&k, &format!("nu_st{d}")]),
            };
            let v = Ph::op(l.slot, "add", &[&format!("nu_s{d}"), &step]);
            self.raw_line(&format!("{t} {c} = {v};"));
        }
    }

    /// A `#[nukernel]`: the fault record, then the captures, in order.
    pub fn kernel(
        mut self,
        name: &str,
        body: &Block,
        locals: &[crate::checks::zeroing::Zeroed],
    ) -> String {
        let mut params = vec![marks::record_param()];
        params.extend(self.capture_params());
        self.zero_locals(locals);
        self.phases = Some((crate::checks::phases::Phases::new(body), 0));
        self.merged_body(body);
        marks::kernel_def(name, "", &params, &self.out)
    }

    /// A `#[nucode]` function with scalar parameters and an optional return type.
    pub fn function(
        mut self,
        params: &[(syn::Ident, Ty)],
        ret: Option<Ty>,
        outs: &[Ty],
        body: &Block,
    ) -> String {
        let mut decls = vec![marks::err_param()];
        decls.extend(params.iter().map(|(n, t)| {
            let c = self.names.declare(n);
            format!("{} {c}", ty_text(*t))
        }));
        // A tuple's components go out through pointers to the caller's locals.
        decls.extend(
            outs.iter()
                .enumerate()
                .map(|(k, t)| format!("{}* nu_out{k}", ty_text(*t))),
        );
        self.outs = outs.len();
        self.stmts(&body.stmts);
        if let Some(t) = &body.tail {
            match ret {
                _ if self.outs > 0 => self.tuple_return(t),
                Some(_) => {
                    let v = self.expr(t);
                    self.line(format!("return {v};"))
                }
                None => {
                    let v = self.expr(t);
                    self.line(format!("{v};"))
                }
            }
        }
        let ret = ret.map_or_else(|| "void".into(), ty_text);
        format!(
            "{ret} {}({}) {{\n{}}}\n",
            Ph::own_name(),
            decls.join(", "),
            self.out
        )
    }

    fn capture_params(&self) -> Vec<String> {
        // (`nu_err` is reserved by the names table: `nu_` names are never the user's.)
        let caps = &self.env.analysis.captures;
        caps.iter()
            .enumerate()
            .map(|(i, c)| Ph::param(self.env.capture_base + i, &sanitize(&c.name.to_string())))
            .collect()
    }
}

/// The staged nest a `nuwork!` kernel's body is, if it is one.
pub fn staged_body(body: &Block) -> Option<&Nest> {
    match body.stmts.as_slice() {
        [Stmt::Nest(n)] if n.stage.is_some() && body.tail.is_none() => Some(n),
        _ => None,
    }
}

/// A written type's OpenCL C text: a user type's is its slot's placeholder.
fn ty_text(t: Ty) -> String {
    match t {
        Ty::Slot(k) => Ph::ty(k),
        t => t.cl_name().to_string(),
    }
}
