//! Walking the IR (stage 1, the base): one visitor written once and made twice, `Visit` over
//! shared references for the analyses that only read (capture, dependences, the barrier
//! split's scan, ...) and `VisitMut` for those that rewrite (renaming locals, substituting
//! loop variables). Both walk children in the same order, so an analysis and a rewrite of
//! the same tree see the same sequence of nodes.

use super::{Expr, ExprKind, Place, Step};

impl Expr {
    /// The operands of an expression: its sub-expressions other than the bodies of blocks
    /// and `if`s, which the caller walks as control flow.
    pub fn operands(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } | ExprKind::Paren(expr) => {
                vec![expr]
            }
            ExprKind::Binary { lhs, rhs, .. } => vec![lhs, rhs],
            ExprKind::Index { index, .. } => index.iter().collect(),
            ExprKind::Call { args, .. } => args.iter().collect(),
            ExprKind::Method { recv, args, .. } => std::iter::once(&**recv).chain(args).collect(),
            ExprKind::Tuple(items) | ExprKind::Array(items) => items.iter().collect(),
            ExprKind::Field { base, .. } | ExprKind::Member { base, .. } => vec![base],
            ExprKind::Struct { fields, rest, .. } => {
                let mut v: Vec<&Expr> = fields.iter().map(|f| &f.1).collect();
                v.extend(rest.as_deref());
                v
            }
            ExprKind::At { base, index } => vec![base, index],
            ExprKind::Repeat { value, .. } => vec![value],
            ExprKind::Offset { start, count, step } => {
                let mut v: Vec<&Expr> = vec![start, count];
                v.extend(step.as_deref());
                v
            }
            ExprKind::Trips(r, _) => {
                let mut v = vec![&r.start, &r.end];
                v.extend(r.step.as_ref());
                v
            }
            _ => Vec::new(),
        }
    }
}

impl Place {
    /// The index expressions of the target, in order.
    pub fn indices(&self) -> Vec<&Expr> {
        match self {
            Place::Index { index, .. } => index.iter().collect(),
            Place::Member { path, .. } => path
                .iter()
                .filter_map(|s| match s {
                    Step::Elem(e) => Some(e),
                    Step::Field(_) => None,
                })
                .collect(),
            Place::Var(_) => Vec::new(),
        }
    }
}

