//! `stage(a, b, k: 16)`: local-memory staging, on the element loops of a `tilem` in a
//! `nuwork!` whose work-group sizes are the tile sizes. Each tile is then one work-group and
//! each element one work-item. The loop `k` in the body runs 16 iterations at a time: before
//! each group of 16, the work-group copies the block of `a` and `b` those iterations read
//! into local memory, every work-item a share (neighbours load neighbouring elements), between
//! two barriers; the body then reads the local copies. Iterations of `k` past the last full
//! group read as before.
//!
//! ```text
//! tilem(16, 16), stage(a, b, k: 16)     for k_t in full groups of 16 {
//! on  nfor!(k in n { s += a[(k, i)]       barrier; a_l[..] = a[(k_t.., i_tile..)]; b_l[..] = ..; barrier;
//!            * b[(k, j)]; })              for k_e in 0..16 { s += a_l[(k_e, i_e)] * b_l[(k_e, j_e)]; }
//!                                       }
//!                                       for k in the rest { s += a[(k, i)] * b[(k, j)]; }
//! ```
//! Only the nest is marked here (`Nest::stage`): the OpenCL C emitter writes the copies
//! (`emit::cl::stage`), the native emitter packs the same boxes into per-thread panels
//! (`emit::native::stage`), and every other pass sees the loops as they are, so staging
//! cannot change a result. This file checks what makes it legal: the
//! arrays are only read in the nest, every index of theirs in the loop `k` is a loop variable
//! plus a constant (or the same for the whole group), and nothing jumps past the barriers.

use super::build::Gen;
use crate::base::ctxt::Ctxt;
use crate::base::ir::staging::*;
use crate::base::ir::visit::{self, shared, Visit, VisitMut};
use crate::base::ir::*;
use std::collections::{HashMap, HashSet};

/// Marks `n`, the element loops of a `tilem`, as staged; errors say what is not legal.
pub fn stage(
    g: &mut Gen<'_>,
    mut n: Nest,
    args: &[Expr],
    span: proc_macro2::Span,
    cont: super::Cont<'_>,
) -> Vec<Stmt> {
    if let Some(s) = plan(g, &n, args, span) {
        n.stage = Some(Box::new(s));
    }
    // The rest of the chain: a `dmine` giving each work-item a block, or nothing.
    cont(g, n)
}

/// Plans every staged nest in `stmts`, once its whole chain has applied: the group's shape
/// and each staged array's box (which a later `dmine` or `vector` changes).
pub fn finish(cx: &Ctxt, stmts: &mut [Stmt]) {
    struct Finish<'c>(&'c Ctxt);
    impl VisitMut for Finish<'_> {
        fn visit_nest(&mut self, n: &mut Nest) {
            if n.stage.as_ref().is_some_and(|st| st.group.is_empty()) {
                plan_boxes(self.0, n);
            }
            visit::walk_nest(self, n);
        }
    }
    let mut f = Finish(cx);
    stmts.iter_mut().for_each(|s| f.visit_stmt(s));
}

/// The group's shape and the boxes of `n`'s staged arrays, into its `Stage`; a staging whose
/// reads do not share one shape is an error, and plans nothing.
fn plan_boxes(cx: &Ctxt, n: &mut Nest) {
    let group = group_dims(n);
    let (body, lanes) = stage_body(n);
    let Some(st) = n.stage.as_deref() else { return };
    let k = st.k.as_ref().map(ToString::to_string).unwrap_or_default();
    let kbody = staged_loop(body, &k).map_or(body, |f| f.3);
    let (elems, locals) = (element_vars(n), bound_names(&n.body));
    // The element values each dimension's work-items cover, from their block starts; the
    // lanes of a `vector(w)` add `w - 1` to the last.
    let lane_extra = lanes
        .and_then(|l| l.lanes.as_ref())
        .map_or(0, |l| l.width - 1);
    let spans: Vec<usize> = (group.iter().enumerate())
        .map(|(d, &(step, items))| {
            (items - 1) * step + 1 + lane_extra * usize::from(d + 1 == group.len())
        })
        .collect();
    let names = (k.as_str(), &elems, &locals);
    let boxes: Option<Vec<StageBox>> = (st.arrays.iter())
        .map(|a| footprint(cx, st.depth, &spans, a, kbody, names))
        .collect();
    if let (Some(boxes), Some(st)) = (boxes, n.stage.as_deref_mut()) {
        st.group = group;
        st.boxes = boxes;
    }
}

