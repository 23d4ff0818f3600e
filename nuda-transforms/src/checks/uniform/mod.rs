//! Where a `#[nukernel]` may call `barrier()`: only where every work-item of a work-group
//! gets, or none does. OpenCL leaves a barrier that some work-items skip undefined (PoCL
//! crashes, GPUs hang), and no run-time check can catch it, so this is decided at compile
//! time. See `README.md` beside this file.
//!
//! A value is *uniform* when it is the same for every work-item of a group: literals,
//! parameters, array dims, `group_id`, sizes, and what is computed from those alone. Array
//! elements, `global_id`, `local_id` and `#[nucode]` results that may read arrays are not.
//! Control flow is uniform until a branch or loop on a value that is not, or after an early
//! `return` (or a `break`/`continue`) under such a branch. Variables are followed by name,
//! over the whole body: one non-uniform assignment makes a name non-uniform everywhere, which
//! can refuse a correct kernel but never accepts a wrong one.
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

#[cfg(test)]
mod test;

use crate::base::ctxt::Ctxt;
use crate::base::ir::builtins::{builtin_of, FnKind};
use crate::base::ir::*;
use crate::checks::capture::Analysis;
use proc_macro2::{Ident, Span};
use std::collections::HashSet;

/// Reports every `barrier()` in `body` that some work-items of a group may skip.
pub fn check_barriers(cx: &Ctxt, analysis: &Analysis, body: &Block) {
    // Each round can only add names, so `Facts::of` ends within one round per name.
    let mut pass = Facts::of(analysis, body).pass;
    pass.report = Some(cx);
    pass.block(body, None);
}

/// What the rule knows of a body once it has run: the names that may differ between the
/// work-items of a group. The barrier split (`barrier_split`) runs once per group what only uniform
/// values decide.
pub struct Facts<'a> {
    pass: Pass<'a>,
}

impl<'a> Facts<'a> {
    /// The facts of `body`, to the same fixed point `check_barriers` reaches.
    pub fn of(analysis: &'a Analysis, body: &Block) -> Facts<'a> {
        let mut pass = Pass {
            analysis,
            varying: HashSet::new(),
            changed: true,
            report: None,
        };
        while std::mem::take(&mut pass.changed) {
            pass.block(body, None);
        }
        Facts { pass }
    }

    /// Whether `e` has the same value in every work-item of a group.
    pub fn uniform(&self, e: &Expr) -> bool {
        self.pass.uniform(e)
    }

    /// Whether the variable `name` may hold different values in a group's work-items.
    pub fn varying(&self, name: &Ident) -> bool {
        self.pass.varying.contains(&name.to_string())
    }
}

/// Why control flow may differ between the work-items of a group: what (a phrase with
/// `{line}` for where) and where.
#[derive(Clone, Copy)]
struct Cause {
    what: &'static str,
    span: Span,
}

impl Cause {
    fn new(what: &'static str, span: Span) -> Cause {
        Cause { what, span }
    }

    fn text(self) -> String {
        self.what
            .replace("{line}", &self.span.start().line.to_string())
    }
}

/// What a walk leaves behind for the code after it: a `return`, or a `break`/`continue` of
/// the innermost loop, taken by only some work-items.
#[derive(Default, Clone, Copy)]
struct Flow {
    ret: Option<Cause>,
    exit: Option<Cause>,
}

impl Flow {
    fn join(self, o: Flow) -> Flow {
        Flow {
            ret: self.ret.or(o.ret),
            exit: self.exit.or(o.exit),
        }
    }
}

struct Pass<'a> {
    analysis: &'a Analysis,
    /// Names that may hold different values in different work-items of a group.
    varying: HashSet<String>,
    changed: bool,
    /// Where to report, on the last round only.
    report: Option<&'a Ctxt>,
}

