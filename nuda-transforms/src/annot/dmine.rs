//! `dmine(u1..uk)`: deep unroll, or unroll-and-jam, as NUDA's Fig. 6. Copies of the body, with
//! the locals each declares renamed per copy (`s` becomes `s_0`, `s_1`), are interleaved
//! statement by statement. A statement that is a loop whose bounds are the same for every copy
//! is not copied: one loop runs the interleaved copies of its body, recursively. Tails become
//! remainder nests.
//!
//! ```text
//! nfor!(i in n {                    dmine(2)    for i_t in (0..n / 2 * 2).step_by(2) {
//!     let mut s = 0.0;              ────────▶       let mut s_0 = 0.0; let mut s_1 = 0.0;
//!     nfor!(k in m { s += a[(k, i)]; });            nfor!(k in m { s_0 += a[(k, i)]; s_1 += a[(k, i + 1)]; });
//!     y[i] = s;                                     y[i] = s_0; y[i + 1] = s_1;
//! })                                            }
//!                                               for i_t in n / 2 * 2..n { .. }
//! ```
//! Main part: the jammed main nest.

use super::build::{nest, Gen};
use super::counter::normalize;
use super::rename::Rewrite;
use super::unroll::{copies, shifted, stepping_loops};
use super::Cont;
use crate::base::ir::visit::VisitMut;
use crate::base::ir::*;

/// Unrolls and jams `n` by `factors`; `cont` transforms the main part.
pub fn dmine(g: &mut Gen<'_>, mut n: Nest, factors: &[u128], cont: Cont<'_>) -> Vec<Stmt> {
    // On a staged tile, each work-item of the group takes a block; the factors divide the
    // tile, so there is no remainder (`stage.rs`).
    let staged = n.stage.take();
    if let Some(st) = &staged {
        if factors
            .iter()
            .zip(&st.tiles)
            .any(|(&u, &t)| !(t as u128).is_multiple_of(u))
        {
            g.cx.error(st.span, "annot!: dmine after stage: the factors must divide the tile sizes, so that every work-item of a group has a whole block");
            return vec![Stmt::Nest(Box::new(n))];
        }
    }
    let norm = normalize(g, n, factors.len());
    let lits: Vec<Expr> = factors.iter().map(|&u| g.usize_lit(u, norm.span)).collect();
    let full = match &staged {
        Some(st) => (st.tiles.iter().take(factors.len()))
            .map(|&t| g.usize_lit(t as u128, norm.span))
            .collect(),
        None => norm.main_extents(g, &lits),
    };
    let read = reads(&norm.body);
    let mut rewrites: Vec<Rewrite> = copies(factors)
        .iter()
        .map(|offsets| {
            let label: String = offsets.iter().map(|m| format!("_{m}")).collect();
            Rewrite::new(shifted(g, &norm, offsets), Some(label)).reading(read.clone())
        })
        .collect();
    let mut stmts = Vec::new();
    if norm.inner.is_empty() {
        stmts.extend(norm.body.stmts.iter().cloned());
        stmts.extend(norm.body.tail.iter().map(|t| Stmt::Expr((**t).clone())));
    } else {
        stmts.push(Stmt::Nest(Box::new(nest(
            norm.inner.clone(),
            norm.body.clone(),
            norm.span,
        ))));
    }
    let body = Block {
        stmts: jam(&stmts, &mut rewrites),
        tail: None,
    };
    for (new, user) in rewrites.iter().flat_map(|r| &r.renames) {
        g.cx.generated(new, user);
    }
    let main = nest(stepping_loops(g, &norm, &full, factors), body, norm.span);
    if staged.is_some() {
        // The loops no factor steps come back into the nest: each is a dimension of the
        // work-group.
        let mut main = super::collapse(main);
        main.stage = staged;
        return cont(g, main);
    }
    let mut out = cont(g, super::collapse(main));
    out.extend(norm.remainders(g, &full));
    out
}

/// Interleaves the copies of `stmts`, one rewrite per copy.
fn jam(stmts: &[Stmt], copies: &mut [Rewrite]) -> Vec<Stmt> {
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::For {
                var,
                slot,
                range,
                body,
                span,
            } if same_for_all(copies, range) => {
                let mut range = range.clone();
                copies[0].clone_scope().visit_range(&mut range);
                let body = jam_inside(copies, std::slice::from_ref(var), body);
                out.push(Stmt::For {
                    var: var.clone(),
                    slot: *slot,
                    range,
                    body,
                    span: *span,
                });
            }
            Stmt::Nest(n)
                if n.annots.is_empty()
                    && n.loops.iter().all(|l| same_for_all(copies, &l.range)) =>
            {
                let mut n = (**n).clone();
                let vars: Vec<syn::Ident> = n.loops.iter().map(|l| l.var.clone()).collect();
                for l in &mut n.loops {
                    copies[0].clone_scope().visit_range(&mut l.range);
                }
                n.body = jam_inside(copies, &vars, &n.body);
                out.push(Stmt::Nest(Box::new(n)));
            }
            _ => {
                for c in copies.iter_mut() {
                    let mut s2 = s.clone();
                    c.visit_stmt(&mut s2);
                    out.push(s2);
                }
            }
        }
    }
    out
}

/// The jammed body of a loop whose variables `vars` are shared by all copies.
fn jam_inside(copies: &mut [Rewrite], vars: &[syn::Ident], body: &Block) -> Block {
    for c in copies.iter_mut() {
        c.push_scope();
        vars.iter().for_each(|v| c.keep(v));
    }
    let mut stmts = body.stmts.clone();
    stmts.extend(body.tail.iter().map(|t| Stmt::Expr((**t).clone())));
    let jammed = jam(&stmts, copies);
    copies.iter_mut().for_each(Rewrite::pop_scope);
    Block {
        stmts: jammed,
        tail: None,
    }
}

/// Whether a loop range reads the same in every copy, so one loop can serve them all.
fn same_for_all(copies: &[Rewrite], r: &Range) -> bool {
    let texts: Vec<String> = copies
        .iter()
        .map(|c| {
            let mut r = r.clone();
            c.clone_scope().visit_range(&mut r);
            crate::base::ir::display::range(&r)
        })
        .collect();
    texts.windows(2).all(|w| w[0] == w[1])
}

/// The names `body` reads.
fn reads(body: &Block) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    crate::base::ir::staging::block_mentions(body, &mut out);
    out
}
