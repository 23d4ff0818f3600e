//! Annotations: `annot!(chain; nfor!(..))` rewrites a loop nest at compile time, NUDA's way.
//! The chain applies left to right: the first annotation transforms the nest, every later one
//! transforms the *main part* of the previous result (the loops doing the bulk of the work, not
//! remainders or peeled loops). Parameters refer to loop dimensions counted from the outermost,
//! starting at 1; fewer parameters than dimensions apply to the outermost ones.
//!
//! One file per transformation; each documents its main part with a before/after loop.
//! Annotated loops are first rewritten over `usize` counters from 0 (`counter.rs`), which keeps
//! every transformation exact for any bounds, steps and integer types: each iteration runs
//! exactly once, including empty ranges and trip counts no factor divides.
//!
//! Stage 4 of the pipeline in `lib.rs` (annotations, IR to IR).

mod bindings;
mod build;
mod counter;
mod dmine;
mod hoist;
mod inline;
mod peel;
mod permut;
mod rename;
pub(crate) mod stage;
#[cfg(test)]
mod test;
mod tile;
mod tilem;
mod unroll;
mod vector;

use crate::base::ctxt::Ctxt;
use crate::base::ir::visit::{shared, Visit, VisitMut};
use crate::base::ir::*;
use build::Gen;

