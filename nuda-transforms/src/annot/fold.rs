//! Folding the integer literals annotations leave behind (stage 4, annotations: IR → IR).
//! `inline` and `unroll` replace a loop variable by its values, so `taps[dy * 3 + dx]` becomes
//! `taps[0 * 3 + 2]` in a copy. Each such sum is folded to one literal where its value is the
//! same in every integer type (operands and result in `0..=127`, no division), so folding
//! cannot change what any engine computes. It matters for rustc: an unsuffixed literal's type
//! stays open until the end of the function, and each open `Arith` call on two of them is an
//! obligation rustc checks again and again (imgconv's `packed`, 1,152 copies of its inner
//! statement: 29 s of type check without the folding, 6 s with it).

use crate::base::ir::visit::{walk_expr, VisitMut};
use crate::base::ir::*;

/// Folds every literal sum, difference and product under `n` (ranges and body).
pub fn nest(n: &mut Nest) {
    Fold.visit_nest(n);
}

struct Fold;

impl VisitMut for Fold {
    fn visit_expr(&mut self, e: &mut Expr) {
        walk_expr(self, e);
        if let Some(lit) = folded(e) {
            e.kind = ExprKind::Lit(lit);
        }
    }
}

/// The literal `e` (a binary `+`, `-` or `*` of two integer literals) folds to, if any.
fn folded(e: &Expr) -> Option<Lit> {
    let ExprKind::Binary { op, lhs, rhs } = &e.kind else {
        return None;
    };
    let ((a, sa), (b, sb)) = (small(lhs)?, small(rhs)?);
    let v = match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        _ => return None,
    };
    ((0..=127).contains(&v) && sa == sb).then(|| Lit::Int {
        text: v.to_string(),
        suffix: sa,
    })
}

/// An integer literal in `0..=127` (through parentheses), and its suffix.
fn small(e: &Expr) -> Option<(i128, Option<Scalar>)> {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, suffix }) => {
            let v: i128 = text.parse().ok()?;
            (0..=127).contains(&v).then_some((v, *suffix))
        }
        ExprKind::Paren(x) => small(x),
        _ => None,
    }
}
