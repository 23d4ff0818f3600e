//! Rewriting variables in copies of a body: substituting loop variables by expressions (the
//! value of a counter), and renaming the locals a copy declares, so that interleaved copies
//! (`dmine`) keep their own accumulators. Both respect Rust's scoping: a `let` or loop that
//! shadows a name ends the rewriting of that name in its scope.

use crate::base::ir::visit::{self, VisitMut};
use crate::base::ir::*;
use std::collections::HashMap;
use syn::Ident;

/// Replaces variables by expressions, and renames declared locals by a suffix.
pub struct Rewrite {
    /// Variables replaced by an expression (loop variables become counter offsets).
    pub subst: HashMap<String, Expr>,
    /// Suffix for locals declared in the rewritten code; `None` keeps their names.
    pub suffix: Option<String>,
    /// Names the rewritten code reads: a renamed local outside it is never read, and gets a
    /// leading underscore so that rustc does not report the generated name as unused.
    pub read: Option<std::collections::HashSet<String>>,
    /// Each local renamed so far, as (new name, the user's name): messages say the user's.
    pub renames: Vec<(String, String)>,
    scopes: Vec<HashMap<String, Option<Ident>>>,
}

impl Rewrite {
    /// A rewrite substituting `subst` and, with a suffix, renaming declared locals.
    pub fn new(subst: HashMap<String, Expr>, suffix: Option<String>) -> Rewrite {
        Rewrite {
            subst,
            suffix,
            read: None,
            renames: Vec::new(),
            scopes: vec![HashMap::new()],
        }
    }

    /// The same rewrite, knowing which names the rewritten code reads.
    pub fn reading(mut self, read: std::collections::HashSet<String>) -> Rewrite {
        self.read = Some(read);
        self
    }

    /// Looks `name` up: `Some(Some(id))` renamed, `Some(None)` a local kept as is.
    fn local(&self, name: &str) -> Option<&Option<Ident>> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Declares a local: renamed when a suffix is set.
    fn declare(&mut self, id: &mut Ident) {
        let unread = self
            .read
            .as_ref()
            .is_some_and(|r| !r.contains(&id.to_string()));
        let under = if unread && !id.to_string().starts_with('_') {
            "_"
        } else {
            ""
        };
        let renamed = self
            .suffix
            .as_ref()
            .map(|sfx| Ident::new(&format!("{under}{id}{sfx}"), id.span()));
        let key = id.to_string();
        if let Some(r) = &renamed {
            self.renames.push((r.to_string(), key.clone()));
            *id = r.clone();
        }
        if let Some(s) = self.scopes.last_mut() {
            s.insert(key, renamed);
        }
    }

    /// Opens a scope (for a loop shared by the copies of `dmine`).
    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    /// Closes a scope.
    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    /// Declares `id` in the current scope, keeping its name (a shared loop variable).
    pub fn keep(&mut self, id: &Ident) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(id.to_string(), None);
        }
    }

    /// A copy of this rewrite's current state, to rewrite an expression without declaring.
    pub fn clone_scope(&self) -> Rewrite {
        Rewrite {
            subst: self.subst.clone(),
            suffix: self.suffix.clone(),
            read: self.read.clone(),
            renames: Vec::new(),
            scopes: self.scopes.clone(),
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(HashMap::new());
        f(self);
        self.scopes.pop();
    }

    /// The new name of a variable use, or the expression that replaces it.
    fn resolve(&self, id: &Ident) -> Option<Result<Ident, Expr>> {
        match self.local(&id.to_string()) {
            Some(Some(r)) => Some(Ok(r.clone())),
            Some(None) => None,
            None => self.subst.get(&id.to_string()).cloned().map(Err),
        }
    }

    /// Rewrites a block in place, in a scope of its own.
    pub fn block(&mut self, b: &mut Block) {
        self.scoped(|r| visit::walk_block(r, b));
    }
}

impl VisitMut for Rewrite {
    fn visit_block(&mut self, b: &mut Block) {
        self.block(b);
    }

    fn visit_stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Let(l) => {
                if let Some(e) = &mut l.init {
                    self.visit_expr(e);
                }
                match &mut l.pat {
                    Pat::Ident { name, .. } => self.declare(name),
                    Pat::Tuple(list) => {
                        list.iter_mut().flatten().for_each(|(n, _)| self.declare(n))
                    }
                }
            }
            Stmt::For {
                var, range, body, ..
            } => {
                self.visit_range(range);
                self.scoped(|r| {
                    r.declare(var);
                    r.block(body);
                });
            }
            _ => visit::walk_stmt(self, s),
        }
    }

    fn visit_nest(&mut self, n: &mut Nest) {
        self.scoped(|r| {
            for l in &mut n.loops {
                r.visit_range(&mut l.range);
                r.declare(&mut l.var);
            }
            for a in &mut n.annots {
                a.args.iter_mut().for_each(|e| r.visit_expr(e));
            }
            r.block(&mut n.body);
        });
    }

    fn visit_place(&mut self, p: &mut Place) {
        match p {
            Place::Var(v) => {
                if let Some(Ok(r)) = self.resolve(v) {
                    *v = r;
                }
            }
            Place::Member { base, path } => {
                if let Some(Ok(r)) = self.resolve(base) {
                    *base = r;
                }
                for step in path {
                    if let Step::Elem(e) = step {
                        self.visit_expr(e);
                    }
                }
            }
            Place::Index { base, index } => {
                // A local array's element (capture analysis runs after the annotations).
                if let Some(Ok(r)) = self.resolve(base) {
                    *base = r;
                }
                index.iter_mut().for_each(|e| self.visit_expr(e))
            }
        }
    }

    fn visit_expr(&mut self, e: &mut Expr) {
        if let ExprKind::Index { base, .. } = &mut e.kind {
            if let Some(Ok(r)) = self.resolve(base) {
                *base = r;
            }
        }
        if let ExprKind::Var(v) = &e.kind {
            match self.resolve(v) {
                Some(Ok(r)) => e.kind = ExprKind::Var(r),
                Some(Err(x)) => *e = x,
                None => {}
            }
            return;
        }
        visit::walk_expr(self, e);
    }
}
