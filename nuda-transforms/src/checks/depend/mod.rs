//! Loop-carried dependences in a `nuwork!` nest (a check on the IR, before annotations; see
//! `README.md` beside this file). The iterations of a `nuwork!` run in parallel, so an array
//! element that one iteration writes and another reads or writes gives a result that depends
//! on their order, unlike sequential Rust. Such a nest is refused at compile time, as OpenACC
//! compilers refuse to parallelise one, unless an affine dependence test proves that no two
//! iterations touch the same element; `#[independent]` opts out where no affine test can.
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

mod affine;
mod alias;
mod message;
mod solve;
#[cfg(test)]
mod test;
mod walk;

pub use alias::alias_pairs;

use crate::base::ctxt::Ctxt;
use crate::base::ir::visit::Visit;
use crate::base::ir::*;
use affine::{Affine, Atom};
use walk::{Access, Bound, Kind, Walk};

/// Refuses `nest` where two iterations may touch one element and one of them writes it. The
/// first `mapped` loops of the nest the annotation chain produces run in parallel. Nests
/// inside the body whose annotations reorder their iterations are checked the same way,
/// their own loops taking the place of the mapped ones. The scan variables whose slots the
/// check took as each iteration's own (`out[slot] = v; slot += 1;`): their type must be wide
/// enough not to wrap, which the witness checks.
pub fn check(cx: &Ctxt, nest: &Nest, mapped: usize) -> Vec<String> {
    let (found, system) = accesses(nest, mapped);
    report(cx, &found, &system, "nuwork!: iterations run in parallel");
    for inner in reordered_nests(&nest.body) {
        let (inner_found, system) = accesses(inner, 0);
        let context = "annot!: the annotations of this inner nest run its iterations out of order";
        report(cx, &inner_found, &system, context);
    }
    let mut slots: Vec<String> = found.iter().filter_map(|a| a.slot.clone()).collect();
    slots.retain(|s| !s.starts_with("__nuda_len_"));
    slots.sort();
    slots.dedup();
    slots
}

/// The nests inside `body` whose annotations may change the order of their iterations
/// within one work-item.
fn reordered_nests(body: &Block) -> Vec<&Nest> {
    let mut out: Vec<&Nest> = Vec::new();
    for_each_nest(body, &mut |n| out.push(n));
    out.retain(|n| !n.annots.iter().all(keeps_order));
    out
}

/// Whether an annotation runs a nest's iterations in their order: `inline` and `peel`;
/// `unroll`, `tile` and `tilem` on one loop (the copies, tiles and remainders follow one
/// another; on two or more loops the inner ones restart per tile); `permut` as written.
/// `dmine` interleaves its copies and `vector` runs lanes side by side.
fn keeps_order(a: &Annot) -> bool {
    match a.kind {
        AnnotKind::Inline | AnnotKind::Peel => true,
        AnnotKind::Unroll | AnnotKind::Tile | AnnotKind::Tilem => a.args.len() == 1,
        AnnotKind::Permut => a
            .args
            .iter()
            .enumerate()
            .all(|(k, e)| position(e) == Some(k + 1)),
        _ => false,
    }
}

/// Calls `f` on every nest inside `b`, outer ones first.
fn for_each_nest<'a>(b: &'a Block, f: &mut dyn FnMut(&'a Nest)) {
    let exprs = b.stmts.iter().filter_map(|s| match s {
        Stmt::Expr(e) | Stmt::Return(Some(e), _) => Some(e),
        Stmt::Let(l) => l.init.as_ref(),
        Stmt::Assign { value, .. } => Some(value),
        _ => None,
    });
    exprs
        .chain(b.tail.as_deref())
        .for_each(|e| nests_in_expr(e, f));
    for s in &b.stmts {
        match s {
            Stmt::Nest(n) => {
                f(n);
                for_each_nest(&n.body, f);
            }
            Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Loop { body, .. } => {
                for_each_nest(body, f)
            }
            _ => {}
        }
    }
}

/// The nests in the blocks of an expression (`if` branches, blocks).
fn nests_in_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Nest)) {
    match &e.kind {
        ExprKind::Block(b) => for_each_nest(b, f),
        ExprKind::If { then, els, .. } => {
            for_each_nest(then, f);
            if let Some(x) = els {
                nests_in_expr(x, f);
            }
        }
        _ => e.operands().into_iter().for_each(|x| nests_in_expr(x, f)),
    }
}

