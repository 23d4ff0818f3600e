//! `tilem(s1..sk)`: tile, with the partial tiles split off as remainder nests, so the main nest
//! has exact trip counts (constant when the sizes are).
//!
//! ```text
//! nfor!(i in n { body })     tilem(4)    for i_tile in (0..n / 4 * 4).step_by(4) {
//!                            ────────▶       for i_e in 0..4 { body[i := i_tile + i_e] }
//!                                        }
//!                                        for i_t in n / 4 * 4..n { body }
//! ```
//! Main part: the element loops of the full tiles.

use super::build::{nest, Gen};
use super::counter::normalize;
use super::tile::elements;
use super::Cont;
use crate::base::ir::*;

pub fn tilem(g: &mut Gen<'_>, n: Nest, sizes: &[Expr], cont: Cont<'_>) -> Vec<Stmt> {
    let norm = normalize(g, n, sizes.len());
    let sizes: Vec<Expr> = sizes.iter().map(|s| g.as_usize(s.clone())).collect();
    let full = norm.main_extents(g, &sizes);
    let names: Vec<syn::Ident> = norm
        .dims
        .iter()
        .map(|d| g.fresh(&format!("{}_tile", d.like), &d.like))
        .collect();
    let mut tiles = Vec::new();
    for ((s, m), t) in sizes.iter().zip(&full).zip(&names) {
        let zero = g.usize_lit(0, norm.span);
        tiles.push(g.counter(t.clone(), zero, m.clone(), Some(s.clone())));
    }
    let main = elements(g, &norm, &names, &mut |_, d| sizes[d].clone());
    let body = Block {
        stmts: cont(g, main),
        tail: None,
    };
    let mut out = vec![Stmt::Nest(Box::new(nest(tiles, body, norm.span)))];
    out.extend(norm.remainders(g, &full));
    out
}