impl Pass<'_> {
    fn vary(&mut self, name: &Ident) {
        self.changed |= self.varying.insert(name.to_string());
    }

    fn block(&mut self, b: &Block, mut div: Option<Cause>) -> Flow {
        let mut flow = Flow::default();
        for s in &b.stmts {
            let f = self.stmt(s, div);
            div = div.or(f.ret).or(f.exit);
            flow = flow.join(f);
        }
        match &b.tail {
            Some(t) => flow.join(self.expr(t, div)),
            None => flow,
        }
    }

    fn stmt(&mut self, s: &Stmt, div: Option<Cause>) -> Flow {
        match s {
            Stmt::Let(l) => self.bind(l, div),
            Stmt::Assign {
                place, op, value, ..
            } => self.assign(place, op.is_some(), value, div),
            Stmt::Expr(e) => self.expr(e, div),
            Stmt::While { cond, body, .. } => {
                let f = self.expr(cond, div);
                let what = "the `while` condition at line {line} depends on the work-item";
                let head = div.or_else(|| self.cause(cond, what));
                f.join(self.looped(body, head))
            }
            Stmt::Loop { body, .. } => self.looped(body, div),
            Stmt::For {
                var, range, body, ..
            } => self.for_loop(var, range, body, div),
            Stmt::Nest(n) => {
                n.loops.iter().for_each(|l| self.vary(&l.var));
                let what = "the `nfor!` at line {line} runs per work-item";
                self.block(&n.body, Some(Cause::new(what, n.span)));
                Flow::default()
            }
            Stmt::Break(span) | Stmt::Continue(span) => {
                let what = "some work-items may leave the loop early at line {line}";
                let exit = div.map(|_| Cause::new(what, *span));
                Flow { exit, ret: None }
            }
            Stmt::Return(value, span) => {
                let f = value
                    .as_ref()
                    .map_or(Flow::default(), |v| self.expr(v, div));
                let what = "some work-items may `return` early at line {line}";
                let ret = div.map(|_| Cause::new(what, *span));
                f.join(Flow { ret, exit: None })
            }
        }
    }

    fn bind(&mut self, l: &Let, div: Option<Cause>) -> Flow {
        let Some(init) = &l.init else {
            return Flow::default();
        };
        let f = self.expr(init, div);
        if div.is_some() || !self.uniform(init) {
            match &l.pat {
                Pat::Ident { name, .. } => self.vary(name),
                Pat::Tuple(names) => names.iter().flatten().for_each(|(n, _)| self.vary(n)),
            }
        }
        f
    }

    fn assign(&mut self, place: &Place, compound: bool, value: &Expr, div: Option<Cause>) -> Flow {
        let mut f = self.expr(value, div);
        match place {
            // A field write leaves the other fields as they were: like a compound update.
            // An element write, at a varying index, varies the array.
            Place::Member { base: v, .. } => {
                let mut uniform = div.is_none() && self.uniform(value);
                for e in place.indices() {
                    f = f.join(self.expr(e, div));
                    uniform &= self.uniform(e);
                }
                if !uniform {
                    self.vary(v);
                }
            }
            Place::Var(v) => {
                let kept = !compound || !self.varying.contains(&v.to_string());
                if div.is_some() || !self.uniform(value) || !kept {
                    self.vary(v);
                }
            }
            Place::Index { index, .. } => {
                for e in index {
                    f = f.join(self.expr(e, div));
                }
            }
        }
        f
    }

    /// A loop body runs under `head`, and also under any `break`, `continue` or `return`
    /// only some work-items take, since those make the next iteration differ.
    fn looped(&mut self, body: &Block, head: Option<Cause>) -> Flow {
        let report = self.report.take();
        let first = self.block(body, head);
        self.report = report;
        let inner = head.or(first.exit).or(first.ret);
        let f = self.block(body, inner);
        Flow {
            ret: f.ret,
            exit: None,
        }
    }

    fn for_loop(&mut self, var: &Ident, r: &Range, body: &Block, div: Option<Cause>) -> Flow {
        let mut f = Flow::default();
        let mut uniform = true;
        for e in [Some(&r.start), Some(&r.end), r.step.as_ref()]
            .into_iter()
            .flatten()
        {
            f = f.join(self.expr(e, div));
            uniform &= self.uniform(e);
        }
        let what = "the loop's range at line {line} depends on the work-item";
        let head = div.or((!uniform).then_some(Cause::new(what, r.span)));
        let report = self.report.take();
        let first = self.block(body, head);
        self.report = report;
        if head.or(first.exit).or(first.ret).is_some() {
            self.vary(var);
        }
        f.join(self.looped(body, head))
    }

    /// Walks an expression for the barriers and control flow inside it.
    fn expr(&mut self, e: &Expr, div: Option<Cause>) -> Flow {
        match &e.kind {
            ExprKind::Call { func, args }
                if builtin_of(func).is_some_and(|f| f.kind == FnKind::Barrier)
                    && args.is_empty() =>
            {
                self.barrier(e.span, div);
                Flow::default()
            }
            ExprKind::If { cond, then, els } => {
                let f = self.expr(cond, div);
                let what = "the condition at line {line} depends on the work-item";
                let inner = div.or_else(|| self.cause(cond, what));
                let t = self.block(then, inner);
                let el = els
                    .as_ref()
                    .map_or(Flow::default(), |x| self.expr(x, inner));
                f.join(t).join(el)
            }
            ExprKind::Block(b) => self.block(b, div),
            ExprKind::Binary {
                op: BinOp::And | BinOp::Or,
                lhs,
                rhs,
            } => {
                let f = self.expr(lhs, div);
                let what = "the left side of `&&` or `||` at line {line} depends on the work-item";
                let inner = div.or_else(|| self.cause(lhs, what));
                f.join(self.expr(rhs, inner))
            }
            _ => e
                .operands()
                .into_iter()
                .fold(Flow::default(), |f, x| f.join(self.expr(x, div))),
        }
    }

    /// The cause a branch on `cond` diverges for, if `cond` may differ in a group.
    fn cause(&self, cond: &Expr, what: &'static str) -> Option<Cause> {
        (!self.uniform(cond)).then_some(Cause::new(what, cond.span))
    }

    fn barrier(&self, span: Span, div: Option<Cause>) {
        let (Some(cx), Some(c)) = (self.report, div) else {
            return;
        };
        cx.error(
            span,
            format!(
                "#[nukernel]: every work-item of a work-group must reach `barrier()`, or none \
                 (OpenCL leaves anything else undefined), but {}; branch only on parameters, \
                 dims, sizes and `group_id`, or keep the barrier out of the branch \
                 (`if g < n {{ .. }}` around the work instead of an early `return`)",
                c.text()
            ),
        );
    }

    /// Whether `e` has the same value in every work-item of a group.
    fn uniform(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Assoc { .. } => true,
            ExprKind::Var(v) => !self.varying.contains(&v.to_string()),
            ExprKind::Index { .. } => false,
            ExprKind::Call { func, args } => self.call_uniform(func, args),
            ExprKind::Method { method, .. } if reads_memory(method) => false,
            ExprKind::If { cond, then, els } => {
                self.uniform(cond)
                    && then.tail.as_deref().is_some_and(|t| self.uniform(t))
                    && els.as_deref().is_none_or(|x| self.uniform(x))
            }
            ExprKind::Block(b) => b.tail.as_deref().is_none_or(|t| self.uniform(t)),
            _ => e.operands().into_iter().all(|x| self.uniform(x)),
        }
    }

    /// Work-item ids differ; group ids and sizes do not. A `#[nucode]` function is uniform
    /// on uniform scalars, but may read an array passed to it.
    fn call_uniform(&self, func: &syn::Path, args: &[Expr]) -> bool {
        let passes_capture = args
            .iter()
            .any(|a| matches!(&a.kind, ExprKind::Var(v) if self.analysis.capture(v).is_some()));
        match builtin_of(func).map(|f| f.kind) {
            Some(FnKind::WorkItem { varies: true, .. }) => false,
            Some(_) => args.iter().all(|a| self.uniform(a)),
            None => !passes_capture && args.iter().all(|a| self.uniform(a)),
        }
    }
}

/// Whether a method's value comes from memory other work-items may change (an image read,
/// an atomic's previous value).
fn reads_memory(method: &Ident) -> bool {
    crate::base::ir::builtins::MethodKind::of(&method.to_string()).is_some_and(|k| k.reads_memory())
}
