//! Which arrays a `nuwork!` kernel writes at disjoint elements per iteration, so the native
//! engine may store to them with plain (vectorisable) stores instead of atomic ones. See
//! `README.md` beside this file.
//!
//! The rule, decided on the nest as written, before any annotation: an array qualifies when
//! every access to it, read or write, has each loop variable of the nest, unchanged, as one
//! of its index components, at the same position in every access. Two different iterations
//! then differ in some loop variable, so they touch different elements; annotations only
//! redistribute whole iterations among work-items, so no two work-items ever touch one
//! element of it, and a plain store races with nothing. Anything else (an index computed
//! from a loop variable, a loop variable missing, the array used other than by index or
//! `dims()`, a loop variable rebound in the body) keeps the atomic stores.
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

#[cfg(test)]
mod test;

use crate::base::ir::visit::shared::{walk_expr, walk_stmt, Visit};
use crate::base::ir::*;
use std::collections::HashMap;

/// The names of the arrays of `nest` that may take plain stores.
pub fn plain_store_arrays(nest: &Nest) -> Vec<String> {
    let vars: Vec<String> = nest.loops.iter().map(|l| l.var.to_string()).collect();
    let mut walk = Walk {
        vars: &vars,
        arrays: HashMap::new(),
        rebound: false,
    };
    walk.visit_block(&nest.body);
    if walk.rebound {
        return Vec::new();
    }
    let mut names: Vec<String> = walk
        .arrays
        .into_iter()
        .filter(|(_, u)| u.written && u.positions.is_some())
        .map(|(name, _)| name)
        .collect();
    names.sort();
    names
}

/// How the body uses one array.
#[derive(Default)]
struct Use {
    written: bool,
    /// Where each loop variable sits in the index, the same in every access so far; `None`
    /// once an access breaks the rule.
    positions: Option<Vec<usize>>,
    seen: bool,
}

struct Walk<'a> {
    vars: &'a [String],
    arrays: HashMap<String, Use>,
    /// A loop variable is rebound (`let`, an inner loop, an assignment): its name no longer
    /// means the iteration.
    rebound: bool,
}

impl Walk<'_> {
    /// The position of each loop variable among the index components, if each is one of them.
    fn positions(&self, index: &[Expr]) -> Option<Vec<usize>> {
        let name = |e: &Expr| match &e.kind {
            ExprKind::Var(v) => Some(v.to_string()),
            ExprKind::Paren(inner) => match &inner.kind {
                ExprKind::Var(v) => Some(v.to_string()),
                _ => None,
            },
            _ => None,
        };
        let names: Vec<Option<String>> = index.iter().map(name).collect();
        self.vars
            .iter()
            .map(|v| names.iter().position(|n| n.as_deref() == Some(v)))
            .collect()
    }

    fn access(&mut self, base: &syn::Ident, index: &[Expr], write: bool) {
        let found = self.positions(index);
        let u = self.arrays.entry(base.to_string()).or_default();
        u.written |= write;
        u.positions = match (u.seen, found) {
            (false, found) => found,
            (true, found) if found.is_some() && found == u.positions => found,
            _ => None,
        };
        u.seen = true;
    }

    /// A use of the array other than indexing: only `a.dims()` and `a.len()` keep the rule.
    fn other_use(&mut self, name: &syn::Ident) {
        if let Some(u) = self.arrays.get_mut(&name.to_string()) {
            u.positions = None;
        } else {
            self.arrays.insert(
                name.to_string(),
                Use {
                    seen: true,
                    ..Use::default()
                },
            );
        }
    }

    fn binds(&mut self, name: &syn::Ident) {
        if self.vars.iter().any(|v| name == v) {
            self.rebound = true;
        }
    }
}

impl Visit for Walk<'_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => match &l.pat {
                Pat::Ident { name, .. } => self.binds(&name.clone()),
                Pat::Tuple(items) => {
                    for (name, _) in items.iter().flatten() {
                        self.binds(&name.clone());
                    }
                }
            },
            Stmt::Assign { place, .. } => match place {
                Place::Var(name) | Place::Member { base: name, .. } => self.binds(&name.clone()),
                Place::Index { base, index } => self.access(&base.clone(), &index.clone(), true),
            },
            Stmt::For { var, .. } => self.binds(&var.clone()),
            Stmt::Nest(n) => {
                for l in &n.loops {
                    self.binds(&l.var.clone());
                }
            }
            _ => {}
        }
        walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Index { base, index } => self.access(&base.clone(), &index.clone(), false),
            ExprKind::Var(name) => self.other_use(&name.clone()),
            ExprKind::Method { recv, method, .. } if is_shape_query(recv, method) => {
                // `a.dims()` reads no element: walk its arguments, not its receiver.
                if let ExprKind::Method { args, .. } = &e.kind {
                    args.iter().for_each(|a| self.visit_expr(a));
                }
                return;
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// `a.dims()` or `a.len()` on a variable.
fn is_shape_query(recv: &Expr, method: &syn::Ident) -> bool {
    matches!(recv.kind, ExprKind::Var(_)) && (method == "dims" || method == "len")
}
