//! The slice of a `nuwork!` body that computes only its scan variables' contributions: what
//! a scan's first pass runs for every iteration, and its second pass runs again before the
//! body to learn each iteration's contribution. It keeps control flow, local computations and
//! scan updates; it drops stores, atomics, reduction updates and whatever only they needed, so
//! running it changes nothing outside the work-item.
//!
//! A contribution that depends on a scan variable's own running value (`if acc > 3 { acc += 1 }`,
//! `let t = acc; acc += t`) is not a scan: an error at the read. So is one that depends on a
//! dropped side effect (`let old = c.atomic_add(0, 1); acc += old;`).

use super::{contribution, forms, Reduction};
use crate::base::ctxt::Ctxt;
use crate::base::ir::builtins::MethodKind;
use crate::base::ir::visit::shared::{walk_expr, walk_stmt, Visit};
use crate::base::ir::*;
use std::collections::HashSet;

/// The slice of `body` for `scans`, or `None` after reporting why there is none.
pub fn slice(cx: &Ctxt, body: &Block, scans: &[&Reduction], others: &[Reduction]) -> Option<Block> {
    let reduction = |n: &syn::Ident| others.iter().any(|r| r.scan.is_none() && r.name == *n);
    let mut dropped = Vec::new();
    let mut b = cut_block(body, &reduction, &mut dropped);
    while prune(&mut b) {}
    let mut check = Check {
        cx,
        scans,
        dropped: &dropped,
        ok: true,
    };
    check.visit_block(&b);
    for r in scans.iter().filter(|r| dropped.contains(&r.name)) {
        let msg = format!("nuwork!: a contribution to scan variable `{}` is the result of an atomic or a push; a scan computes its contributions in a first pass that has no side effects, so compute the contribution without it", r.name);
        cx.error(r.span, msg);
        check.ok = false;
    }
    check.ok.then_some(b)
}

/// Whether `e` has an effect beyond its value: an atomic or a push.
fn effectful(e: &Expr) -> bool {
    struct Finds(bool);
    impl Visit for Finds {
        fn visit_expr(&mut self, e: &Expr) {
            if let ExprKind::Method { method, .. } = &e.kind {
                let m = method.to_string();
                self.0 |= m == "push" || MethodKind::of(&m).is_some_and(|k| k.is_atomic());
            }
            walk_expr(self, e);
        }
    }
    let mut f = Finds(false);
    f.visit_expr(&e);
    f.0
}

fn cut_block(
    b: &Block,
    reduction: &dyn Fn(&syn::Ident) -> bool,
    dropped: &mut Vec<syn::Ident>,
) -> Block {
    let mut stmts: Vec<Stmt> = b
        .stmts
        .iter()
        .filter_map(|s| cut_stmt(s, reduction, dropped))
        .collect();
    if let Some(t) = &b.tail {
        stmts.extend(cut_expr(t, reduction, dropped).map(Stmt::Expr));
    }
    Block { stmts, tail: None }
}

fn cut_stmt(
    s: &Stmt,
    reduction: &dyn Fn(&syn::Ident) -> bool,
    dropped: &mut Vec<syn::Ident>,
) -> Option<Stmt> {
    let mut cut = |b: &Block| cut_block(b, reduction, dropped);
    Some(match s {
        Stmt::Let(l) if l.init.as_ref().is_some_and(effectful) => {
            dropped.extend(bound_names(&l.pat));
            return None;
        }
        Stmt::Assign {
            place: Place::Index { .. },
            ..
        } => return None,
        Stmt::Assign {
            place: Place::Var(n),
            ..
        } if reduction(n) => return None,
        Stmt::Assign {
            place: Place::Var(n),
            value,
            ..
        } if effectful(value) => {
            dropped.push(n.clone());
            return None;
        }
        Stmt::Expr(e) => return cut_expr(e, reduction, dropped).map(Stmt::Expr),
        Stmt::While { cond, body, span } => Stmt::While {
            cond: cond.clone(),
            body: cut(body),
            span: *span,
        },
        Stmt::Loop { body, span } => Stmt::Loop {
            body: cut(body),
            span: *span,
        },
        Stmt::For {
            var,
            slot,
            range,
            body,
            span,
        } => Stmt::For {
            var: var.clone(),
            slot: *slot,
            range: range.clone(),
            body: cut(body),
            span: *span,
        },
        Stmt::Nest(n) => Stmt::Nest(Box::new(Nest {
            body: cut(&n.body),
            ..(**n).clone()
        })),
        other => other.clone(),
    })
}

