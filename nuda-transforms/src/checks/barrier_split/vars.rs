//! Variables that live from one piece of a split body to a later one (layer: checks over the
//! IR): which are the group's, which are recomputed, which are kept per work-item, and which
//! chunks the group can still run once given that. See `README.md` beside this file.

use super::scan::{pat_names, Scan};
use super::{Chunk, Seg, Uses, Var, Why};
use crate::base::ir::*;
use proc_macro2::Ident;
use std::collections::{BTreeSet, HashMap};

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
pub fn settle(segs: &mut [Seg], body: &Block) -> Result<Vec<(Ident, Var, usize)>, Why> {
    let mut w = Walk::default();
    w.segs(segs);
    for (_, d) in w.decls.iter().enumerate().filter(|(k, _)| w.cross(*k)) {
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
    let counts = binding_counts(body);
    let mut unit = 0;
    fill(segs, &w, &classes, &counts, &mut unit)?;
    let vars = (w.decls.iter().enumerate())
        .filter_map(|(k, d)| classes[k].clone().map(|c| (d.name.clone(), c, k)))
        .collect();
    Ok(vars)
}

/// Why a piece cannot restore its variables by name: another binding of the name is in the way.
const SHADOWED: Why = "a variable that lives across a barrier and shares its name with another binding where the split needs it";

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
                Seg::Loop { body } | Seg::Block { body } => self.segs(body),
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
        let mut remat = BTreeSet::new();
        for u in self.uses.iter().filter(|u| u.unit == unit) {
            let d = &self.decls[u.decl];
            match &classes[u.decl] {
                Some(Var::Remat) if d.unit != unit => {
                    self.remat_closure(u.decl, classes, &mut remat)
                }
                Some(Var::Slot) if d.unit != unit => add_restore(&mut uses, d, u),
                _ => {}
            }
        }
        for (k, d) in self.decls.iter().enumerate() {
            if d.unit == unit && classes[k] == Some(Var::Slot) {
                push_once(&mut uses.save, (d.name.clone(), k));
            }
        }
        let restored: Vec<(Ident, usize)> = (uses.restore.iter().filter(|r| r.1))
            .map(|r| (r.0.clone(), r.2))
            .collect();
        restored
            .into_iter()
            .for_each(|r| push_once(&mut uses.save, r));
        uses.remat = remat.iter().map(|&k| self.decls[k].let_.clone()).collect();
        uses
    }

    /// Whether restoring `uses` by name in `unit` could reach the wrong binding: a
    /// recomputed `let` whose name the piece also uses for a binding outside it, or a
    /// per-item variable whose name the piece binds again at its top level.
    fn shadowed(&self, unit: usize, uses: &Uses, counts: &HashMap<String, usize>) -> bool {
        let own: Vec<&Decl> = self.decls.iter().filter(|d| d.unit == unit).collect();
        let outside = |name: &Ident, decl: usize| {
            self.uses.iter().any(|u| {
                u.unit == unit
                    && u.decl != decl
                    && self.decls[u.decl].unit != unit
                    && self.decls[u.decl].name == *name
            })
        };
        let remat = uses.remat.iter().any(|l| {
            pat_names(&l.pat).iter().any(|(n, _)| {
                let k = self.decl_of(l, n);
                outside(n, k) || (self.group[unit] && counts.get(&n.to_string()) > Some(&1))
            })
        });
        let names =
            (uses.restore.iter().map(|r| (&r.0, r.2))).chain(uses.save.iter().map(|s| (&s.0, s.1)));
        let rebinds = |(n, k): (&Ident, usize)| {
            own.iter().filter(|d| d.name == *n).count() > usize::from(self.decls[k].unit == unit)
                || outside(n, k)
        };
        remat || names.into_iter().any(rebinds)
    }

    /// The number of the binding of `name` that `l` makes.
    fn decl_of(&self, l: &Let, name: &Ident) -> usize {
        (self.decls.iter())
            .position(|d| d.name == *name && d.let_.span.start() == l.span.start())
            .unwrap_or(usize::MAX)
    }

    /// Binding `k` and the recomputed bindings its value needs.
    fn remat_closure(&self, k: usize, classes: &[Option<Var>], out: &mut BTreeSet<usize>) {
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

fn add_restore(uses: &mut Uses, d: &Decl, u: &Use) {
    match uses.restore.iter_mut().find(|r| r.2 == u.decl) {
        Some(entry) => entry.1 |= u.assigned,
        None => uses.restore.push((d.name.clone(), u.assigned, u.decl)),
    }
}

fn push_once(list: &mut Vec<(Ident, usize)>, item: (Ident, usize)) {
    if !list.iter().any(|x| x.1 == item.1) {
        list.push(item);
    }
}

type Classes<'a> = (&'a Walk, &'a [Option<Var>], &'a HashMap<String, usize>);

/// Writes each piece's group flag and `Uses`, in the walk's order.
fn fill(
    segs: &mut [Seg],
    w: &Walk,
    classes: &[Option<Var>],
    counts: &HashMap<String, usize>,
    unit: &mut usize,
) -> Result<(), Why> {
    let cx: Classes = (w, classes, counts);
    for s in segs {
        match s {
            Seg::Chunk(c) => (c.group, c.uses) = piece(cx, unit)?,
            Seg::If {
                head, then, els, ..
            } => {
                (head.group, head.uses) = piece(cx, unit)?;
                fill(then, w, classes, counts, unit)?;
                fill(els, w, classes, counts, unit)?;
            }
            Seg::While { head, body, .. } | Seg::For { head, body, .. } => {
                (head.group, head.uses) = piece(cx, unit)?;
                fill(body, w, classes, counts, unit)?;
            }
            Seg::Loop { body } | Seg::Block { body } => fill(body, w, classes, counts, unit)?,
        }
    }
    Ok(())
}

/// The next piece's group flag and `Uses`.
fn piece((w, classes, counts): Classes, unit: &mut usize) -> Result<(bool, Uses), Why> {
    let uses = w.uses_of(*unit, classes);
    if w.shadowed(*unit, &uses, counts) {
        return Err(SHADOWED);
    }
    *unit += 1;
    Ok((w.group[*unit - 1], uses))
}
