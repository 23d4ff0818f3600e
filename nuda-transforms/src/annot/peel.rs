//! `peel(a, b)`: the first `a` and the last `b` iterations of the outermost loop run in loops
//! of their own, before and after the main loop. Fewer than `a + b` iterations split exactly
//! too: each runs once.
//!
//! ```text
//! nfor!(i in n { body })    peel(1, 2)    for i_t in 0..1.min(n) { body }
//!                           ──────────▶   for i_t in 1.min(n)..(n.max(2) - 2).max(1.min(n)) { body }
//!                                         for i_t in (n.max(2) - 2).max(1.min(n))..n { body }
//! ```
//! Main part: the middle loop.

use super::build::Gen;
use super::counter::normalize;
use super::Cont;
use crate::base::ir::*;

/// Peels `first` and `last` iterations off the outermost loop of `n`.
pub fn peel(g: &mut Gen<'_>, n: Nest, first: u128, last: u128, cont: Cont<'_>) -> Vec<Stmt> {
    let norm = normalize(g, n, 1);
    let d = norm.dims[0].clone();
    let span = norm.span;
    let a = g.method("min", g.usize_lit(first, span), d.trips.clone());
    let tail_start = g.method("max", d.trips.clone(), g.usize_lit(last, span));
    let tail_start = g.bin(BinOp::Sub, tail_start, g.usize_lit(last, span));
    let b = g.method("max", tail_start, a.clone());
    let part = |g: &mut Gen<'_>, from: Expr, to: Expr| {
        norm.rebuild(vec![g.counter(d.counter.clone(), from, to, None)])
    };
    let head = part(g, g.usize_lit(0, span), a.clone());
    let middle = part(g, a, b.clone());
    let tail = part(g, b, d.trips.clone());
    let mut out = vec![Stmt::Nest(Box::new(head))];
    out.extend(cont(g, middle));
    out.push(Stmt::Nest(Box::new(tail)));
    out
}
