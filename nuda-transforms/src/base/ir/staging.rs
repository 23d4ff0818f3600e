//! Queries over staged nests (`stage(..)`, `annot::stage`): what each index of a staged read
//! follows, the element variables, the staged loop, the reads of an array. The annotation
//! pass uses them to check and plan a staging; the OpenCL C emitter uses them to rewrite each
//! read into its local copy. Layer: IR.

use super::visit::shared::{self as visit, Visit};
use super::*;
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

/// An integer literal's value (through parentheses).
pub fn literal(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, .. }) => text.parse().ok(),
        ExprKind::Paren(x) => literal(x),
        _ => None,
    }
}

/// Whether `e` reads none of the nest's names and no memory (another work-item may change
/// an array, and an atomic returns a different value to each): the same for the whole
/// work-group.
pub fn uniform(
    e: &Expr,
    k: &str,
    elems: &HashMap<String, (usize, i64)>,
    locals: &HashSet<String>,
) -> bool {
    let mut names = HashSet::new();
    mentions(e, &mut names);
    let free = names
        .iter()
        .all(|n| n != k && !elems.contains_key(n) && !locals.contains(n));
    free && !reads_memory(e)
}

/// Whether evaluating `e` reads an array, an image or an atomic, or calls a function.
fn reads_memory(e: &Expr) -> bool {
    let here = match &e.kind {
        ExprKind::Index { .. } | ExprKind::Call { .. } => true,
        ExprKind::Method { method, .. } => {
            crate::base::ir::builtins::MethodKind::of(&method.to_string())
                .is_some_and(|k| k.reads_memory() || k.on_memory())
        }
        ExprKind::If { then, .. } => !then.stmts.is_empty(),
        ExprKind::Block(b) => !b.stmts.is_empty(),
        _ => false,
    };
    here || e.operands().into_iter().any(reads_memory)
}

/// The names a block binds (`let`, loop variables), anywhere inside it.
pub fn bound_names(b: &Block) -> HashSet<String> {
    struct Bound(HashSet<String>);
    impl Visit for Bound {
        fn visit_stmt(&mut self, s: &Stmt) {
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
        fn visit_nest(&mut self, n: &Nest) {
            self.0.extend(n.loops.iter().map(|l| l.var.to_string()));
            visit::walk_nest(self, n);
        }
    }
    let mut v = Bound(HashSet::new());
    v.visit_block(b);
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

/// Every read `a[..]` in `b`: its index components and span.
pub fn reads_of(b: &Block, a: &syn::Ident) -> Vec<(Vec<Expr>, proc_macro2::Span)> {
    struct R<'a>(&'a syn::Ident, Vec<(Vec<Expr>, proc_macro2::Span)>);
    impl Visit for R<'_> {
        fn visit_expr(&mut self, e: &Expr) {
            if let ExprKind::Index { base, index } = &e.kind {
                if base == self.0 {
                    self.1.push((index.clone(), e.span));
                }
            }
            visit::walk_expr(self, e);
        }
    }
    let mut r = R(a, Vec::new());
    r.visit_block(&b);
    r.1
}

/// Every variable `e` mentions.
pub fn mentions(e: &Expr, out: &mut HashSet<String>) {
    Mentions(out).visit_expr(e);
}

/// Every variable `b` mentions.
pub fn block_mentions(b: &Block, out: &mut HashSet<String>) {
    Mentions(out).visit_block(b);
}

struct Mentions<'s>(&'s mut HashSet<String>);

impl Visit for Mentions<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        // `t[k]` reads `t`, a local array before capture analysis tells them apart.
        if let ExprKind::Var(v) | ExprKind::Index { base: v, .. } = &e.kind {
            self.0.insert(v.to_string());
        }
        visit::walk_expr(self, e);
    }
}

/// The statements the annotations put first in a body, binding the loop variables from
/// their counters (`let i = start + (i_tile + i_e)`): they read no array.
pub fn leading_binds(b: &Block) -> usize {
    b.stmts
        .iter()
        .take_while(|s| {
            matches!(s, Stmt::Let(Let { init: Some(e), .. }) if matches!(e.kind, ExprKind::Offset { .. }))
        })
        .count()
}

/// The locals a block assigns to (`x = ..`, `x += ..`, `p.y = ..`), anywhere inside it.
pub fn assigned_names(b: &Block) -> HashSet<String> {
    struct Assigned(HashSet<String>);
    impl Visit for Assigned {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let Stmt::Assign {
                place: Place::Var(name) | Place::Member { base: name, .. },
                ..
            } = s
            {
                self.0.insert(name.to_string());
            }
            visit::walk_stmt(self, s);
        }
    }
    let mut v = Assigned(HashSet::new());
    v.visit_block(b);
    v.0
}

/// Whether evaluating `e` can record no fault: names, literals, constants, casts, and
/// arithmetic that wraps (no division, remainder or shift, no read, no call).
pub fn cannot_fault(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Lit(_) | ExprKind::Assoc { .. } => true,
        ExprKind::Paren(x) | ExprKind::Cast { expr: x, .. } => cannot_fault(x),
        ExprKind::Unary { expr, .. } => cannot_fault(expr),
        ExprKind::Binary { op, lhs, rhs } => {
            matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
                && cannot_fault(lhs)
                && cannot_fault(rhs)
        }
        _ => false,
    }
}
