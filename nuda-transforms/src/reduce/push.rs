//! `v.push(e)` in a `nuwork!` body, where `v` is a captured `NuVec`: rewritten, before
//! capture analysis, into a store at a slot and a counter's update,
//!
//! ```text
//! v[__nuda_len_v] = e;
//! __nuda_len_v += 1usize;
//! ```
//!
//! which makes the counter a scan variable: each push's slot is the number of pushes before
//! it in loop order, plus the vector's old length. The scan's first pass counts (its slice
//! keeps the counter and drops the store), the host grows the vector to the total, and the
//! second pass runs the body once, storing each pushed value in its slot.
//!
//! A push needs a constant bound per iteration: not under `while` or `loop`, and under `for`
//! or `nfor!` only with a constant trip count.

use crate::ctxt::Ctxt;
use crate::ir::*;
use proc_macro2::Span;
use syn::Ident;

/// A vector the body pushes to, and its counter.
#[derive(Debug, Clone)]
pub struct Push {
    /// The captured `NuVec`.
    pub vec: Ident,
    /// The synthetic scan variable holding the next slot.
    pub counter: Ident,
}

/// Rewrites every push in `body`; `slots` numbers the new updates' type slots.
pub fn rewrite(cx: &Ctxt, body: &mut Block, slots: &mut usize) -> Vec<Push> {
    let mut r = Rewriter {
        cx,
        slots,
        pushes: Vec::new(),
        unbounded: None,
    };
    r.block(body);
    r.pushes
}

struct Rewriter<'a> {
    cx: &'a Ctxt,
    slots: &'a mut usize,
    pushes: Vec<Push>,
    /// Where the innermost enclosing loop without a constant trip count starts, if any.
    unbounded: Option<Span>,
}

impl Rewriter<'_> {
    fn block(&mut self, b: &mut Block) {
        let stmts = std::mem::take(&mut b.stmts);
        for s in stmts {
            match push_of(&s) {
                Some((vec, value, span)) => self.push(vec, value, span, &mut b.stmts),
                None => {
                    let mut s = s;
                    self.stmt(&mut s);
                    b.stmts.push(s);
                }
            }
        }
        if let Some(t) = b.tail.take() {
            match push_of(&Stmt::Expr((*t).clone())) {
                Some((vec, value, span)) => self.push(vec, value, span, &mut b.stmts),
                None => {
                    let mut t = t;
                    self.expr(&mut t);
                    b.tail = Some(t);
                }
            }
        }
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::While { body, span, .. } | Stmt::Loop { body, span } => {
                let span = *span;
                self.within(Some(span), |r| r.block(body))
            }
            Stmt::For {
                range, body, span, ..
            } => {
                let bound = (!constant(range)).then_some(*span);
                self.within(bound.or(self.unbounded), |r| r.block(body))
            }
            Stmt::Nest(n) => {
                let bound = n
                    .loops
                    .iter()
                    .any(|l| !constant(&l.range))
                    .then_some(n.span);
                self.within(bound.or(self.unbounded), |r| r.block(&mut n.body))
            }
            Stmt::Expr(e) => self.expr(e),
            _ => {}
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::If { then, els, .. } => {
                self.block(then);
                if let Some(x) = els {
                    self.expr(x);
                }
            }
            ExprKind::Block(b) => self.block(b),
            _ => {}
        }
    }

    fn within(&mut self, unbounded: Option<Span>, f: impl FnOnce(&mut Self)) {
        let saved = std::mem::replace(&mut self.unbounded, unbounded);
        f(self);
        self.unbounded = saved;
    }

    fn push(&mut self, vec: Ident, value: Expr, span: Span, out: &mut Vec<Stmt>) {
        if self.unbounded.is_some() {
            let msg = format!("nuwork!: `{vec}.push(..)` inside a loop whose trip count is not a constant; a push needs a constant bound per iteration (outside loops, or inside `for` loops over constant ranges), so move it out, or give the loop a constant range and guard with `if`");
            self.cx.error(span, msg);
        }
        let counter = match self.pushes.iter().find(|p| p.vec == vec) {
            Some(p) => p.counter.clone(),
            None => {
                let counter = Ident::new(&format!("__nuda_len_{vec}"), vec.span());
                let (vec, counter2) = (vec.clone(), counter.clone());
                self.pushes.push(Push {
                    vec,
                    counter: counter2,
                });
                counter
            }
        };
        let slot_index = Expr::new(ExprKind::Var(counter.clone()), span);
        out.push(Stmt::Assign {
            place: Place::Index {
                base: vec,
                index: vec![slot_index],
            },
            op: None,
            value,
            slot: None,
            span,
        });
        let one = Lit::Int {
            text: "1".into(),
            suffix: Some(Scalar::Usize),
        };
        let slot = *self.slots;
        *self.slots += 1;
        out.push(Stmt::Assign {
            place: Place::Var(counter),
            op: Some(BinOp::Add),
            value: Expr::new(ExprKind::Lit(one), span),
            slot: Some(slot),
            span,
        });
    }
}

/// `v.push(e);` as a statement: `v`, `e` and the span.
fn push_of(s: &Stmt) -> Option<(Ident, Expr, Span)> {
    let Stmt::Expr(e) = s else { return None };
    let ExprKind::Method {
        recv, method, args, ..
    } = &e.kind
    else {
        return None;
    };
    match (&recv.kind, args.as_slice()) {
        (ExprKind::Var(v), [x]) if method == "push" => Some((v.clone(), x.clone(), e.span)),
        _ => None,
    }
}

/// Whether a range's bounds and step are literals or constants.
fn constant(r: &Range) -> bool {
    let c = |e: &Expr| match &e.kind {
        ExprKind::Lit(_) => true,
        ExprKind::Var(v) => crate::syntax::looks_const(v),
        ExprKind::Paren(x) | ExprKind::Cast { expr: x, .. } => matches!(x.kind, ExprKind::Lit(_)),
        _ => false,
    };
    c(&r.start) && c(&r.end) && r.step.as_ref().is_none_or(c)
}
