//! Which statements a group may run once for all its work-items, and which values a work-item
//! loop may compute again instead of keeping (layer: checks over the IR).
//!
//! A statement is *group-pure* when it writes no memory and every variable it sets is uniform
//! (`uniform::Facts`): each work-item would run it to the same effect, so running it once is
//! the same. An expression is *recomputable* when it reads no memory and calls nothing with
//! effects: evaluated again later from the same inputs, it gives the same value.

use crate::base::ir::builtins::{builtin_of, FnKind, MethodKind};
use crate::base::ir::*;
use crate::checks::uniform::Facts;

/// Whether every work-item of a group would run `s` to the same effect, touching no memory.
pub fn group_stmt(s: &Stmt, f: &Facts) -> bool {
    match s {
        Stmt::Let(l) => {
            l.init.as_ref().is_some_and(|e| group_expr(e, f))
                && super::scan::pat_names(&l.pat)
                    .iter()
                    .all(|(n, _)| !f.varying(n))
        }
        Stmt::Assign { place, value, .. } => {
            let base = match place {
                Place::Var(v) | Place::Member { base: v, .. } => v,
                Place::Index { .. } => return false,
            };
            !f.varying(base)
                && group_expr(value, f)
                && place.indices().into_iter().all(|e| group_expr(e, f))
        }
        Stmt::Expr(e) => group_expr(e, f),
        Stmt::While { cond, body, .. } => head(cond, f) && group_block(body, f),
        Stmt::Loop { body, .. } => group_block(body, f),
        Stmt::For {
            var, range, body, ..
        } => {
            let bounds = [Some(&range.start), Some(&range.end), range.step.as_ref()];
            bounds.into_iter().flatten().all(|e| head(e, f))
                && !f.varying(var)
                && group_block(body, f)
        }
        Stmt::Nest(_) | Stmt::Return(Some(_), _) => false,
        Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(None, _) => true,
    }
}

/// A condition or bound the group may decide once: uniform and group-pure.
fn head(e: &Expr, f: &Facts) -> bool {
    f.uniform(e) && group_expr(e, f)
}

fn group_block(b: &Block, f: &Facts) -> bool {
    b.stmts.iter().all(|s| group_stmt(s, f)) && b.tail.as_deref().is_none_or(|t| group_expr(t, f))
}

/// Whether `e` has no effect but its value, and branches only on uniform values.
pub(super) fn group_expr(e: &Expr, f: &Facts) -> bool {
    match &e.kind {
        ExprKind::If { cond, then, els } => {
            head(cond, f) && group_block(then, f) && els.as_deref().is_none_or(|x| group_expr(x, f))
        }
        ExprKind::Block(b) => group_block(b, f),
        ExprKind::Binary {
            op: BinOp::And | BinOp::Or,
            lhs,
            rhs,
        } => head(lhs, f) && group_expr(rhs, f),
        ExprKind::Call { func, args } => {
            builtin_of(func).is_some_and(|b| b.kind != FnKind::Barrier)
                && args.iter().all(|a| group_expr(a, f))
        }
        ExprKind::Method { method, .. } if effect(method) => false,
        _ => e.operands().into_iter().all(|o| group_expr(o, f)),
    }
}

/// Whether a method writes memory.
fn effect(method: &proc_macro2::Ident) -> bool {
    MethodKind::of(&method.to_string()).is_none_or(|k| k.writes())
}

/// Whether `e` may be evaluated again, later, to the same value: it reads no memory (another
/// work-item may have written it since), calls no `#[nucode]` function, and branches nowhere.
pub fn recomputable(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Index { .. } | ExprKind::If { .. } | ExprKind::Block(_) => false,
        ExprKind::Call { func, args } => {
            builtin_of(func).is_some_and(|b| b.kind != FnKind::Barrier)
                && args.iter().all(recomputable)
        }
        ExprKind::Method { method, .. }
            if MethodKind::of(&method.to_string())
                .is_none_or(|k| k.reads_memory() || k.writes()) =>
        {
            false
        }
        _ => e.operands().into_iter().all(recomputable),
    }
}