/// The rest of the chain, applied to a main part.
pub type Cont<'c> = &'c mut dyn FnMut(&mut Gen<'_>, Nest) -> Vec<Stmt>;

/// Applies the annotation chain of `nest`, and of every annotated nest inside it. A nest of
/// `nuwork!` itself has no room for a prelude (`hoist.rs`): give `prelude` false.
pub fn apply(cx: &Ctxt, slots: &mut usize, mut nest: Nest, prelude: bool) -> Vec<Stmt> {
    expand_block(cx, slots, &mut nest.body);
    let chain = std::mem::take(&mut nest.annots);
    if chain.is_empty() {
        return vec![Stmt::Nest(Box::new(nest))];
    }
    let span = nest.span;
    if !stage_placed(cx, &chain) {
        return vec![Stmt::Nest(Box::new(nest))];
    }
    let mut g = Gen::new(cx, slots, &nest, prelude);
    let mut out = chain_apply(&mut g, nest, &chain, 1);
    stage::finish(cx, &mut out);
    match g.prelude.take() {
        // In a block of its own, so its names end with the nest.
        Some(mut stmts) if !stmts.is_empty() => {
            stmts.extend(out);
            let block = Block { stmts, tail: None };
            vec![Stmt::Expr(Expr::new(ExprKind::Block(block), span))]
        }
        _ => out,
    }
}

/// `stage` works on the work-groups `tilem` makes, so it follows a `tilem` and ends the chain.
fn stage_placed(cx: &Ctxt, chain: &[Annot]) -> bool {
    for (i, a) in chain.iter().enumerate() {
        if a.kind != AnnotKind::Stage {
            continue;
        }
        if i == 0 || chain[i - 1].kind != AnnotKind::Tilem {
            cx.error(a.span, "annot!: stage copies the tiles of a tilem, so it comes right after one, as in `tilem(16, 16), stage(a, k: 16)`");
            return false;
        }
        // A dmine after it gives each work-item a block of the tile (register blocking), and
        // a vector makes the block's last dimension lanes.
        let rest = &chain[i + 1..];
        let is = |a: &Annot, k: AnnotKind| a.kind == k;
        let bad = match rest {
            [] => None,
            [d] if is(d, AnnotKind::Dmine) || is(d, AnnotKind::Vector) => None,
            [d, v] if is(d, AnnotKind::Dmine) && is(v, AnnotKind::Vector) => None,
            [d, next, ..] if is(d, AnnotKind::Dmine) => Some(next),
            [next, ..] => Some(next),
        };
        if let Some(next) = bad {
            cx.error(next.span, "annot!: after stage only a dmine, a vector, or a dmine then a vector may follow, as in `tilem(64, 64), stage(a, b, k: 16), dmine(4, 1), vector(4)`");
            return false;
        }
    }
    true
}

/// Copies of a body one chain may make: beyond this, kernels stop fitting in registers and
/// the compilers (rustc's type check of the witness included) slow to a crawl.
const MAX_COPIES: u128 = 256;

/// Replaces every annotated nest inside `block` by its transformation.
pub fn expand_block(cx: &Ctxt, slots: &mut usize, block: &mut Block) {
    Expand { cx, slots }.visit_block(block);
}

struct Expand<'a, 'b> {
    cx: &'a Ctxt,
    slots: &'b mut usize,
}

impl VisitMut for Expand<'_, '_> {
    fn visit_block(&mut self, b: &mut Block) {
        let mut out = Vec::with_capacity(b.stmts.len());
        for mut s in std::mem::take(&mut b.stmts) {
            match s {
                Stmt::Nest(n) => out.extend(apply(self.cx, self.slots, *n, true)),
                _ => {
                    self.visit_stmt(&mut s);
                    out.push(s);
                }
            }
        }
        b.stmts = out;
        if let Some(t) = &mut b.tail {
            self.visit_expr(t);
        }
    }
}

fn chain_apply(g: &mut Gen<'_>, nest: Nest, chain: &[Annot], copies: u128) -> Vec<Stmt> {
    let Some((a, rest)) = chain.split_first() else {
        return vec![Stmt::Nest(Box::new(nest))];
    };
    let Some(params) = check(g, a, &nest, rest) else {
        return vec![Stmt::Nest(Box::new(nest))];
    };
    let copies = match a.kind {
        AnnotKind::Unroll | AnnotKind::Dmine => copies.saturating_mul(params.iter().product()),
        _ => copies,
    };
    if copies > MAX_COPIES {
        let msg = format!("annot!: this chain copies the loop body {copies} times, more than {MAX_COPIES}; use smaller unroll or dmine factors");
        g.cx.error(a.span, msg);
        return vec![Stmt::Nest(Box::new(nest))];
    }
    let mut cont = |g: &mut Gen<'_>, main: Nest| chain_apply(g, main, rest, copies);
    match a.kind {
        AnnotKind::Tile => tile::tile(g, nest, &a.args, &mut cont),
        AnnotKind::Tilem => tilem::tilem(g, nest, &a.args, &mut cont),
        AnnotKind::Unroll => unroll::unroll(g, nest, &params, &mut cont),
        AnnotKind::Dmine => dmine::dmine(g, nest, &params, &mut cont),
        AnnotKind::Peel => peel::peel(g, nest, params[0], params[1], &mut cont),
        AnnotKind::Inline => inline::inline(g, nest),
        AnnotKind::Vector if nest.stage.is_some() => vector::staged(g, nest, params[0], a.span),
        AnnotKind::Vector => vector::vector(g, nest, params[0], a.span),
        AnnotKind::Stage => stage::stage(g, nest, &a.args, a.span, &mut cont),
        AnnotKind::Permut => {
            let order: Vec<usize> = params.iter().map(|&p| p as usize).collect();
            permut::permut(g, nest, &order, &mut cont)
        }
    }
}

/// Checks an annotation against the nest it applies to; its constant parameters if valid.
fn check(g: &Gen<'_>, a: &Annot, nest: &Nest, rest: &[Annot]) -> Option<Vec<u128>> {
    let name = a.kind.name();
    let loops = nest.loops.len();
    let arity_ok = match a.kind {
        AnnotKind::Inline => a.args.is_empty(),
        AnnotKind::Peel => a.args.len() == 2,
        AnnotKind::Vector => a.args.len() == 1,
        AnnotKind::Stage => !a.args.is_empty(),
        _ => (1..=loops.max(1)).contains(&a.args.len()),
    };
    if a.args.len() > loops && !matches!(a.kind, AnnotKind::Peel | AnnotKind::Stage) {
        g.cx.error(
            a.span,
            format!(
                "annot!: {name} has {} parameters but the nest it applies to has {loops} loops",
                a.args.len()
            ),
        );
        return None;
    }
    if !arity_ok {
        let want = match a.kind {
            AnnotKind::Inline => "no parameters".to_string(),
            AnnotKind::Peel => "two parameters, `peel(first, last)`".to_string(),
            AnnotKind::Vector => "one parameter, the vector width, as in `vector(4)`".to_string(),
            AnnotKind::Stage => {
                "the arrays and the loop to tile, as in `stage(a, b, k: 16)`".to_string()
            }
            _ => format!("1 to {loops} parameters, one per loop from the outermost"),
        };
        g.cx.error(a.span, format!("annot!: {name} takes {want}"));
        return None;
    }
    if let (AnnotKind::Inline | AnnotKind::Vector, Some(next)) = (a.kind, rest.first()) {
        let msg = match a.kind {
            AnnotKind::Inline => "annot!: inline unrolls its loop completely, so nothing follows it in the chain",
            _ => "annot!: vector turns the loop body into vector code, so nothing follows it in the chain; put it last",
        };
        g.cx.error(next.span, msg);
        return None;
    }
    check_body(g, a.kind, &nest.body)?;
    params(g, a)
}

/// Constant parameters where the annotation needs them.
fn params(g: &Gen<'_>, a: &Annot) -> Option<Vec<u128>> {
    let name = a.kind.name();
    let needs_constants = matches!(
        a.kind,
        AnnotKind::Unroll
            | AnnotKind::Dmine
            | AnnotKind::Peel
            | AnnotKind::Permut
            | AnnotKind::Vector
    );
    if !needs_constants {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for e in &a.args {
        match constant(e) {
            Some(v) if v > 0 || (a.kind == AnnotKind::Peel) => out.push(v),
            Some(_) => g.cx.error(
                e.span,
                format!("annot!: the factors of {name} are at least 1"),
            ),
            None if is_tune(e) => g.cx.error(
                e.span,
                format!("annot!: tune(..) chooses among values only in the annotations of the nest a nuwork! maps, as in `nuwork!(64; annot!({name}(tune(2, 4)); nfor!(..)))`"),
            ),
            None => g.cx.error(
                e.span,
                format!(
                    "annot!: {name} needs a constant here (an integer literal), found `{}`",
                    display::expr(e)
                ),
            ),
        }
    }
    if out.len() != a.args.len() {
        return None;
    }
    if a.kind == AnnotKind::Permut {
        check_permutation(g, a, &out)?;
    }
    if a.kind == AnnotKind::Vector && !vector::WIDTHS.contains(&out[0]) {
        let msg = format!("annot!: vector({}) is not a vector width; OpenCL C has vectors of 2, 4, 8 and 16 lanes", out[0]);
        g.cx.error(a.args[0].span, msg);
        return None;
    }
    Some(out)
}

fn check_permutation(g: &Gen<'_>, a: &Annot, order: &[u128]) -> Option<()> {
    let mut sorted = order.to_vec();
    sorted.sort_unstable();
    if sorted.iter().enumerate().all(|(i, &p)| p == i as u128 + 1) {
        return Some(());
    }
    let list: Vec<String> = order.iter().map(u128::to_string).collect();
    g.cx.error(
        a.span,
        format!(
            "annot!: permut({}) is not a permutation of 1..={}; give each loop position once",
            list.join(", "),
            order.len()
        ),
    );
    None
}

/// Whether `e` is a call of `tune(..)`.
fn is_tune(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { func, .. } if func.is_ident("tune"))
}

/// An integer literal, possibly parenthesised.
fn constant(e: &Expr) -> Option<u128> {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, .. }) => text.parse().ok(),
        ExprKind::Paren(x) => constant(x),
        _ => None,
    }
}

