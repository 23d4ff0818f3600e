//! What a piece of a kernel body references and holds, for the barrier split (layer: checks
//! over the IR): the names it uses that no binding inside it declares first, every name it
//! binds, and whether it calls `barrier()`, returns, or leaves the loop around it.

use crate::base::ir::builtins::{builtin_of, FnKind};
use crate::base::ir::visit::shared::{walk_block, walk_expr, walk_place, walk_stmt, Visit};
use crate::base::ir::*;
use proc_macro2::Ident;

/// A use of a variable declared outside the scanned code.
#[derive(Debug, Clone)]
pub struct Ref {
    /// The variable.
    pub name: Ident,
    /// Whether the code assigns it (or a field or element of it).
    pub assigned: bool,
}

/// What a scan found.
#[derive(Debug, Default)]
pub struct Scan {
    /// Uses of names bound outside, in order.
    pub refs: Vec<Ref>,
    /// Every name bound inside (`let`, `for` and `nfor!` variables), in order.
    pub bound: Vec<String>,
    /// Whether it calls `barrier()`.
    pub barrier: bool,
    /// Whether it holds a `return`.
    pub returns: bool,
    /// Whether it holds a `break` or `continue` of a loop outside it.
    pub exits: bool,
    /// Names in scope at this point of the walk (inner ones are dropped at a block's end).
    scope: Vec<String>,
    /// Loops entered.
    depth: usize,
}

impl Scan {
    /// The scan of statements, as one sequence (a `let` is in scope for the ones after it).
    pub fn stmts(stmts: &[Stmt]) -> Scan {
        let mut s = Scan::default();
        stmts.iter().for_each(|x| s.visit_stmt(x));
        s
    }

    /// The scan of an expression.
    pub fn expr_of(e: &Expr) -> Scan {
        let mut s = Scan::default();
        s.visit_expr(e);
        s
    }

    /// The scan of a range's bounds and step.
    pub fn range_of(r: &Range) -> Scan {
        let mut s = Scan::default();
        s.visit_range(r);
        s
    }

    fn use_name(&mut self, name: &Ident, assigned: bool) {
        let key = name.to_string();
        if !self.scope.contains(&key) {
            self.refs.push(Ref {
                name: name.clone(),
                assigned,
            });
        }
    }

    fn bind(&mut self, name: &Ident) {
        self.scope.push(name.to_string());
        self.bound.push(name.to_string());
    }

    fn looped(&mut self, b: &Block) {
        self.depth += 1;
        self.visit_block(b);
        self.depth -= 1;
    }
}

/// The walk itself: the shared visitor, with scopes opened at blocks and loops.
impl Visit for Scan {
    fn visit_block(&mut self, b: &Block) {
        let mark = self.scope.len();
        walk_block(self, b);
        self.scope.truncate(mark);
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => {
                walk_stmt(self, s);
                pat_names(&l.pat).iter().for_each(|(n, _)| self.bind(n));
            }
            // The value is read before the target is written, as Rust evaluates them.
            Stmt::Assign { place, value, .. } => {
                self.visit_expr(value);
                self.visit_place(place);
            }
            Stmt::While { cond, body, .. } => {
                self.visit_expr(cond);
                self.looped(body);
            }
            Stmt::Loop { body, .. } => self.looped(body),
            Stmt::For {
                var, range, body, ..
            } => {
                self.visit_range(range);
                let mark = self.scope.len();
                self.bind(var);
                self.looped(body);
                self.scope.truncate(mark);
            }
            Stmt::Return(..) => {
                self.returns = true;
                walk_stmt(self, s);
            }
            Stmt::Break(_) | Stmt::Continue(_) => self.exits |= self.depth == 0,
            Stmt::Expr(_) | Stmt::Nest(_) => walk_stmt(self, s),
        }
    }

    fn visit_nest(&mut self, n: &Nest) {
        let mark = self.scope.len();
        for l in &n.loops {
            self.visit_range(&l.range);
            self.bind(&l.var);
        }
        self.looped(&n.body);
        self.scope.truncate(mark);
    }

    fn visit_place(&mut self, p: &Place) {
        walk_place(self, p);
        match p {
            Place::Var(v) | Place::Member { base: v, .. } => self.use_name(v, true),
            Place::Index { .. } => {}
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(v) => self.use_name(v, false),
            ExprKind::Call { func, .. } if is_barrier_fn(func) => self.barrier = true,
            _ => walk_expr(self, e),
        }
    }
}

/// Whether `func` is the `barrier` builtin.
pub fn is_barrier_fn(func: &syn::Path) -> bool {
    builtin_of(func).is_some_and(|f| f.kind == FnKind::Barrier)
}

/// The names a `let` pattern binds, with whether each is `mut`.
pub fn pat_names(p: &Pat) -> Vec<(Ident, bool)> {
    match p {
        Pat::Ident { name, mutable } => vec![(name.clone(), *mutable)],
        Pat::Tuple(names) => names.iter().flatten().cloned().collect(),
    }
}
