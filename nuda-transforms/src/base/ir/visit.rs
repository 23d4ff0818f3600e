//! Walking the IR: a mutable visitor used by the analyses and the annotations (renaming locals,
//! substituting loop variables).

use super::{Block, Expr, ExprKind, Nest, Place, Range, Step, Stmt};

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

/// A mutable visitor. Each method walks its node's children by default; override to act.
pub trait VisitMut {
    /// Visits a block.
    fn visit_block(&mut self, b: &mut Block) {
        walk_block(self, b);
    }
    /// Visits a statement.
    fn visit_stmt(&mut self, s: &mut Stmt) {
        walk_stmt(self, s);
    }
    /// Visits an expression.
    fn visit_expr(&mut self, e: &mut Expr) {
        walk_expr(self, e);
    }
    /// Visits a nest.
    fn visit_nest(&mut self, n: &mut Nest) {
        walk_nest(self, n);
    }
    /// Visits a range.
    fn visit_range(&mut self, r: &mut Range) {
        walk_range(self, r);
    }
    /// Visits an assignment target.
    fn visit_place(&mut self, p: &mut Place) {
        walk_place(self, p);
    }
}

/// Walks the expressions of an assignment target: its indices.
pub fn walk_place<V: VisitMut + ?Sized>(v: &mut V, p: &mut Place) {
    match p {
        Place::Index { index, .. } => index.iter_mut().for_each(|e| v.visit_expr(e)),
        Place::Member { path, .. } => path.iter_mut().for_each(|s| {
            if let Step::Elem(e) = s {
                v.visit_expr(e)
            }
        }),
        Place::Var(_) => {}
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

/// Walks a block's statements and tail.
pub fn walk_block<V: VisitMut + ?Sized>(v: &mut V, b: &mut Block) {
    b.stmts.iter_mut().for_each(|s| v.visit_stmt(s));
    if let Some(t) = &mut b.tail {
        v.visit_expr(t);
    }
}

/// Walks a statement's parts.
pub fn walk_stmt<V: VisitMut + ?Sized>(v: &mut V, s: &mut Stmt) {
    match s {
        Stmt::Let(l) => {
            if let Some(e) = &mut l.init {
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
pub fn walk_nest<V: VisitMut + ?Sized>(v: &mut V, n: &mut Nest) {
    for l in &mut n.loops {
        v.visit_range(&mut l.range);
    }
    for a in &mut n.annots {
        a.args.iter_mut().for_each(|e| v.visit_expr(e));
    }
    v.visit_block(&mut n.body);
}

/// Walks a range's bounds and step.
pub fn walk_range<V: VisitMut + ?Sized>(v: &mut V, r: &mut Range) {
    v.visit_expr(&mut r.start);
    v.visit_expr(&mut r.end);
    if let Some(s) = &mut r.step {
        v.visit_expr(s);
    }
}

/// Walks an expression's children.
pub fn walk_expr<V: VisitMut + ?Sized>(v: &mut V, e: &mut Expr) {
    match &mut e.kind {
        ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::Assoc { .. } => {}
        ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } | ExprKind::Paren(expr) => {
            v.visit_expr(expr)
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            v.visit_expr(lhs);
            v.visit_expr(rhs);
        }
        ExprKind::Index { index: list, .. }
        | ExprKind::Call { args: list, .. }
        | ExprKind::Tuple(list)
        | ExprKind::Array(list) => list.iter_mut().for_each(|x| v.visit_expr(x)),
        ExprKind::Method { recv, args, .. } => {
            v.visit_expr(recv);
            args.iter_mut().for_each(|x| v.visit_expr(x));
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
        ExprKind::At { base, index } => {
            v.visit_expr(base);
            v.visit_expr(index);
        }
        ExprKind::Repeat { value, .. } => v.visit_expr(value),
        ExprKind::Struct { fields, rest, .. } => {
            fields.iter_mut().for_each(|f| v.visit_expr(&mut f.1));
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
