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
//! (`emit::cl::stage`), and every other pass, the native engine included, sees the loops as
//! they are, so staging cannot change a result. This file checks what makes it legal: the
//! arrays are only read in the nest, every index of theirs in the loop `k` is a loop variable
//! plus a constant (or the same for the whole group), and nothing jumps past the barriers.

use super::build::Gen;
use crate::ir::visit::{self, VisitMut};
use crate::ir::*;
use std::collections::{HashMap, HashSet};

/// What an index position of a staged read follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follows {
    /// The staged loop's variable.
    K,
    /// The element variable of work-group dimension `d`.
    Elem(usize),
    /// Nothing in the loops: the same for the whole group.
    Uniform,
}

/// One index position of a staged read: what it follows, plus a constant.
pub type Position = (Follows, i64);

/// The locals that step by one with an element loop, by that loop's dimension and their
/// offset from it: `i` from `let i = start + (i_tile + i_e)` is `(0, 0)`; after a `dmine`,
/// `i_1_0` from `let i_e_1_0 = 0 + (i_e_t + 1); let i_1_0 = start + (i_tile + i_e_1_0)` is
/// `(0, 1)`. The element loops' own variables are `(d, 0)`.
pub fn element_vars(n: &Nest) -> HashMap<String, (usize, i64)> {
    let mut out: HashMap<String, (usize, i64)> = (n.loops.iter().enumerate())
        .map(|(d, l)| (l.var.to_string(), (d, 0)))
        .collect();
    let loops: HashSet<String> = out.keys().cloned().collect();
    for s in &stage_body(n).0.stmts {
        let Stmt::Let(Let {
            pat: Pat::Ident { name, .. },
            init: Some(init),
            ..
        }) = s
        else {
            continue;
        };
        if let ExprKind::Offset {
            count, step: None, ..
        } = &init.kind
        {
            if let Some(f) = follow(count, &out) {
                out.insert(name.to_string(), f);
            }
        }
    }
    out.retain(|k, _| !loops.contains(k));
    out
}

/// The block a staged nest's statements are in, and the `vector(w)` nest around it if a
/// `vector` followed `stage`: its lanes are the last element loop's values (lane 0's in the
/// C, where the lane counter is 0), so locals stepping with them follow that loop.
pub fn stage_body(n: &Nest) -> (&Block, Option<&Nest>) {
    match n.body.stmts.as_slice() {
        [Stmt::Nest(l)] if l.lanes.is_some() && n.body.tail.is_none() => (&l.body, Some(&**l)),
        _ => (&n.body, None),
    }
}

/// What a counter expression steps with: a followed variable, plus a literal or a value
/// from outside the nest (a tile's start).
fn follow(e: &Expr, vars: &HashMap<String, (usize, i64)>) -> Option<(usize, i64)> {
    match &e.kind {
        ExprKind::Var(v) => vars.get(&v.to_string()).copied(),
        ExprKind::Paren(x) => follow(x, vars),
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => match (follow(lhs, vars), follow(rhs, vars)) {
            (Some((d, c)), None) => offset_of(rhs, vars).map(|m| (d, c + m)),
            (None, Some((d, c))) => offset_of(lhs, vars).map(|m| (d, c + m)),
            _ => None,
        },
        _ => None,
    }
}

/// A literal's value, or 0 for a variable from outside the nest (constant in the group).
fn offset_of(e: &Expr, vars: &HashMap<String, (usize, i64)>) -> Option<i64> {
    match &e.kind {
        ExprKind::Var(v) if !vars.contains_key(&v.to_string()) => Some(0),
        _ => literal(e),
    }
}

/// Per dimension of a staged nest: its loop's step (a `dmine` factor, else 1) and the
/// work-items along it, the tile over the step.
pub fn group_dims(n: &Nest) -> Vec<(usize, usize)> {
    let Some(st) = n.stage.as_deref() else {
        return Vec::new();
    };
    (n.loops.iter().zip(&st.tiles))
        .map(|(l, &t)| {
            let step = l
                .range
                .step
                .as_ref()
                .and_then(literal)
                .map_or(1, |s| s.max(1) as usize);
            (step, t / step)
        })
        .collect()
}

