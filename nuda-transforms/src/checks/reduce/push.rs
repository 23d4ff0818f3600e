//! `v.push(e)` in a `nuwork!` body, where `v` is a captured `NuVec`: rewritten, before
//! capture analysis, into a store at a slot and a counter's update,
//!
//! ```text
//! v[__nuda_len_v as usize] = e;
//! __nuda_len_v += 1u32;
//! ```
//!
//! which makes the counter a scan variable: each push's slot is the number of pushes before
//! it in loop order, plus the vector's old length. The scan's first pass counts (its slice
//! keeps the counter and drops the store), the host grows the vector to the total, and the
//! second pass runs the body once, storing each pushed value in its slot.
//!
//! A push needs a constant bound per iteration: not under `while` or `loop`, and under `for`
//! or `nfor!` only with a constant trip count. Where those counts are literals, the bound is
//! known here and the counter is a `u32` (the launch checks that the vector's length plus
//! the iterations times the bound fits), so kernels count in 32 bits; else it is a `usize`.

use crate::base::ctxt::Ctxt;
use crate::base::ir::*;
use proc_macro2::Span;
use syn::Ident;

/// A vector the body pushes to, and its counter.
#[derive(Debug, Clone)]
pub struct Push {
    /// The captured `NuVec`.
    pub vec: Ident,
    /// The synthetic scan variable holding the next slot.
    pub counter: Ident,
    /// Pushes per iteration at most, where every enclosing loop's trip count is a literal.
    pub bound: Option<u64>,
}

/// Rewrites every push in `body`; `slots` numbers the new updates' type slots.
pub fn rewrite(cx: &Ctxt, body: &mut Block, slots: &mut usize) -> Vec<Push> {
    let mut sites = Vec::new();
    let mut r = Rewriter {
        cx,
        pushes: Vec::new(),
        unbounded: None,
        times: Some(1),
        sites: &mut sites,
    };
    r.block(body);
    let mut pushes = r.pushes;
    for p in &mut pushes {
        let counts = sites.iter().filter(|(v, _)| *v == p.vec).map(|(_, t)| *t);
        p.bound = counts.sum::<Option<u64>>();
    }
    let bounded = |vec: &Ident| pushes.iter().any(|p| p.vec == *vec && p.bound.is_some());
    finish_all(body, &bounded, slots);
    pushes
}

struct Rewriter<'a> {
    cx: &'a Ctxt,
    pushes: Vec<Push>,
    /// Where the innermost enclosing loop without a constant trip count starts, if any.
    unbounded: Option<Span>,
    /// How many times the current statement runs per iteration, where known.
    times: Option<u64>,
    /// Each push: its vector and how many times it runs per iteration.
    sites: &'a mut Vec<(Ident, Option<u64>)>,
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
                let times = literal_trips(range);
                let within = bound.or(self.unbounded);
                self.within(within, |r| r.times_by(times, |r| r.block(body)))
            }
            Stmt::Nest(n) => {
                let loops = &n.loops;
                let bound = loops.iter().any(|l| !constant(&l.range)).then_some(n.span);
                let times = loops.iter().map(|l| literal_trips(&l.range)).product();
                let (within, body) = (bound.or(self.unbounded), &mut n.body);
                self.within(within, |r| r.times_by(times, |r| r.block(body)))
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

    fn times_by(&mut self, factor: Option<u64>, f: impl FnOnce(&mut Self)) {
        let saved = self.times;
        self.times = saved.zip(factor).and_then(|(a, b)| a.checked_mul(b));
        f(self);
        self.times = saved;
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
                let (v, c) = (vec.clone(), counter.clone());
                self.pushes.push(Push {
                    vec: v,
                    counter: c,
                    bound: None,
                });
                counter
            }
        };
        self.sites.push((vec.clone(), self.times));
        // The slot's cast and the increment's type wait for the bound (`finish`).
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
            suffix: None,
        };
        out.push(Stmt::Assign {
            place: Place::Var(counter),
            op: Some(BinOp::Add),
            value: Expr::new(ExprKind::Lit(one), span),
            slot: None,
            span,
        });
    }
}

/// Types every push's statement pair in `b` (see `finish`).
fn finish_all(b: &mut Block, bounded: &dyn Fn(&Ident) -> bool, slots: &mut usize) {
    let mut i = 0;
    while i < b.stmts.len() {
        match push_store(&b.stmts[i]) {
            Some(vec) if i + 1 < b.stmts.len() => {
                finish(&mut b.stmts[i..i + 2], bounded(&vec), slots);
                i += 2;
            }
            _ => {
                for inner in inner_blocks(&mut b.stmts[i]) {
                    finish_all(inner, bounded, slots);
                }
                i += 1;
            }
        }
    }
    if let Some(t) = &mut b.tail {
        for inner in expr_blocks(t) {
            finish_all(inner, bounded, slots);
        }
    }
}

/// The blocks directly inside a statement.
fn inner_blocks(s: &mut Stmt) -> Vec<&mut Block> {
    match s {
        Stmt::While { body, .. } | Stmt::Loop { body, .. } | Stmt::For { body, .. } => vec![body],
        Stmt::Nest(n) => vec![&mut n.body],
        Stmt::Expr(e) => expr_blocks(e),
        _ => Vec::new(),
    }
}

/// The blocks directly inside an `if` or block expression.
fn expr_blocks(e: &mut Expr) -> Vec<&mut Block> {
    match &mut e.kind {
        ExprKind::If { then, els, .. } => {
            let mut v = vec![then];
            if let Some(x) = els {
                v.extend(expr_blocks(x));
            }
            v
        }
        ExprKind::Block(b) => vec![b],
        _ => Vec::new(),
    }
}

/// The vector of a push's store (`v[__nuda_len_v] = e`), if `s` is one.
fn push_store(s: &Stmt) -> Option<Ident> {
    match s {
        Stmt::Assign {
            place: Place::Index { base, index },
            ..
        } => match index.as_slice() {
            [Expr {
                kind: ExprKind::Var(c),
                slot: None,
                ..
            }] if *c == format!("__nuda_len_{base}").as_str() => Some(base.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Types a push's pair: the slot as `counter as usize`, the increment `1u32` (bounded) or
/// `1usize`, each with a type slot.
fn finish(pair: &mut [Stmt], bounded: bool, slots: &mut usize) {
    let mut next = || {
        *slots += 1;
        *slots - 1
    };
    if let [Stmt::Assign {
        place: Place::Index { index, .. },
        ..
    }, Stmt::Assign { value, slot, .. }] = pair
    {
        let mut counter = index[0].clone();
        counter.slot = Some(next());
        let ty = Ty::Scalar(Scalar::Usize);
        index[0] = Expr::new(
            ExprKind::Cast {
                expr: Box::new(counter.clone()),
                ty,
            },
            counter.span,
        );
        let suffix = Some(if bounded { Scalar::U32 } else { Scalar::Usize });
        value.kind = ExprKind::Lit(Lit::Int {
            text: "1".into(),
            suffix,
        });
        *slot = Some(next());
    }
}

/// The trip count of a range of integer literals (step 1 or a positive literal).
fn literal_trips(r: &Range) -> Option<u64> {
    let int = |e: &Expr| match &e.kind {
        ExprKind::Lit(Lit::Int { text, .. }) => text.replace('_', "").parse::<u64>().ok(),
        _ => None,
    };
    let (a, b) = (int(&r.start)?, int(&r.end)?);
    let step = r.step.as_ref().map_or(Some(1), int)?.max(1);
    let span = (b + u64::from(r.inclusive)).saturating_sub(a);
    Some(span.div_ceil(step))
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