/// The box of `a`'s reads in the staged loop, or `None` after an error.
fn footprint(
    cx: &Ctxt,
    depth: usize,
    spans: &[usize],
    a: &syn::Ident,
    kbody: &Block,
    (k, elems, locals): Names<'_>,
) -> Option<StageBox> {
    let reads = reads_of(kbody, a);
    let mut follows: Vec<Option<(Follows, i64, i64, String)>> = Vec::new();
    for (index, span) in &reads {
        follows.resize(index.len(), None);
        for (p, x) in index.iter().enumerate() {
            let (f, off) = position(x, k, elems, locals)?;
            let text = match f {
                Follows::Uniform => crate::base::ir::display::expr(x),
                _ => String::new(),
            };
            match &mut follows[p] {
                None => follows[p] = Some((f, off, off, text)),
                Some((g, lo, hi, t)) if *g == f && *t == text => {
                    *lo = (*lo).min(off);
                    *hi = (*hi).max(off);
                }
                Some(_) => {
                    let msg = format!("annot!: stage({a}, ..): the reads of `{a}` follow different loops at index position {}; stage arrays whose reads share one shape, as `a[(k, i)]` and `a[(k, i + 1)]`", p + 1);
                    cx.error(*span, msg);
                    return None;
                }
            }
        }
    }
    let follows: Vec<(Follows, i64, i64, String)> = follows.into_iter().collect::<Option<_>>()?;
    let uniform = (reads[0].0.iter().zip(&follows))
        .map(|(x, f)| (f.0 == Follows::Uniform).then(|| x.clone()))
        .collect();
    let extents: Option<Vec<usize>> = (follows.iter())
        .map(|(f, lo, hi, _)| {
            let base = match f {
                Follows::K => depth,
                // The loop's values (a block start per work-item) span the tile.
                Follows::Elem(d) => spans[*d],
                Follows::Uniform => 1,
            };
            let spread = usize::try_from(hi.checked_sub(*lo)?).ok()?;
            base.checked_add(spread)
        })
        .collect();
    // A box is copied into local memory (two copies with `buffers: 2`): its size must be a
    // number a device could hold, not one that overflows.
    let size = (extents.iter().flatten()).try_fold(2usize, |n, &e| n.checked_mul(e));
    let Some(extents) = extents.filter(|_| size.is_some_and(|n| n <= u32::MAX as usize)) else {
        let msg = format!("annot!: stage({a}, ..): the reads of `{a}` lie too far apart to copy them as one block; stage arrays whose reads are a few rows or columns apart, as `a[(k, i)]` and `a[(k + 1, i)]`");
        cx.error(reads[0].1, msg);
        return None;
    };
    Some(StageBox {
        array: a.clone(),
        follows: follows.iter().map(|(f, lo, ..)| (*f, *lo)).collect(),
        extents,
        uniform,
    })
}

fn plan(g: &Gen<'_>, n: &Nest, args: &[Expr], span: proc_macro2::Span) -> Option<Stage> {
    let (arrays, k, depth, buffers) = parse_args(g, args)?;
    let tiles: Option<Vec<usize>> = n.loops.iter().map(|l| constant_end(&l.range)).collect();
    let Some(tiles) = tiles else {
        g.cx.error(span, "annot!: stage needs the constant tile sizes of a tilem right before it, as in `tilem(16, 16), stage(a, k: 16)`");
        return None;
    };
    let elems = element_vars(n);
    let locals = bound_names(&n.body);
    let kname = k.as_ref().map(ToString::to_string).unwrap_or_default();
    let body = match &k {
        Some(k) => {
            let Some((_, _, range, body)) = staged_loop(&n.body, &kname) else {
                g.cx.error(k.span(), format!("annot!: stage(.., {k}: ..) needs a loop over `{k}` directly in the tiled loops' body, as `nfor!({k} in 0..n {{ .. }})`"));
                return None;
            };
            check_range(g, range, k, &elems, &locals)?;
            check_jumps(g, &n.body, body)?;
            body
        }
        // One copy before the body: no barrier after it for a jump to skip.
        None => &n.body,
    };
    for a in &arrays {
        check_array(g, n, body, a, (&kname, &elems, &locals))?;
    }
    Some(Stage {
        arrays,
        k,
        depth,
        buffers,
        tiles,
        span,
        group: Vec::new(),
        boxes: Vec::new(),
    })
}