/// Every access of the nest's body, and the unknowns its iterations differ in.
fn accesses(nest: &Nest, mapped: usize) -> (Vec<Access>, System) {
    let parallel = parallel_loops(nest, mapped);
    let mut walk = Walk::new(&nest.body, &nest.loops);
    let mut par_bounds = Vec::new();
    let mut par_atoms = Vec::new();
    for (l, par) in nest.loops.iter().zip(parallel) {
        let atom = walk.bind_loop(&l.var, &l.range);
        if par {
            par_bounds.append(&mut walk.serial);
            par_atoms.push(atom);
        }
    }
    walk.visit_block(&nest.body);
    let system = System {
        par_atoms,
        par_bounds,
    };
    (walk.accesses, system)
}

/// Which loops of the nest (as written) run in parallel. Without annotations, the first
/// `mapped`. A chain of `permut`s only reorders them: the loops it moves to the first
/// `mapped` positions are parallel, and the others stay serial if they keep their order
/// (each work-item then runs its iterations in the order sequential Rust would). Any other
/// chain may redistribute every loop, so every loop counts as parallel.
fn parallel_loops(nest: &Nest, mapped: usize) -> Vec<bool> {
    let n = nest.loops.len();
    let Some(order) = permutation(nest) else {
        return vec![true; n];
    };
    let k = mapped.min(n);
    let mut par = vec![false; n];
    order[..k].iter().for_each(|&o| par[o] = true);
    match order[k..].windows(2).all(|w| w[0] < w[1]) {
        true => par,
        false => vec![true; n],
    }
}

/// The nest's loop at each position after its annotation chain, if the chain only permutes.
fn permutation(nest: &Nest) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..nest.loops.len()).collect();
    for a in &nest.annots {
        if a.kind != AnnotKind::Permut || a.args.len() > order.len() {
            return None;
        }
        let p: Option<Vec<usize>> = a.args.iter().map(position).collect();
        let p = p?;
        let old = order.clone();
        for (d, q) in p.into_iter().enumerate() {
            order[d] = *old.get(q.checked_sub(1)?)?;
        }
    }
    let mut sorted = order.clone();
    sorted.sort_unstable();
    sorted.dedup();
    (sorted.len() == order.len()).then_some(order)
}

/// A loop position written as an integer literal.
fn position(e: &Expr) -> Option<usize> {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, .. }) => text.replace('_', "").parse().ok(),
        ExprKind::Paren(x) => position(x),
        _ => None,
    }
}

/// The unknowns two iterations differ in, and the bounds of each.
struct System {
    par_atoms: Vec<String>,
    par_bounds: Vec<Bound>,
}

/// Each pair of accesses that two iterations may make to one element, one of them a write,
/// as an error at the later one (the read of a read and a write); one error per access.
fn report(cx: &Ctxt, accesses: &[Access], sys: &System, context: &str) {
    let mut reported = Vec::new();
    for (i, x) in accesses.iter().enumerate() {
        for y in &accesses[i..] {
            if !conflicting(x, y) || !dependent(sys, x, y) {
                continue;
            }
            // The error goes to the plainer access: a read before a write, a write before
            // an atomic; else to the later one; never to a push's store, which the user did
            // not write.
            let (first, at) = match (rank(x) < rank(y) || y.is_push()) && !x.is_push() {
                true => (y, x),
                false => (x, y),
            };
            // An update's write is named by the error at its read already.
            let key = |a: &Access| (a.array.clone(), a.span.start(), a.text.clone());
            if !reported.contains(&key(at)) {
                reported.push(key(at));
                if first.text == at.text {
                    reported.push(key(first));
                }
                let text = message::of(first, at);
                let text = text.replacen("nuwork!: iterations run in parallel", context, 1);
                cx.error(at.span, text);
            }
        }
    }
}

fn rank(a: &Access) -> u8 {
    match a.kind {
        Kind::Read => 0,
        Kind::Write => 1,
        Kind::Atomic(_) => 2,
    }
}

/// Whether two accesses to one array could race: one writes, they are not both atomics
/// (atomics combine), and not both stores at slots of one counter (each store has a slot
/// of its own, as a push's has). An image read beside a write of it is capture analysis's
/// error (a kernel cannot do both), not a race.
fn conflicting(x: &Access, y: &Access) -> bool {
    let image_rw = x.image && y.image && x.kind != y.kind;
    x.array == y.array && conflicts(x, y) && !image_rw
}

