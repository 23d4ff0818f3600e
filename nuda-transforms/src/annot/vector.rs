//! `vector(w)`: the innermost loop of the nest runs `w` iterations at a time, and OpenCL C runs
//! those `w` lanes as one iteration on `floatN` values (`emit::cl::vector`): Halide's
//! `vectorize`. Only the lane loop is marked; every other pass (capture analysis, the
//! launch-time proof, the native engine, which leaves vectorising to LLVM) sees a plain loop,
//! so the lanes are exact by construction. The trips no vector fills run in a remainder nest.
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
use crate::ir::*;
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
    let body = norm.with_counters(subst).body;
    let zero = g.usize_lit(0, norm.span);
    let mut lanes = nest(vec![g.counter(lane, zero, w, None)], body, norm.span);
    lanes.lanes = Some(Lanes {
        width: width as usize,
        span,
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

/// The loops outside the vectorised one, each over all its trips.
fn outer_loops(g: &mut Gen<'_>, dims: &[super::counter::Dim]) -> Vec<Loop> {
    dims.iter()
        .map(|d| {
            let zero = g.usize_lit(0, d.like.span());
            g.counter(d.counter.clone(), zero, d.trips.clone(), None)
        })
        .collect()
}
