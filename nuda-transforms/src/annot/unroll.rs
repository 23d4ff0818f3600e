//! `unroll(u1..uk)`: simple unroll. The body is copied u times, one copy after another,
//! stepping by u; no interleaving, and loops nested inside stay as they are. The iterations
//! no factor covers run in remainder nests.
//!
//! ```text
//! nfor!(i in n { body })    unroll(2)    for i_t in (0..n / 2 * 2).step_by(2) {
//!                           ─────────▶       { body[i := i_t] } { body[i := i_t + 1] }
//!                                        }
//!                                        for i_t in n / 2 * 2..n { body }
//! ```
//! Main part: the unrolled loop.

use super::build::{nest, Gen};
use super::counter::{substitute, Normal};
use super::Cont;
use crate::base::ir::*;
use std::collections::HashMap;

/// Every combination of copy offsets, first dim slowest.
pub fn copies(factors: &[u128]) -> Vec<Vec<u128>> {
    let mut out = vec![vec![]];
    for &u in factors {
        out = out
            .into_iter()
            .flat_map(|c| (0..u).map(move |m| [c.clone(), vec![m]].concat()))
            .collect();
    }
    out
}

/// The counters of `norm` shifted by `offsets`.
pub fn shifted(g: &mut Gen<'_>, norm: &Normal, offsets: &[u128]) -> HashMap<String, Expr> {
    norm.dims
        .iter()
        .zip(offsets)
        .map(|(d, &m)| {
            let e = if m == 0 {
                g.var(&d.counter)
            } else {
                g.bin(BinOp::Add, g.var(&d.counter), g.usize_lit(m, norm.span))
            };
            (d.counter.to_string(), e)
        })
        .collect()
}

/// The main loops: counters stepping by their factor up to `full`.
pub fn stepping_loops(
    g: &mut Gen<'_>,
    norm: &Normal,
    full: &[Expr],
    factors: &[u128],
) -> Vec<Loop> {
    norm.dims
        .iter()
        .zip(full)
        .zip(factors)
        .map(|((d, m), &u)| {
            let zero = g.usize_lit(0, norm.span);
            let step = (u > 1).then(|| g.usize_lit(u, norm.span));
            g.counter(d.counter.clone(), zero, m.clone(), step)
        })
        .collect()
}

/// Unrolls `n` by `factors`; `cont` transforms the main part.
pub fn unroll(g: &mut Gen<'_>, n: Nest, factors: &[u128], cont: Cont<'_>) -> Vec<Stmt> {
    let norm = super::counter::normalize(g, n, factors.len());
    let lits: Vec<Expr> = factors.iter().map(|&u| g.usize_lit(u, norm.span)).collect();
    let full = norm.main_extents(g, &lits);
    let mut body = Block::default();
    for offsets in copies(factors) {
        let subst = shifted(g, &norm, &offsets);
        let (inner, copy) = substitute(norm.inner.clone(), norm.body.clone(), subst);
        let stmt = if inner.is_empty() {
            Stmt::Expr(Expr::new(ExprKind::Block(copy), norm.span))
        } else {
            Stmt::Nest(Box::new(nest(inner, copy, norm.span)))
        };
        body.stmts.push(stmt);
    }
    let main = nest(stepping_loops(g, &norm, &full, factors), body, norm.span);
    let mut out = cont(g, main);
    out.extend(norm.remainders(g, &full));
    out
}