/// Writes a visitor trait and its `walk_*` functions, over `&` or `&mut` references (the one
/// definition of the walk, so the two cannot drift apart).
macro_rules! visitor {
    ($(#[$doc:meta])* $Visit:ident, $($m:ident)?) => {
        $(#[$doc])*
        pub trait $Visit {
            /// Visits a block.
            fn visit_block(&mut self, b: &$($m)? Block) {
                walk_block(self, b);
            }
            /// Visits a statement.
            fn visit_stmt(&mut self, s: &$($m)? Stmt) {
                walk_stmt(self, s);
            }
            /// Visits an expression.
            fn visit_expr(&mut self, e: &$($m)? Expr) {
                walk_expr(self, e);
            }
            /// Visits a nest.
            fn visit_nest(&mut self, n: &$($m)? Nest) {
                walk_nest(self, n);
            }
            /// Visits a range.
            fn visit_range(&mut self, r: &$($m)? Range) {
                walk_range(self, r);
            }
            /// Visits an assignment target.
            fn visit_place(&mut self, p: &$($m)? Place) {
                walk_place(self, p);
            }
        }

        /// Walks the expressions of an assignment target: its indices.
        pub fn walk_place<V: $Visit + ?Sized>(v: &mut V, p: &$($m)? Place) {
            match p {
                Place::Index { index, .. } => index.into_iter().for_each(|e| v.visit_expr(e)),
                Place::Member { path, .. } => path.into_iter().for_each(|s| {
                    if let Step::Elem(e) = s {
                        v.visit_expr(e)
                    }
                }),
                Place::Var(_) => {}
            }
        }

        /// Walks a block's statements and tail.
        pub fn walk_block<V: $Visit + ?Sized>(v: &mut V, b: &$($m)? Block) {
            (&$($m)? b.stmts).into_iter().for_each(|s| v.visit_stmt(s));
            if let Some(t) = &$($m)? b.tail {
                v.visit_expr(t);
            }
        }

        /// Walks a statement's parts (an assignment's target before its value).
        pub fn walk_stmt<V: $Visit + ?Sized>(v: &mut V, s: &$($m)? Stmt) {
            match s {
                Stmt::Let(l) => {
                    if let Some(e) = &$($m)? l.init {
                        v.visit_expr(e);
                    }
                }
                Stmt::Assign { place, value, .. } => {
                    v.visit_place(place);
                    v.visit_expr(value);
                }
                Stmt::Expr(e) => v.visit_expr(e),
                Stmt::While { cond, body, .. } => {
                    v.visit_expr(cond);
                    v.visit_block(body);
                }
                Stmt::Loop { body, .. } => v.visit_block(body),
                Stmt::For { range, body, .. } => {
                    v.visit_range(range);
                    v.visit_block(body);
                }
                Stmt::Nest(n) => v.visit_nest(n),
                Stmt::Return(Some(e), _) => v.visit_expr(e),
                Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(None, _) => {}
            }
        }

        /// Walks a nest's ranges, annotation parameters and body.
        pub fn walk_nest<V: $Visit + ?Sized>(v: &mut V, n: &$($m)? Nest) {
            for l in &$($m)? n.loops {
                v.visit_range(&$($m)? l.range);
            }
            for a in &$($m)? n.annots {
                (&$($m)? a.args).into_iter().for_each(|e| v.visit_expr(e));
            }
            v.visit_block(&$($m)? n.body);
        }

        /// Walks a range's bounds and step.
        pub fn walk_range<V: $Visit + ?Sized>(v: &mut V, r: &$($m)? Range) {
            v.visit_expr(&$($m)? r.start);
            v.visit_expr(&$($m)? r.end);
            if let Some(s) = &$($m)? r.step {
                v.visit_expr(s);
            }
        }

        /// Walks an expression's children.
        pub fn walk_expr<V: $Visit + ?Sized>(v: &mut V, e: &$($m)? Expr) {
            match &$($m)? e.kind {
                ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::Assoc { .. } => {}
                ExprKind::Unary { expr, .. }
                | ExprKind::Cast { expr, .. }
                | ExprKind::Paren(expr)
                | ExprKind::Repeat { value: expr, .. } => v.visit_expr(expr),
                ExprKind::Binary { lhs: a, rhs: b, .. } | ExprKind::At { base: a, index: b } => {
                    v.visit_expr(a);
                    v.visit_expr(b);
                }
                ExprKind::Index { index: list, .. }
                | ExprKind::Call { args: list, .. }
                | ExprKind::Tuple(list)
                | ExprKind::Array(list) => list.into_iter().for_each(|x| v.visit_expr(x)),
                ExprKind::Method { recv, args, .. } => {
                    v.visit_expr(recv);
                    args.into_iter().for_each(|x| v.visit_expr(x));
                }
                ExprKind::If { cond, then, els } => {
                    v.visit_expr(cond);
                    v.visit_block(then);
                    if let Some(x) = els {
                        v.visit_expr(x);
                    }
                }
                ExprKind::Block(b) => v.visit_block(b),
                ExprKind::Field { base, .. } | ExprKind::Member { base, .. } => v.visit_expr(base),
                ExprKind::Struct { fields, rest, .. } => {
                    fields.into_iter().for_each(|f| v.visit_expr(&$($m)? f.1));
                    if let Some(r) = rest {
                        v.visit_expr(r);
                    }
                }
                ExprKind::Trips(r, _) => v.visit_range(r),
                ExprKind::Offset { start, count, step } => {
                    v.visit_expr(start);
                    v.visit_expr(count);
                    if let Some(s) = step {
                        v.visit_expr(s);
                    }
                }
            }
        }
    };
}

/// The visitor over shared references, for analyses that only read the IR.
pub mod shared {
    use super::super::{Block, Expr, ExprKind, Nest, Place, Range, Step, Stmt};
    visitor!(
        /// A visitor that reads. Each method walks its node's children by default; override
        /// to act, and call the `walk_*` function of the same node to go on below it.
        Visit,
    );
}

/// The visitor over mutable references, for rewrites.
pub mod mutable {
    use super::super::{Block, Expr, ExprKind, Nest, Place, Range, Step, Stmt};
    visitor!(
        /// A mutable visitor. Each method walks its node's children by default; override to
        /// act, and call the `walk_*` function of the same node to go on below it.
        VisitMut,
        mut
    );
}

pub use mutable::{walk_block, walk_expr, walk_nest, walk_place, walk_range, walk_stmt, VisitMut};
pub use shared::Visit;