/// What `stage(..)`'s arguments say.
struct Args {
    arrays: Vec<syn::Ident>,
    /// The staged loop and its depth (`k: 16`).
    k: Option<(syn::Ident, usize)>,
    /// `buffers: 2`: copies of each box in local memory, and where the option was written.
    buffers: Option<(usize, proc_macro2::Span)>,
}

/// `stage(a, b, k: 16, buffers: 2)`: the arrays, the loop and its tile size (`stage(a)`:
/// none, 1), the local copies (1 unless said). `buffers` always names the option.
fn parse_args(
    g: &Gen<'_>,
    args: &[Expr],
) -> Option<(Vec<syn::Ident>, Option<syn::Ident>, usize, usize)> {
    let mut out = Args {
        arrays: Vec::new(),
        k: None,
        buffers: None,
    };
    for a in args {
        match &a.kind {
            ExprKind::Var(v) => out.arrays.push(v.clone()),
            ExprKind::Tuple(p) if p.len() == 2 => pair(g, &mut out, a, (&p[0], &p[1])),
            _ => g.cx.error(a.span, "annot!: stage takes the arrays to stage and the loop to tile, as in `stage(a, b, k: 16)`"),
        }
    }
    if out.arrays.is_empty() {
        let span = args
            .first()
            .map_or_else(proc_macro2::Span::call_site, |a| a.span);
        g.cx.error(
            span,
            "annot!: stage needs at least one array to stage, as in `stage(a, k: 16)`",
        );
        return None;
    }
    let buffers = match (out.buffers, &out.k) {
        (Some((_, span)), None) => {
            g.cx.error(span, "annot!: stage(.., buffers: 2) double-buffers the copies of a staged loop: name the loop first, as in `stage(a, b, k: 8, buffers: 2)`");
            return None;
        }
        (b, _) => b.map_or(1, |b| b.0),
    };
    let (k, depth) = out.k.map_or((None, 1), |(k, d)| (Some(k), d));
    Some((out.arrays, k, depth, buffers))
}

/// One `name: value` argument: the staged loop, or after it `buffers: 1` or `buffers: 2`.
fn pair(g: &Gen<'_>, out: &mut Args, a: &Expr, (name, value): (&Expr, &Expr)) {
    let (ExprKind::Var(v), Some(d)) = (&name.kind, literal(value)) else {
        g.cx.error(a.span, "annot!: stage takes one `loop: depth` with a constant depth, as in `stage(a, b, k: 16)`");
        return;
    };
    match () {
        _ if v == "buffers" && out.buffers.is_none() => match d {
            1 | 2 => out.buffers = Some((d as usize, a.span)),
            _ => g.cx.error(value.span, "annot!: stage(.., buffers: n) takes 1 or 2: with 2, the next slice is copied while this one is read, one barrier a slice"),
        },
        _ if d > 0 && out.k.is_none() => out.k = Some((v.clone(), d as usize)),
        _ => g.cx.error(a.span, "annot!: stage takes one `loop: depth` with a constant depth, and then `buffers: 1` or `buffers: 2`, as in `stage(a, b, k: 8, buffers: 2)`"),
    }
}

/// The end of a `0..T` element loop, `T` a constant.
fn constant_end(r: &Range) -> Option<usize> {
    let mut e = &r.end;
    while let ExprKind::Cast { expr, .. } | ExprKind::Paren(expr) = &e.kind {
        e = expr;
    }
    literal(e).and_then(|v| usize::try_from(v).ok())
}

