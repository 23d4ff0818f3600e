//! `inline`: fully unroll the nest, whose loops must all have constant trip counts: each
//! iteration becomes a copy of the body with the loop variables replaced by their values.
//!
//! ```text
//! nfor!(k in 0..3 { s += w[k]; })    inline    { s += w[0]; } { s += w[1]; } { s += w[2]; }
//! ```
//! Main part: none; `inline` ends the chain.
//!
//! A trip count made of named constants (`const TS: usize = 16; nfor!(q in TS {..})`) is
//! constant too, but the macro sees the name, not the value: that loop stays a loop. Both
//! compilers see a constant trip count (the OpenCL C spells a `nuwork!` constant's value:
//! `CaptureDesc::Const`), so they can unroll it.

use super::build::{nest, Gen};
use super::counter::substitute;
use crate::base::ir::*;
use std::collections::HashMap;

/// Copies allowed before `inline` refuses: a kernel is not a place for thousands of copies.
const MAX_COPIES: i128 = 1024;

fn constant(e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, .. }) => text.parse().ok(),
        ExprKind::Unary {
            op: UnOp::Neg,
            expr,
        } => constant(expr).map(|v| -v),
        ExprKind::Paren(x) => constant(x),
        _ => None,
    }
}

/// Whether `e` is made of integer literals and constants named as constants (`TS`, `N + 1`):
/// the same value in every iteration and work-item, known when the program is compiled.
fn named_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(Lit::Int { .. }) => true,
        ExprKind::Var(name) => crate::syntax::looks_const(name),
        ExprKind::Unary { expr, .. } | ExprKind::Paren(expr) | ExprKind::Cast { expr, .. } => {
            named_constant(expr)
        }
        ExprKind::Binary { lhs, rhs, .. } => named_constant(lhs) && named_constant(rhs),
        _ => false,
    }
}

/// Whether every bound and the step of `r` is a [`named_constant`].
fn constant_range(r: &Range) -> bool {
    let step = r.step.as_ref().is_none_or(named_constant);
    named_constant(&r.start) && named_constant(&r.end) && step
}

/// The values the loop variable takes, in order, if its range is made of integer literals:
/// as the loops count them (`private::range`), up for a positive step, down for a negative
/// one, and last first under `.rev()`.
pub fn values(r: &Range) -> Option<Vec<i128>> {
    let (a, b) = (constant(&r.start)?, constant(&r.end)?);
    let s = r.step.as_ref().map_or(Some(1), constant)?;
    let (from, to, m) = match s {
        0 => return None,
        s if s > 0 => (a, b, s),
        s => (b, a, -s),
    };
    let n = match r.inclusive {
        true if to >= from => (to - from) / m + 1,
        false if to > from => (to - from + m - 1) / m,
        _ => 0,
    };
    if n > MAX_COPIES {
        return None;
    }
    let mut v: Vec<i128> = (0..n).map(|k| a + k * s).collect();
    if r.rev {
        v.reverse();
    }
    Some(v)
}

/// The type a range's literals name (`0u8..4`), which its loop variable has.
fn suffix(r: &Range) -> Option<Scalar> {
    fn of(e: &Expr) -> Option<Scalar> {
        match &e.kind {
            ExprKind::Lit(Lit::Int { suffix, .. }) => *suffix,
            ExprKind::Unary { expr, .. } | ExprKind::Paren(expr) => of(expr),
            _ => None,
        }
    }
    let step = r.step.as_ref().and_then(of);
    of(&r.start).or_else(|| of(&r.end)).or(step)
}

/// A literal of the loop variable's type: its slot, and the range's suffix where it has one
/// (with the loop gone, nothing else would tell rustc that `k` of `0u8..4` is a `u8`).
fn literal(v: i128, (slot, suffix): (Slot, Option<Scalar>), span: proc_macro2::Span) -> Expr {
    let lit = Expr {
        kind: ExprKind::Lit(Lit::Int {
            text: v.unsigned_abs().to_string(),
            suffix,
        }),
        span,
        slot: Some(slot),
    };
    if v >= 0 {
        return lit;
    }
    Expr {
        kind: ExprKind::Unary {
            op: UnOp::Neg,
            expr: Box::new(lit),
        },
        span,
        slot: Some(slot),
    }
}

/// Fully unrolls every loop of `n`, outermost first. An inner range may use outer loop
/// variables, so each inner loop is checked once they are substituted.
pub fn inline(g: &mut Gen<'_>, n: Nest) -> Vec<Stmt> {
    let mut budget = MAX_COPIES;
    unroll_all(g, n, &mut budget).unwrap_or_default()
}

/// The copies of `n`'s body, or `None` after reporting the loop that cannot be unrolled
/// (once: the error stops the expansion rather than repeating for every outer copy).
fn unroll_all(g: &mut Gen<'_>, n: Nest, budget: &mut i128) -> Option<Vec<Stmt>> {
    let mut loops = n.loops;
    let inner = loops.split_off(1);
    let l = &loops[0];
    let values = values(&l.range);
    if values.is_none() && constant_range(&l.range) {
        // A named constant's trip count: the loop stays, with its inner loops.
        loops.extend(inner);
        return Some(vec![Stmt::Nest(Box::new(nest(loops, n.body, n.span)))]);
    }
    let Some(values) = values.filter(|v| !inner.is_empty() || v.len() as i128 <= *budget) else {
        g.cx.error(l.range.span, format!("annot!: inline needs constant trip counts, at most {MAX_COPIES} copies in all: ranges of integer literals and named constants, as in `0..4` or `0..TS`"));
        return None;
    };
    let mut out = Vec::with_capacity(values.len());
    for v in values {
        let typed = (l.slot, suffix(&l.range));
        let subst = HashMap::from([(l.var.to_string(), literal(v, typed, l.var.span()))]);
        let (inner, body) = substitute(inner.clone(), n.body.clone(), subst);
        let body = if inner.is_empty() {
            *budget -= 1;
            body
        } else {
            let stmts = unroll_all(g, nest(inner, body, n.span), budget)?;
            Block { stmts, tail: None }
        };
        out.push(Stmt::Expr(Expr::new(ExprKind::Block(body), n.span)));
    }
    Some(out)
}
