//! Guards that narrow a work-item loop (layer: checks over the IR). A tree reduction's steps
//! are `if l < s { .. }` with `l` the local id and `s` uniform: a loop over every work-item
//! would test the guard `local size` times per step to run it `s` times. Where a per-item
//! chunk is exactly one such `if`, the group evaluates the bound once and walks only the
//! work-items whose local id can pass (the guard is still tested in each: it stays exact).

use super::pure::group_expr;
use super::{Chunk, Scan, Seg, Var};
use crate::base::ir::builtins::builtin_of;
use crate::base::ir::*;
use crate::checks::uniform::Facts;
use proc_macro2::Ident;

/// Sets the guard of every per-item chunk of `segs` that is one narrowing `if`.
pub fn segs(segs: &mut [Seg], vars: &[(Ident, Var, usize)], facts: &Facts) {
    for s in segs {
        match s {
            Seg::Chunk(c) if !c.group => c.guard = guard(c, vars, facts),
            Seg::Chunk(_) => {}
            Seg::If { then, els, .. } => {
                self::segs(then, vars, facts);
                self::segs(els, vars, facts);
            }
            Seg::While { body, .. }
            | Seg::Loop { body }
            | Seg::Block { body }
            | Seg::For { body, .. } => self::segs(body, vars, facts),
        }
    }
}

fn guard(c: &Chunk, vars: &[(Ident, Var, usize)], facts: &Facts) -> Option<(u8, Expr)> {
    let [Stmt::Expr(Expr {
        kind: ExprKind::If {
            cond, els: None, ..
        },
        ..
    })] = c.stmts.as_slice()
    else {
        return None;
    };
    let ExprKind::Binary { op, lhs, rhs } = &unparen(cond).kind else {
        return None;
    };
    let code = match op {
        BinOp::Lt => 0,
        BinOp::Le => 1,
        BinOp::Eq => 2,
        _ => return None,
    };
    let group_value = facts.uniform(rhs)
        && group_expr(rhs, facts)
        // Conservative where bindings share a name: none of that name may be per-item.
        && Scan::expr_of(rhs).refs.iter().all(|r| {
            !(vars.iter()).any(|(n, v, _)| *n == r.name && *v != Var::Group)
        });
    (group_value && local_id0(lhs, c)).then(|| (code, (**rhs).clone()))
}

fn unparen(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Paren(inner) => unparen(inner),
        _ => e,
    }
}

/// Whether `e` is `local_id(0)`, or a variable the chunk recomputes as `local_id(0)`.
fn local_id0(e: &Expr, c: &Chunk) -> bool {
    match &unparen(e).kind {
        ExprKind::Call { func, args } => {
            builtin_of(func).is_some_and(|b| b.name == "local_id")
                && matches!(args.as_slice(), [Expr { kind: ExprKind::Lit(Lit::Int { text, .. }), .. }] if text == "0")
        }
        ExprKind::Var(v) => c.uses.remat.iter().any(|l| {
            matches!(&l.pat, Pat::Ident { name, .. } if name == v)
                && l.init.as_ref().is_some_and(|i| local_id0(i, c))
        }),
        _ => false,
    }
}