/// The position an index component follows, or `None` if it is not a loop variable plus a
/// constant nor free of the nest's names. `locals` are the names the body binds.
pub fn position(
    e: &Expr,
    k: &str,
    elems: &HashMap<String, (usize, i64)>,
    locals: &HashSet<String>,
) -> Option<Position> {
    let var = |v: &syn::Ident| {
        let v = v.to_string();
        match elems.get(&v) {
            Some(&(d, c)) => Some((Follows::Elem(d), c)),
            None if v == k => Some((Follows::K, 0)),
            None => None,
        }
    };
    match &e.kind {
        ExprKind::Paren(x) => position(x, k, elems, locals),
        ExprKind::Cast {
            expr,
            ty: Ty::Scalar(Scalar::Usize),
        } => position(expr, k, elems, locals),
        ExprKind::Var(v) if var(v).is_some() => var(v),
        ExprKind::Binary { op, lhs, rhs } if matches!(op, BinOp::Add | BinOp::Sub) => {
            let c = literal(rhs)?;
            let (f, c0) = position(lhs, k, elems, locals)?;
            let c = if *op == BinOp::Add { c } else { -c };
            (f != Follows::Uniform).then_some((f, c0 + c))
        }
        _ if uniform(e, k, elems, locals) => Some((Follows::Uniform, 0)),
        _ => None,
    }
}

fn literal(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, .. }) => text.parse().ok(),
        ExprKind::Paren(x) => literal(x),
        _ => None,
    }
}

/// Whether `e` reads none of the nest's names and no memory (another work-item may change
/// an array, and an atomic returns a different value to each): the same for the whole
/// work-group.
fn uniform(
    e: &Expr,
    k: &str,
    elems: &HashMap<String, (usize, i64)>,
    locals: &HashSet<String>,
) -> bool {
    let mut names = HashSet::new();
    super::hoist::mentions(e, &mut names);
    let free = names
        .iter()
        .all(|n| n != k && !elems.contains_key(n) && !locals.contains(n));
    free && !reads_memory(e)
}

/// Whether evaluating `e` reads an array, an image or an atomic, or calls a function.
fn reads_memory(e: &Expr) -> bool {
    let here = match &e.kind {
        ExprKind::Index { .. } | ExprKind::Call { .. } => true,
        ExprKind::Method { method, .. } => crate::ir::builtins::MethodKind::of(&method.to_string())
            .is_some_and(|k| k.reads_memory() || k.on_memory()),
        ExprKind::If { then, .. } => !then.stmts.is_empty(),
        ExprKind::Block(b) => !b.stmts.is_empty(),
        _ => false,
    };
    here || e.operands().into_iter().any(reads_memory)
}

/// The names a block binds (`let`, loop variables), anywhere inside it.
pub fn bound_names(b: &Block) -> HashSet<String> {
    struct Bound(HashSet<String>);
    impl VisitMut for Bound {
        fn visit_stmt(&mut self, s: &mut Stmt) {
            match s {
                Stmt::Let(l) => match &l.pat {
                    Pat::Ident { name, .. } => {
                        self.0.insert(name.to_string());
                    }
                    Pat::Tuple(list) => self
                        .0
                        .extend(list.iter().flatten().map(|(n, _)| n.to_string())),
                },
                Stmt::For { var, .. } => {
                    self.0.insert(var.to_string());
                }
                _ => {}
            }
            visit::walk_stmt(self, s);
        }
        fn visit_nest(&mut self, n: &mut Nest) {
            self.0.extend(n.loops.iter().map(|l| l.var.to_string()));
            visit::walk_nest(self, n);
        }
    }
    let mut b2 = b.clone();
    let mut v = Bound(HashSet::new());
    v.visit_block(&mut b2);
    v.0
}

