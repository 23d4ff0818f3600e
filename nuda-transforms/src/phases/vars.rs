//! Variables that live from one piece of a split body to a later one (layer: checks over the
//! IR): which are the group's, which are recomputed, which are kept per work-item, and which
//! chunks the group can still run once given that. See `README.md` beside this file.

use super::scan::{pat_names, Scan};
use super::{Chunk, Head, Seg, Uses, Var, Why};
use crate::ir::*;
use proc_macro2::Ident;
use std::collections::{BTreeMap, HashMap};

/// What a name resolves to where it is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// A `let` of some piece, by index.
    Decl(usize),
    /// The variable of a split `for`: the group's.
    For,
    /// A capture, a constant, or nothing the split keeps.
    Outside,
}

/// A top-level `let` binding of a chunk.
struct Decl {
    name: Ident,
    unit: usize,
    mutable: bool,
    let_: Let,
    /// An `x = e` whose `e` may be evaluated again (`pure::recomputable`).
    recomputable: bool,
    /// What the names in its value resolve to.
    inputs: Vec<Target>,
}

/// One use of a `let` binding by a piece.
struct Use {
    decl: usize,
    unit: usize,
    assigned: bool,
}

/// The pieces (chunks and heads) in walk order, the bindings and their uses.
#[derive(Default)]
struct Walk {
    /// Per piece: whether the group runs it once.
    group: Vec<bool>,
    decls: Vec<Decl>,
    uses: Vec<Use>,
    scope: Vec<(String, Target)>,
}

/// Classifies the variables that cross pieces, demotes the group chunks and heads that need
/// per-item values to per-item ones, and fills every piece's `Uses`.
pub fn settle(segs: &mut [Seg], body: &Block) -> Result<BTreeMap<String, Var>, Why> {
    let mut w = Walk::default();
    w.segs(segs);
    let counts = binding_counts(body);
    for (_, d) in w.decls.iter().enumerate().filter(|(k, _)| w.cross(*k)) {
        if counts.get(&d.name.to_string()).copied().unwrap_or(0) > 1 {
            return Err("a variable that lives across a barrier and shares its name with another binding");
        }
        if d.let_.init.is_none() {
            return Err("a `let` without a value whose variable lives across a barrier");
        }
    }
    let classes = loop {
        let classes = w.classify();
        if !w.demote(&classes) {
            break classes;
        }
    };
    let mut unit = 0;
    fill(segs, &w, &classes, &mut unit);
    let mut vars = BTreeMap::new();
    for (k, d) in w.decls.iter().enumerate() {
        if let Some(c) = &classes[k] {
            vars.insert(d.name.to_string(), c.clone());
        }
    }
    Ok(vars)
}

/// How many bindings of each name the body has (`let`, `for` and `nfor!` variables).
fn binding_counts(body: &Block) -> HashMap<String, usize> {
    let mut stmts = body.stmts.clone();
    stmts.extend(body.tail.iter().map(|t| Stmt::Expr((**t).clone())));
    let mut counts = HashMap::new();
    for name in Scan::stmts(&stmts).bound {
        *counts.entry(name).or_insert(0) += 1;
    }
    counts
}

impl Walk {
    fn segs(&mut self, segs: &[Seg]) {
        let mark = self.scope.len();
        for s in segs {
            match s {
                Seg::Chunk(c) => self.chunk(c),
                Seg::If {
                    cond, then, els, ..
                } => {
                    self.head(Scan::expr_of(cond));
                    self.segs(then);
                    self.segs(els);
                }
                Seg::While { cond, body, .. } => {
                    self.head(Scan::expr_of(cond));
                    self.segs(body);
                }
                Seg::Loop { body } => self.segs(body),
                Seg::For {
                    var, range, body, ..
                } => {
                    self.head(Scan::range_of(range));
                    let inner = self.scope.len();
                    self.scope.push((var.to_string(), Target::For));
                    self.segs(body);
                    self.scope.truncate(inner);
                }
            }
        }
        self.scope.truncate(mark);
    }

    fn resolve(&self, name: &Ident) -> Target {
        let key = name.to_string();
        let found = self.scope.iter().rev().find(|(n, _)| *n == key);
        found.map_or(Target::Outside, |(_, t)| *t)
    }

    fn record(&mut self, scan: &Scan, unit: usize) {
        for r in &scan.refs {
            if let Target::Decl(decl) = self.resolve(&r.name) {
                let assigned = r.assigned;
                self.uses.push(Use {
                    decl,
                    unit,
                    assigned,
                });
            }
        }
    }

    fn head(&mut self, scan: Scan) {
        let unit = self.group.len();
        self.group.push(true);
        self.record(&scan, unit);
    }

    fn chunk(&mut self, c: &Chunk) {
        let unit = self.group.len();
        self.group.push(c.group);
        for s in &c.stmts {
            self.record(&Scan::stmts(std::slice::from_ref(s)), unit);
            if let Stmt::Let(l) = s {
                self.declare(l, unit);
            }
        }
    }

    fn declare(&mut self, l: &Let, unit: usize) {
        let inputs: Vec<Target> = l.init.as_ref().map_or(Vec::new(), |e| {
            let refs = Scan::expr_of(e).refs;
            refs.iter().map(|r| self.resolve(&r.name)).collect()
        });
        let single = matches!(l.pat, Pat::Ident { .. });
        let recomputable = single && l.init.as_ref().is_some_and(super::pure::recomputable);
        for (name, mutable) in pat_names(&l.pat) {
            self.scope
                .push((name.to_string(), Target::Decl(self.decls.len())));
            self.decls.push(Decl {
                name,
                unit,
                mutable,
                let_: l.clone(),
                recomputable: recomputable && !mutable,
                inputs: inputs.clone(),
            });
        }
    }

