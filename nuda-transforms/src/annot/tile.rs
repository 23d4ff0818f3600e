//! `tile(s1..sk)`: tile the k outermost loops. Tile loops go outside, element loops inside,
//! and the last, partial tile of each loop is bounded with `min`.
//!
//! ```text
//! nfor!(i in n { body })          tile(4)      for i_tile in (0..n).step_by(4) {
//!                                 ─────────▶       for i_e in 0..4.min(n - i_tile) { body[i := i_tile + i_e] }
//!                                              }
//! ```
//! Main part: the element loops (and the loops inside them). They count from 0, so a later
//! annotation sees their trip count, constant when the tile size is (`tilem` shares the
//! element loops, from `elements`).

use super::build::{nest, Gen};
use super::counter::{normalize, Normal};
use super::Cont;
use crate::base::ir::*;
use std::collections::HashMap;

/// The main part of a tiling: element counters from 0 to `extent(tile, dim)`, and the body
/// with each counter replaced by `tile + element`.
pub(super) fn elements(
    g: &mut Gen<'_>,
    norm: &Normal,
    tiles: &[syn::Ident],
    extent: &mut dyn FnMut(&mut Gen<'_>, usize) -> Expr,
) -> Nest {
    let mut loops = Vec::new();
    let mut subst = HashMap::new();
    for (d, (dim, t)) in norm.dims.iter().zip(tiles).enumerate() {
        let e = g.fresh(&format!("{}_e", dim.like), &dim.like);
        let zero = g.usize_lit(0, norm.span);
        let end = extent(g, d);
        loops.push(g.counter(e.clone(), zero, end, None));
        subst.insert(
            dim.counter.to_string(),
            g.bin(BinOp::Add, g.var(t), g.var(&e)),
        );
    }
    norm.with_counters(subst).rebuild(loops)
}

/// Tiles `n` by `sizes`; `cont` transforms the main part.
pub fn tile(g: &mut Gen<'_>, n: Nest, sizes: &[Expr], cont: Cont<'_>) -> Vec<Stmt> {
    let norm = normalize(g, n, sizes.len());
    let sizes: Vec<Expr> = sizes.iter().map(|s| g.as_usize(s.clone())).collect();
    let names: Vec<syn::Ident> = norm
        .dims
        .iter()
        .map(|d| g.fresh(&format!("{}_tile", d.like), &d.like))
        .collect();
    let mut tiles = Vec::new();
    for ((d, s), t) in norm.dims.iter().zip(&sizes).zip(&names) {
        let zero = g.usize_lit(0, norm.span);
        tiles.push(g.counter(t.clone(), zero, d.trips.clone(), Some(s.clone())));
    }
    let main = elements(g, &norm, &names, &mut |g, d| {
        let left = g.bin(BinOp::Sub, norm.dims[d].trips.clone(), g.var(&names[d]));
        g.method("min", sizes[d].clone(), left)
    });
    let body = Block {
        stmts: cont(g, main),
        tail: None,
    };
    vec![Stmt::Nest(Box::new(nest(tiles, body, norm.span)))]
}