/// The staged loop in a body: a top-level `for k in ..` or one-loop `nfor!(k in ..)`, as
/// (its index in the statements, its variable's slot, its range, its body).
pub fn staged_loop<'b>(b: &'b Block, k: &str) -> Option<(usize, Slot, &'b Range, &'b Block)> {
    b.stmts.iter().enumerate().find_map(|(at, s)| match s {
        Stmt::For {
            var,
            slot,
            range,
            body,
            ..
        } if *var == k => Some((at, *slot, &**range, body)),
        Stmt::Nest(n) if n.loops.len() == 1 && n.loops[0].var == k && n.annots.is_empty() => {
            Some((at, n.loops[0].slot, &n.loops[0].range, &n.body))
        }
        _ => None,
    })
}

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

fn plan(g: &Gen<'_>, n: &Nest, args: &[Expr], span: proc_macro2::Span) -> Option<Stage> {
    let (arrays, k, depth) = parse_args(g, args)?;
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
        tiles,
        span,
    })
}

/// `stage(a, b, k: 16)`: the arrays, the loop and its tile size (`stage(a)`: none, 1).
fn parse_args(g: &Gen<'_>, args: &[Expr]) -> Option<(Vec<syn::Ident>, Option<syn::Ident>, usize)> {
    let (mut arrays, mut k) = (Vec::new(), None);
    for a in args {
        match &a.kind {
            ExprKind::Var(v) => arrays.push(v.clone()),
            ExprKind::Tuple(p) if p.len() == 2 => match (&p[0].kind, literal(&p[1])) {
                (ExprKind::Var(v), Some(d)) if d > 0 && k.is_none() => k = Some((v.clone(), d as usize)),
                _ => g.cx.error(a.span, "annot!: stage takes one `loop: depth` with a constant depth, as in `stage(a, b, k: 16)`"),
            },
            _ => g.cx.error(a.span, "annot!: stage takes the arrays to stage and the loop to tile, as in `stage(a, b, k: 16)`"),
        }
    }
    if arrays.is_empty() {
        let span = args
            .first()
            .map_or_else(proc_macro2::Span::call_site, |a| a.span);
        g.cx.error(
            span,
            "annot!: stage needs at least one array to stage, as in `stage(a, k: 16)`",
        );
        return None;
    }
    let (k, depth) = k.map_or((None, 1), |(k, d)| (Some(k), d));
    Some((arrays, k, depth))
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
            if position(x, names.0, names.1, names.2).is_none() {
                let text = crate::ir::display::expr(x);
                let msg = format!("annot!: stage({a}, ..): the index `{text}` is not a loop variable plus a constant (as `k`, `i + 1`), nor the same for the whole work-group, so its tile cannot be known");
                g.cx.error(*span, msg);
                return None;
            }
        }
    }
    Some(())
}

/// Where `b` stores to `a` (an assignment or an atomic), if it does.
fn written(b: &Block, a: &syn::Ident) -> Option<proc_macro2::Span> {
    struct W<'a>(&'a syn::Ident, Option<proc_macro2::Span>);
    impl VisitMut for W<'_> {
        fn visit_stmt(&mut self, s: &mut Stmt) {
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
            visit::walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &mut Expr) {
            if let ExprKind::Method { recv, method, .. } = &e.kind {
                let atomic = method.to_string().starts_with("atomic_");
                if atomic && matches!(&recv.kind, ExprKind::Var(v) if v == self.0) {
                    self.1.get_or_insert(e.span);
                }
            }
            visit::walk_expr(self, e);
        }
    }
    let mut w = W(a, None);
    w.visit_block(&mut b.clone());
    w.1
}

/// Every read `a[..]` in `b`: its index components and span.
pub fn reads_of(b: &Block, a: &syn::Ident) -> Vec<(Vec<Expr>, proc_macro2::Span)> {
    struct R<'a>(&'a syn::Ident, Vec<(Vec<Expr>, proc_macro2::Span)>);
    impl VisitMut for R<'_> {
        fn visit_expr(&mut self, e: &mut Expr) {
            if let ExprKind::Index { base, index } = &e.kind {
                if base == self.0 {
                    self.1.push((index.clone(), e.span));
                }
            }
            visit::walk_expr(self, e);
        }
    }
    let mut r = R(a, Vec::new());
    r.visit_block(&mut b.clone());
    r.1
}