/// Copying or splitting a body is exact only if it does not jump out of its iteration.
fn check_body(g: &Gen<'_>, kind: AnnotKind, body: &Block) -> Option<()> {
    let copies = matches!(
        kind,
        AnnotKind::Unroll | AnnotKind::Dmine | AnnotKind::Inline | AnnotKind::Vector
    );
    let found = jumps(body);
    let bad = found.iter().find(|(what, _)| *what != "continue" || copies);
    if let Some((what, span)) = bad {
        g.cx.error(
            *span,
            format!(
                "annot!: {} cannot transform a body that uses `{what}` outside its own loops",
                kind.name()
            ),
        );
        return None;
    }
    Some(())
}

/// The jumps out of an iteration of `b`: `break` and `continue` outside its own loops, and
/// every `return`.
pub(super) fn jumps(b: &Block) -> Vec<(&'static str, proc_macro2::Span)> {
    let mut j = Jumps {
        depth: 0,
        found: Vec::new(),
    };
    j.visit_block(b);
    j.found
}

struct Jumps {
    depth: usize,
    found: Vec<(&'static str, proc_macro2::Span)>,
}

impl Visit for Jumps {
    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Break(sp) if self.depth == 0 => self.found.push(("break", *sp)),
            Stmt::Continue(sp) if self.depth == 0 => self.found.push(("continue", *sp)),
            Stmt::Return(_, sp) => self.found.push(("return", *sp)),
            Stmt::While { .. } | Stmt::Loop { .. } | Stmt::For { .. } | Stmt::Nest(_) => {
                self.depth += 1;
                shared::walk_stmt(self, s);
                self.depth -= 1;
            }
            _ => shared::walk_stmt(self, s),
        }
    }
}

/// A nest whose body is exactly one plain nest, merged into one.
pub fn collapse(mut n: Nest) -> Nest {
    while n.body.tail.is_none() && n.body.stmts.len() == 1 {
        let Some(Stmt::Nest(inner)) = n.body.stmts.first() else {
            break;
        };
        // A `vector(w)` nest stays one loop: its lanes run as one vector iteration.
        let marked = |n: &Nest| n.lanes.is_some() || n.stage.is_some();
        if !inner.annots.is_empty() || marked(inner) || marked(&n) {
            break;
        }
        let Some(Stmt::Nest(inner)) = n.body.stmts.pop() else {
            break;
        };
        n.loops.extend(inner.loops);
        n.body = inner.body;
    }
    n
}

/// Every variable a range reads.
pub fn collect_vars(r: &Range, out: &mut Vec<syn::Ident>) {
    struct V<'o>(&'o mut Vec<syn::Ident>);
    impl Visit for V<'_> {
        fn visit_expr(&mut self, e: &Expr) {
            if let ExprKind::Var(v) = &e.kind {
                self.0.push(v.clone());
            }
            shared::walk_expr(self, e);
        }
    }
    V(out).visit_range(r);
}