/// An expression statement: `if` and blocks keep their sliced branches; anything else is
/// evaluated only for its effects, and goes.
fn cut_expr(
    e: &Expr,
    reduction: &dyn Fn(&syn::Ident) -> bool,
    dropped: &mut Vec<syn::Ident>,
) -> Option<Expr> {
    let kind = match &e.kind {
        ExprKind::If { cond, then, els } => ExprKind::If {
            cond: cond.clone(),
            then: cut_block(then, reduction, dropped),
            els: els
                .as_ref()
                .and_then(|x| cut_expr(x, reduction, dropped))
                .map(Box::new),
        },
        ExprKind::Block(b) => ExprKind::Block(cut_block(b, reduction, dropped)),
        ExprKind::Paren(x) => return cut_expr(x, reduction, dropped),
        _ => return None,
    };
    Some(Expr { kind, ..e.clone() })
}

fn bound_names(p: &Pat) -> Vec<syn::Ident> {
    match p {
        Pat::Ident { name, .. } => vec![name.clone()],
        Pat::Tuple(list) => list.iter().flatten().map(|(n, _)| n.clone()).collect(),
    }
}

/// Removes one round of dead code: lets and local assignments nothing reads, and `if`s,
/// blocks and loops left without statements. Whether it removed anything.
fn prune(b: &mut Block) -> bool {
    let used = reads(b);
    prune_block(b, &used)
}

fn prune_block(b: &mut Block, used: &HashSet<String>) -> bool {
    let before = b.stmts.len();
    let mut changed = false;
    b.stmts.retain_mut(|s| {
        let (keep, c) = prune_stmt(s, used);
        changed |= c;
        keep
    });
    changed || b.stmts.len() != before
}

/// Whether to keep `s`, and whether anything inside it changed.
fn prune_stmt(s: &mut Stmt, used: &HashSet<String>) -> (bool, bool) {
    match s {
        Stmt::Let(l) => (
            bound_names(&l.pat)
                .iter()
                .any(|n| used.contains(&n.to_string())),
            false,
        ),
        Stmt::Assign {
            place: Place::Var(n),
            ..
        } => (used.contains(&n.to_string()), false),
        Stmt::Expr(e) => prune_expr(e, used),
        Stmt::While { body, .. } | Stmt::Loop { body, .. } | Stmt::For { body, .. } => {
            let c = prune_block(body, used);
            (!body.stmts.is_empty(), c)
        }
        Stmt::Nest(n) => {
            let c = prune_block(&mut n.body, used);
            (!n.body.stmts.is_empty(), c)
        }
        _ => (true, false),
    }
}

fn prune_expr(e: &mut Expr, used: &HashSet<String>) -> (bool, bool) {
    match &mut e.kind {
        ExprKind::If { then, els, .. } => {
            let mut c = prune_block(then, used);
            if let Some(x) = els {
                let (keep, cx) = prune_expr(x, used);
                c |= cx;
                if !keep {
                    *els = None;
                    c = true;
                }
            }
            (!then.stmts.is_empty() || els.is_some(), c)
        }
        ExprKind::Block(b) => {
            let c = prune_block(b, used);
            (!b.stmts.is_empty(), c)
        }
        _ => (true, false),
    }
}

/// Every name the block reads, and every scan variable it updates (an update is a use).
fn reads(b: &Block) -> HashSet<String> {
    struct Reads(HashSet<String>);
    impl Visit for Reads {
        fn visit_expr(&mut self, e: &Expr) {
            match &e.kind {
                ExprKind::Var(v) | ExprKind::Index { base: v, .. } => {
                    self.0.insert(v.to_string());
                }
                _ => {}
            }
            walk_expr(self, e);
        }
        fn visit_stmt(&mut self, s: &Stmt) {
            if let Stmt::Assign {
                place: Place::Var(v),
                op: Some(_),
                ..
            } = s
            {
                // `x += e` reads `x`.
                self.0.insert(v.to_string());
            }
            walk_stmt(self, s);
        }
    }
    let mut r = Reads(HashSet::new());
    r.visit_block(&b);
    r.0
}

/// Reports reads of a scan variable (outside its own updates) and of dropped side effects.
struct Check<'a> {
    cx: &'a Ctxt,
    scans: &'a [&'a Reduction],
    dropped: &'a [syn::Ident],
    ok: bool,
}

impl Visit for Check<'_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign {
                place: Place::Var(n),
                op,
                value,
                ..
            } if self.scans.iter().any(|r| r.name == *n) => {
                self.visit_expr(contribution(*op, value));
            }
            _ => walk_stmt(self, s),
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let ExprKind::Var(v) = &e.kind {
            if let Some(r) = self.scans.iter().find(|r| r.name == *v) {
                let msg = format!("nuwork!: `{v}`'s contributions depend on its own running value here, a loop-carried dependence that is not a scan; a scan variable is updated as {}, where `e` and the conditions around the update do not read it, and read anywhere else", forms(&r.name));
                self.cx.error(v.span(), msg);
                self.ok = false;
            } else if self.dropped.iter().any(|d| d == v) {
                let msg = format!("nuwork!: a scan's contribution depends on `{v}`, the result of an atomic or a push; a scan computes its contributions in a first pass that has no side effects, so compute the contribution without it");
                self.cx.error(v.span(), msg);
                self.ok = false;
            }
        }
        walk_expr(self, e);
    }
}
