//! A name per binding in a `vector(w)` lane body. The lane plan (`crate::checks::lanes`) and the
//! emitters classify locals by name, so two bindings of one name (`let k = 3; .. let k = j +
//! 1;`, an inner `for k` beside a lane local `k`) or a local that shadows a captured value read
//! elsewhere in the body (`s` captured, `let s = a[j] + 1.0;` later) would share one kind: a
//! uniform value taken for a vector, or the native code indexing `s[lane]` for both. Each such
//! binding gets a fresh name here, before anything classifies it; the renames are kept on the
//! lanes mark, so that messages name what the user wrote.
//!
//! ```text
//! let k = 3; a[j] = b[j] * k as f32; let k = j + 1; c[k] = 1.0;
//!     ──▶ let k_1 = 3; a[j] = b[j] * k_1 as f32; let k_2 = j + 1; c[k_2] = 1.0;
//! ```

use super::build::Gen;
use crate::base::ir::visit::{walk_block, walk_expr, walk_place, walk_range, VisitMut};
use crate::base::ir::*;
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// Renames the bindings of `body` that share a name with another binding or with a free use
/// of the name; the renames, as (new name, name written).
pub fn unique(g: &mut Gen<'_>, body: &mut Block) -> Vec<(String, String)> {
    let mut c = Collect::default();
    c.visit_block(body);
    let targets: HashSet<String> = c
        .bound
        .iter()
        .filter(|(n, &k)| k > 1 || c.free.contains(*n))
        .map(|(n, _)| n.clone())
        .collect();
    if targets.is_empty() {
        return Vec::new();
    }
    let mut r = Rename {
        g,
        targets,
        scopes: vec![Vec::new()],
        renamed: Vec::new(),
    };
    r.visit_block(body);
    r.renamed
}

/// The names bound in the body (how many times) and those used where no binding of the body
/// is in scope.
#[derive(Default)]
struct Collect {
    scopes: Vec<Vec<String>>,
    bound: HashMap<String, usize>,
    free: HashSet<String>,
}

impl Collect {
    fn bind(&mut self, name: &Ident) {
        *self.bound.entry(name.to_string()).or_default() += 1;
        if let Some(s) = self.scopes.last_mut() {
            s.push(name.to_string());
        }
    }

    fn used(&mut self, name: &Ident) {
        let n = name.to_string();
        if !self.scopes.iter().any(|s| s.contains(&n)) {
            self.free.insert(n);
        }
    }
}

impl VisitMut for Collect {
    fn visit_block(&mut self, b: &mut Block) {
        self.scopes.push(Vec::new());
        walk_block(self, b);
        self.scopes.pop();
    }

    fn visit_stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Let(l) => {
                if let Some(e) = &mut l.init {
                    self.visit_expr(e);
                }
                pattern_names(&l.pat).into_iter().for_each(|n| self.bind(n));
            }
            Stmt::For {
                var, range, body, ..
            } => {
                self.visit_range(range);
                self.scopes.push(Vec::new());
                self.bind(var);
                self.visit_block(body);
                self.scopes.pop();
            }
            Stmt::Assign { place, value, .. } => {
                place_base(place).into_iter().for_each(|b| self.used(b));
                walk_place(self, place);
                self.visit_expr(value);
            }
            other => crate::base::ir::visit::walk_stmt(self, other),
        }
    }

    /// A nest's range `k` sees its loop variables before `k` (`nfor!((p, q) in (m, 0..p))`).
    fn visit_nest(&mut self, n: &mut Nest) {
        self.scopes.push(Vec::new());
        for l in &mut n.loops {
            self.visit_range(&mut l.range);
            self.bind(&l.var);
        }
        self.visit_block(&mut n.body);
        self.scopes.pop();
    }

    fn visit_expr(&mut self, e: &mut Expr) {
        match &e.kind {
            ExprKind::Var(v) | ExprKind::Index { base: v, .. } => self.used(&v.clone()),
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// The names a `let` pattern binds.
fn pattern_names(p: &Pat) -> Vec<&Ident> {
    match p {
        Pat::Ident { name, .. } => vec![name],
        Pat::Tuple(parts) => parts.iter().flatten().map(|(n, _)| n).collect(),
    }
}

/// The variable an assignment stores to, if it is a name the body may bind.
fn place_base(p: &Place) -> Option<&Ident> {
    match p {
        Place::Var(v) | Place::Member { base: v, .. } | Place::Index { base: v, .. } => Some(v),
    }
}

/// Gives each binding of a target name a fresh name, and its uses the binding's.
struct Rename<'a, 'g> {
    g: &'a mut Gen<'g>,
    targets: HashSet<String>,
    scopes: Vec<Vec<(String, Ident)>>,
    renamed: Vec<(String, String)>,
}

impl Rename<'_, '_> {
    fn bind(&mut self, name: &mut Ident) {
        let old = name.to_string();
        if !self.targets.contains(&old) {
            // A name bound once and never used free keeps it, but still hides an outer
            // binding of a target name.
            if let Some(s) = self.scopes.last_mut() {
                s.push((old, name.clone()));
            }
            return;
        }
        let new = self.g.fresh(&old, name);
        self.renamed.push((new.to_string(), old.clone()));
        if let Some(s) = self.scopes.last_mut() {
            s.push((old, new.clone()));
        }
        *name = new;
    }

    fn rename_use(&self, name: &mut Ident) {
        let n = name.to_string();
        let found = self
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.iter().rev().find(|(o, _)| *o == n));
        if let Some((_, new)) = found {
            *name = new.clone();
        }
    }
}

impl VisitMut for Rename<'_, '_> {
    fn visit_block(&mut self, b: &mut Block) {
        self.scopes.push(Vec::new());
        walk_block(self, b);
        self.scopes.pop();
    }

    fn visit_stmt(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Let(l) => {
                if let Some(e) = &mut l.init {
                    self.visit_expr(e);
                }
                match &mut l.pat {
                    Pat::Ident { name, .. } => self.bind(name),
                    Pat::Tuple(parts) => parts.iter_mut().flatten().for_each(|(n, _)| self.bind(n)),
                }
            }
            Stmt::For {
                var, range, body, ..
            } => {
                walk_range(self, range);
                self.scopes.push(Vec::new());
                self.bind(var);
                self.visit_block(body);
                self.scopes.pop();
            }
            Stmt::Assign { place, value, .. } => {
                match place {
                    Place::Var(v)
                    | Place::Member { base: v, .. }
                    | Place::Index { base: v, .. } => self.rename_use(v),
                }
                walk_place(self, place);
                self.visit_expr(value);
            }
            other => crate::base::ir::visit::walk_stmt(self, other),
        }
    }

    fn visit_nest(&mut self, n: &mut Nest) {
        n.annots
            .iter_mut()
            .for_each(|a| a.args.iter_mut().for_each(|e| self.visit_expr(e)));
        self.scopes.push(Vec::new());
        for l in &mut n.loops {
            self.visit_range(&mut l.range);
            self.bind(&mut l.var);
        }
        self.visit_block(&mut n.body);
        self.scopes.pop();
    }

    fn visit_expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Var(v) | ExprKind::Index { base: v, .. } => self.rename_use(v),
            _ => {}
        }
        walk_expr(self, e);
    }
}
