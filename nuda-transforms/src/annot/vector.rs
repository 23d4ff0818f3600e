//! `vector(w)`: the innermost loop of the nest runs `w` iterations at a time, and OpenCL C runs
//! those `w` lanes as one iteration on `floatN` values (`emit::cl::vector`): Halide's
//! `vectorize`. Only the lane loop is marked; capture analysis and the launch-time proof see
//! a plain loop, so the lanes are exact by construction. The native engine turns the marked
//! loop inside out (`emit::native::lanes`: locals as `[T; w]`, each statement a loop over
//! the lanes), which LLVM vectorises. The trips no vector fills run in a remainder nest.
//!
//! ```text
//! nfor!((i, j) in (m, n) { body })   vector(4)   for i_t in 0..m { for j_tile in (0..n / 4 * 4).step_by(4) {
//!                                    ─────────▶      lanes(4) for j_e in 0..4 { body[j := j_tile + j_e] }
//!                                                } }
//!                                                for i_t in 0..m { for j_t in n / 4 * 4..n { body } }
//! ```
//! Main part: none. The lanes are the end of the chain, as `inline` is.

use super::build::{nest, Gen};
use super::counter::normalize;
use crate::base::ir::*;
use proc_macro2::Span;
use std::collections::HashMap;

/// The widths OpenCL C has vector types of (`float2` .. `float16`; `float3` loads as 4).
pub const WIDTHS: [u128; 4] = [2, 4, 8, 16];

/// Vectorises the innermost loop of `n` by `width` lanes; `span` is the annotation's.
pub fn vector(g: &mut Gen<'_>, n: Nest, width: u128, span: Span) -> Vec<Stmt> {
    let k = n.loops.len();
    let norm = normalize(g, n, k);
    let last = &norm.dims[k - 1];
    let w = g.usize_lit(width, norm.span);
    let q = g.bin(BinOp::Div, last.trips.clone(), w.clone());
    let full = g.bin(BinOp::Mul, q, w.clone());
    let tile = g.fresh(&format!("{}_tile", last.like), &last.like);
    let lane = g.fresh(&format!("{}_e", last.like), &last.like);
    let mut loops = outer_loops(g, &norm.dims[..k - 1]);
    let zero = g.usize_lit(0, norm.span);
    loops.push(g.counter(tile.clone(), zero, full.clone(), Some(w.clone())));
    let value = g.bin(BinOp::Add, g.var(&tile), g.var(&lane));
    let subst = HashMap::from([(last.counter.to_string(), value)]);
    let mut body = norm.with_counters(subst).body;
    let renamed = super::bindings::unique(g, &mut body);
    let zero = g.usize_lit(0, norm.span);
    let mut lanes = nest(vec![g.counter(lane, zero, w, None)], body, norm.span);
    lanes.lanes = Some(Lanes {
        width: width as usize,
        span,
        renamed,
    });
    let main = Block {
        stmts: vec![Stmt::Nest(Box::new(lanes))],
        tail: None,
    };
    let mut rest = outer_loops(g, &norm.dims[..k - 1]);
    rest.push(g.counter(last.counter.clone(), full, last.trips.clone(), None));
    vec![
        Stmt::Nest(Box::new(nest(loops, main, norm.span))),
        Stmt::Nest(Box::new(norm.rebuild(rest))),
    ]
}

/// `vector(w)` after `stage` (and a `dmine`): the last element loop of the staged tile steps
/// by `w`, and its `w` lanes run as one vector iteration. The width divides the tile, so there
/// is no remainder, and the work-group shrinks by `w` along that dimension.
pub fn staged(g: &mut Gen<'_>, mut n: Nest, width: u128, span: Span) -> Vec<Stmt> {
    let last = n.loops.len() - 1;
    let tile = n.stage.as_ref().map_or(0, |st| st.tiles[last]);
    let step = crate::base::ir::staging::group_dims(&n)[last].0;
    let why = if step != 1 {
        format!("the dmine factor {step} on the last loop would spread the lanes; give that loop the factor 1")
    } else if !(tile as u128).is_multiple_of(width) {
        format!("the last tile size {tile} does not divide by {width}")
    } else {
        String::new()
    };
    if !why.is_empty() {
        let msg = format!("annot!: vector({width}) after stage: {why}, as in `tilem(64, 64), stage(a, b, k: 16), dmine(4, 1), vector(4)`");
        g.cx.error(span, msg);
        return vec![Stmt::Nest(Box::new(n))];
    }
    let old = n.loops[last].var.clone();
    let v = g.fresh(&format!("{old}_v"), &old);
    let lane = g.fresh(&format!("{old}_l"), &old);
    let value = g.bin(BinOp::Add, g.var(&v), g.var(&lane));
    let subst = HashMap::from([(old.to_string(), value)]);
    let (_, mut body) = super::counter::substitute(Vec::new(), std::mem::take(&mut n.body), subst);
    let renamed = super::bindings::unique(g, &mut body);
    let (zero, w) = (g.usize_lit(0, n.span), g.usize_lit(width, n.span));
    let end = g.usize_lit(tile as u128, n.span);
    n.loops[last] = g.counter(v, zero.clone(), end, Some(w.clone()));
    let mut lanes = nest(vec![g.counter(lane, zero, w, None)], body, n.span);
    lanes.lanes = Some(Lanes {
        width: width as usize,
        span,
        renamed,
    });
    n.body = Block {
        stmts: vec![Stmt::Nest(Box::new(lanes))],
        tail: None,
    };
    vec![Stmt::Nest(Box::new(n))]
}

/// The loops outside the vectorised one, each over all its trips.
fn outer_loops(g: &mut Gen<'_>, dims: &[super::counter::Dim]) -> Vec<Loop> {
    dims.iter()
        .map(|d| {
            let zero = g.usize_lit(0, d.like.span());
            g.counter(d.counter.clone(), zero, d.trips.clone(), None)
        })
        .collect()
}