    /// Whether a piece other than its own uses binding `k`.
    fn cross(&self, k: usize) -> bool {
        let unit = self.decls[k].unit;
        self.uses.iter().any(|u| u.decl == k && u.unit != unit)
    }

    /// Each binding's class, `None` where it stays inside its piece. Bindings only use earlier
    /// ones, so one pass in order settles recomputation.
    fn classify(&self) -> Vec<Option<Var>> {
        let mut out: Vec<Option<Var>> = Vec::with_capacity(self.decls.len());
        for (k, d) in self.decls.iter().enumerate() {
            if !self.cross(k) {
                out.push(None);
                continue;
            }
            let mut assigners = self.uses.iter().filter(|u| u.decl == k && u.assigned);
            let class = if self.group[d.unit] && assigners.all(|u| self.group[u.unit]) {
                Var::Group
            } else if d.recomputable && d.inputs.iter().all(|t| self.stable(*t, &out)) {
                Var::Remat
            } else {
                Var::Slot
            };
            out.push(Some(class));
        }
        out
    }

    /// Whether an input of a recomputed value holds the same value wherever it is recomputed.
    fn stable(&self, t: Target, classes: &[Option<Var>]) -> bool {
        match t {
            Target::For | Target::Outside => true,
            Target::Decl(e) => match &classes[e] {
                Some(Var::Remat) => true,
                Some(Var::Group) => !self.decls[e].mutable,
                _ => false,
            },
        }
    }

    /// Makes per-item every group piece that needs a per-item value, or sets a variable
    /// that is not the group's; returns whether any changed.
    fn demote(&mut self, classes: &[Option<Var>]) -> bool {
        let mut changed = false;
        for u in &self.uses {
            let class = classes[u.decl].as_ref();
            let slot = class == Some(&Var::Slot);
            let sets = u.assigned && class.is_some_and(|c| *c != Var::Group);
            if self.group[u.unit] && (slot || sets) {
                self.group[u.unit] = false;
                changed = true;
            }
        }
        for (k, d) in self.decls.iter().enumerate() {
            let kept = matches!(classes[k], None | Some(Var::Group));
            if self.group[d.unit] && !kept {
                self.group[d.unit] = false;
                changed = true;
            }
        }
        changed
    }

    /// What `unit` needs from earlier pieces.
    fn uses_of(&self, unit: usize, classes: &[Option<Var>]) -> Uses {
        let mut uses = Uses::default();
        let mut remat = std::collections::BTreeSet::new();
        for u in self.uses.iter().filter(|u| u.unit == unit) {
            let d = &self.decls[u.decl];
            match &classes[u.decl] {
                Some(Var::Remat) if d.unit != unit => {
                    self.remat_closure(u.decl, classes, &mut remat)
                }
                Some(Var::Slot) if d.unit != unit => add_restore(&mut uses, &d.name, u.assigned),
                _ => {}
            }
        }
        for (k, d) in self.decls.iter().enumerate() {
            if d.unit == unit && classes[k] == Some(Var::Slot) {
                push_once(&mut uses.save, &d.name);
            }
        }
        let restored: Vec<Ident> = (uses.restore.iter().filter(|(_, a)| *a))
            .map(|(n, _)| n.clone())
            .collect();
        restored.iter().for_each(|n| push_once(&mut uses.save, n));
        uses.remat = remat.iter().map(|&k| self.decls[k].let_.clone()).collect();
        uses
    }

    /// Binding `k` and the recomputed bindings its value needs.
    fn remat_closure(
        &self,
        k: usize,
        classes: &[Option<Var>],
        out: &mut std::collections::BTreeSet<usize>,
    ) {
        if !out.insert(k) {
            return;
        }
        for t in &self.decls[k].inputs {
            if let Target::Decl(e) = *t {
                if classes[e] == Some(Var::Remat) {
                    self.remat_closure(e, classes, out);
                }
            }
        }
    }
}

fn add_restore(uses: &mut Uses, name: &Ident, assigned: bool) {
    match uses.restore.iter_mut().find(|(n, _)| n == name) {
        Some(entry) => entry.1 |= assigned,
        None => uses.restore.push((name.clone(), assigned)),
    }
}

fn push_once(list: &mut Vec<Ident>, name: &Ident) {
    if !list.contains(name) {
        list.push(name.clone());
    }
}

/// Writes each piece's group flag and `Uses`, in the walk's order.
fn fill(segs: &mut [Seg], w: &Walk, classes: &[Option<Var>], unit: &mut usize) {
    for s in segs {
        match s {
            Seg::Chunk(c) => {
                c.group = w.group[*unit];
                c.uses = w.uses_of(*unit, classes);
                *unit += 1;
            }
            Seg::If { head, then, els, .. } => {
                fill_head(head, w, classes, unit);
                fill(then, w, classes, unit);
                fill(els, w, classes, unit);
            }
            Seg::While { head, body, .. } | Seg::For { head, body, .. } => {
                fill_head(head, w, classes, unit);
                fill(body, w, classes, unit);
            }
            Seg::Loop { body } => fill(body, w, classes, unit),
        }
    }
}

fn fill_head(head: &mut Head, w: &Walk, classes: &[Option<Var>], unit: &mut usize) {
    head.group = w.group[*unit];
    head.uses = w.uses_of(*unit, classes);
    *unit += 1;
}