/// As [`conflicting`], whatever the arrays' names.
fn conflicts(x: &Access, y: &Access) -> bool {
    let atomic = |a: &Access| matches!(a.kind, Kind::Atomic(_));
    x.index.len() == y.index.len()
        && (x.writes() || y.writes())
        && !(atomic(x) && atomic(y))
        && !(x.slot.is_some() && x.slot == y.slot)
}

/// A flattened index, the same in both accesses: `i * m + j + c` with `0 <= j <= m - 1` by
/// `j`'s loop (`bounds`, iteration 0's; the other iteration's are the same loops'). Two
/// iterations meet there only with the same `i` and the same `j`: `(i0 - i1) * m = j1 - j0`,
/// and `|j1 - j0| < m`. The equations `i0 = i1` and `j0 = j1` for it, else `None`. (It
/// assumes `i * m + j` does not pass `usize::MAX`: that takes more than 2^64 iterations of
/// the two loops together.)
fn rows(w: &Affine, r: &Affine, bounds: &[Bound]) -> Option<[Affine; 2]> {
    if w != r || w.terms.len() != 2 {
        return None;
    }
    let mut row = None;
    let mut col = None;
    for (atom, c) in &w.terms {
        match (atom, c) {
            (Atom::Prod(v, m, 0), 1) => row = Some((v.clone(), m.clone())),
            (Atom::Var(j, 0), 1) => col = Some(j.clone()),
            _ => return None,
        }
    }
    let ((v, m), j) = (row?, col?);
    let var = |n: &str, side| Affine::atom(Atom::Var(n.to_string(), side));
    let sym = Affine::atom(Atom::Sym(m));
    // j >= -c with c <= 0, and m - j + c >= 0 with c <= -1.
    let above = |f: &Affine, lo: &Affine, most: i128| {
        let rest = f.add_scaled(lo, -1);
        rest.terms.is_empty() && rest.constant <= most
    };
    let low = bounds
        .iter()
        .any(|b| !b.equal && above(&b.form, &var(&j, 0), 0));
    let top = sym.add_scaled(&var(&j, 0), -1);
    let high = bounds.iter().any(|b| !b.equal && above(&b.form, &top, -1));
    (low && high && v != j).then(|| {
        [
            var(&v, 0).add_scaled(&var(&v, 1), -1),
            var(&j, 0).add_scaled(&var(&j, 1), -1),
        ]
    })
}

/// Whether iteration 0's access `w` and a different iteration 1's access `r` may touch one
/// element. The question is symmetric in the two.
fn dependent(sys: &System, w: &Access, r: &Access) -> bool {
    // The same index as written, with the same forms: its casts of a shifted loop variable
    // wrap alike in both iterations (`affine.rs`, `shifted_cast`).
    let same = w.text == r.text && w.exact == r.exact;
    let (wi, ri) = match same {
        true => (&w.exact, &r.exact),
        false => (&w.index, &r.index),
    };
    let mine: Vec<Bound> = sys.par_bounds.iter().chain(&w.bounds).cloned().collect();
    let mut eqs: Vec<Affine> = Vec::new();
    for (a, b) in wi.iter().zip(ri) {
        match rows(a, b, &mine) {
            Some(split) => eqs.extend(split),
            None => eqs.push(a.add_scaled(&b.other_side(), -1)),
        }
    }
    let mut bounds: Vec<Bound> = sys.par_bounds.clone();
    bounds.extend(sys.par_bounds.iter().map(Bound::other_side));
    bounds.extend(w.bounds.iter().cloned());
    bounds.extend(r.bounds.iter().map(Bound::other_side));
    let mut ineqs = Vec::new();
    for b in bounds {
        match b.equal {
            true => eqs.push(b.form),
            false => ineqs.push(b.form),
        }
    }
    // Different iterations: some parallel variable is smaller in one of them.
    sys.par_atoms.iter().any(|p| {
        let (mine, theirs) = (
            Affine::atom(Atom::Var(p.clone(), 0)),
            Affine::atom(Atom::Var(p.clone(), 1)),
        );
        let order = |lo: &Affine, hi: &Affine| {
            let mut all = ineqs.clone();
            all.push(hi.add_scaled(lo, -1).add_scaled(&Affine::constant(1), -1));
            solve::feasible(eqs.clone(), all)
        };
        order(&mine, &theirs) || order(&theirs, &mine)
    })
}