/// The staged loop runs the same iterations in every work-item of the group, since they
/// meet at its barriers.
fn check_range(
    g: &Gen<'_>,
    r: &Range,
    k: &syn::Ident,
    elems: &HashMap<String, (usize, i64)>,
    locals: &HashSet<String>,
) -> Option<()> {
    if r.step.is_some() || r.rev {
        let msg = format!("annot!: stage: the loop over `{k}` must step by one, forwards, so that each group of its iterations reads one block; write the step inside the body");
        g.cx.error(r.span, msg);
        return None;
    }
    let parts = [Some(&r.start), Some(&r.end), r.step.as_ref()];
    if parts
        .into_iter()
        .flatten()
        .all(|e| uniform(e, "", elems, locals))
    {
        return Some(());
    }
    let msg = format!("annot!: stage: the range of `{k}` must be the same for every work-item of the group, since they meet at barriers in it; compute it from captured scalars only (no array reads)");
    g.cx.error(r.span, msg);
    None
}

/// No `break`, `continue` or `return` may skip the barriers: none at the body's own level,
/// and no `break` or `return` in the staged loop.
fn check_jumps(g: &Gen<'_>, body: &Block, staged: &Block) -> Option<()> {
    let outer = super::jumps(body);
    // A `continue` in the staged loop only ends that iteration, inside the barriers.
    let inner = super::jumps(staged)
        .into_iter()
        .filter(|j| j.0 != "continue");
    if let Some((what, span)) = outer.into_iter().chain(inner).next() {
        let msg = format!("annot!: stage: `{what}` here would skip the barriers the work-group meets at; the staged loop and the body around it must run to the end");
        g.cx.error(span, msg);
        return None;
    }
    Some(())
}

type Names<'a> = (
    &'a str,
    &'a HashMap<String, (usize, i64)>,
    &'a HashSet<String>,
);

/// A staged array is only read in the nest, and in the staged loop at indices that are a
/// loop variable plus a constant (or free of the nest's names).
fn check_array(
    g: &Gen<'_>,
    n: &Nest,
    staged: &Block,
    a: &syn::Ident,
    names: Names<'_>,
) -> Option<()> {
    if let Some(span) = written(&n.body, a) {
        let msg = format!("annot!: stage({a}, ..): `{a}` is written in the nest, so a copy in local memory could go stale; stage arrays the nest only reads");
        g.cx.error(span, msg);
        return None;
    }
    let reads = reads_of(staged, a);
    if reads.is_empty() {
        let msg = format!("annot!: stage({a}, ..): the staged loop does not read `{a}`");
        g.cx.error(a.span(), msg);
        return None;
    }
    for (index, span) in &reads {
        for x in index {
            let text = || crate::base::ir::display::expr(x);
            match position(x, names.0, names.1, names.2) {
                None => {
                    let msg = format!("annot!: stage({a}, ..): the index `{}` is not a loop variable plus a constant (as `k`, `i + 1`), nor the same for the whole work-group, so its tile cannot be known", text());
                    g.cx.error(*span, msg);
                    return None;
                }
                // The copy computes the box's origin before the loop reads anything.
                Some((Follows::Uniform, _)) if !cannot_fault(x) => {
                    let msg = format!("annot!: stage({a}, ..): the index `{}` could fault (a division, a shift, a read or a call), and the copy computes it before the loop would; compute it before the `nuwork!` and capture it, or leave `{a}` unstaged", text());
                    g.cx.error(*span, msg);
                    return None;
                }
                Some(_) => {}
            }
        }
    }
    Some(())
}

/// Where `b` stores to `a` (an assignment or an atomic), if it does.
fn written(b: &Block, a: &syn::Ident) -> Option<proc_macro2::Span> {
    struct W<'a>(&'a syn::Ident, Option<proc_macro2::Span>);
    impl Visit for W<'_> {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let Stmt::Assign {
                place: Place::Index { base, .. },
                span,
                ..
            } = s
            {
                if base == self.0 {
                    self.1.get_or_insert(*span);
                }
            }
            shared::walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &Expr) {
            if let ExprKind::Method { recv, method, .. } = &e.kind {
                let atomic = method.to_string().starts_with("atomic_");
                if atomic && matches!(&recv.kind, ExprKind::Var(v) if v == self.0) {
                    self.1.get_or_insert(e.span);
                }
            }
            shared::walk_expr(self, e);
        }
    }
    let mut w = W(a, None);
    w.visit_block(b);
    w.1
}
