//! The lanes of a `vector(w)` nest: which values differ between its `w` lanes. The OpenCL C
//! emitter runs the lanes as one iteration; a value is then a scalar (the same in every lane),
//! the lane-0 value of an index that steps by one per lane, or a vector. The native emitter
//! (`emit::native::lanes`) keeps uniform values as scalars, affine ones (under
//! [`Plan::exact`]) as lane 0's value, and the others as `[T; w]`.
//!
//! - **Uniform**: the same in every lane (captured values, locals set only from uniform
//!   values, loads at uniform indices). Emitted once, as scalars.
//! - **Affine**: lane `l`'s value is lane 0's plus `l`: the lane counter, the loop value
//!   computed from it, plus or minus uniform values, widened to a 64-bit integer. Emitted as
//!   lane 0's value; only an array index may use it, which makes the access a vector load
//!   or store (contiguous when it is the last index).
//! - **Varying**: anything else computed from a lane-dependent load; a `floatN` or `doubleN`.
//!
//! Locals are classified by name, to a fixed point over the body; a name bound to values of
//! two kinds is varying.
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

#[cfg(test)]
mod test;

use crate::base::ir::visit::shared::{self as visit, Visit};
use crate::base::ir::*;
use std::collections::HashMap;

/// How a value differs between lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The same in every lane.
    Uniform,
    /// Lane 0's value plus the lane number.
    Affine,
    /// Anything else: a vector.
    Varying,
}

impl Kind {
    fn join(self, other: Kind) -> Kind {
        if self == other {
            self
        } else {
            Kind::Varying
        }
    }
}

/// The classification of one `vector(w)` nest's body.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The lane counter.
    pub lane: syn::Ident,
    /// The number of lanes.
    pub width: usize,
    /// Where the annotation was written.
    pub span: proc_macro2::Span,
    /// The locals the body declares, with their kinds.
    locals: HashMap<String, Kind>,
    /// Whether `Affine` must hold exactly, in the value's own type: then a widening cast of
    /// an affine value is varying (see [`Plan::exact`]).
    exact: bool,
    /// The bindings given names of their own, as (new name, name written).
    renamed: Vec<(String, String)>,
}

impl Plan {
    /// The plan of `n`, if it is a `vector(w)` nest.
    pub fn of(n: &Nest) -> Option<Plan> {
        Plan::build(n, false)
    }

    /// The plan of `n` where an affine value must be exactly lane 0's plus the lane number,
    /// wrapping in its own type, for every lane: the native engine computes lane `l`'s value
    /// that way from lane 0's, where `of`'s widening casts hold only while no lane overflows
    /// the narrower type (`(j + 1) as i64` with `j: i32` at `i32::MAX`).
    pub fn exact(n: &Nest) -> Option<Plan> {
        Plan::build(n, true)
    }

    fn build(n: &Nest, exact: bool) -> Option<Plan> {
        let lanes = n.lanes.as_ref()?;
        let lane = n.loops.first()?.var.clone();
        let mut plan = Plan {
            lane,
            width: lanes.width,
            span: lanes.span,
            locals: HashMap::new(),
            exact,
            renamed: lanes.renamed.clone(),
        };
        plan.settle(&n.body);
        Some(plan)
    }

    /// Classifies the body's locals until nothing changes (a loop may carry a lane-dependent
    /// value back to a local set before it).
    fn settle(&mut self, body: &Block) {
        loop {
            let mut walk = Walk {
                plan: self,
                changed: false,
            };
            walk.visit_block(&body);
            if !walk.changed {
                break;
            }
        }
    }

    /// `text` with every name the lanes gave a binding back as the user wrote it.
    pub fn written(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let found = self.renamed.iter().find(|(new, _)| new == word);
            out.push_str(found.map_or(word.as_str(), |(_, old)| old.as_str()));
            word.clear();
        };
        for ch in text.chars() {
            if ch.is_alphanumeric() || ch == '_' {
                word.push(ch);
            } else {
                flush(&mut word, &mut out);
                out.push(ch);
            }
        }
        flush(&mut word, &mut out);
        out
    }

    /// Whether the body declares `name` (values it assigns outside would change per lane).
    pub fn declares(&self, name: &syn::Ident) -> bool {
        self.locals.contains_key(&name.to_string())
    }

    /// The kind of a variable.
    pub fn var(&self, name: &syn::Ident) -> Kind {
        if *name == self.lane {
            return Kind::Affine;
        }
        self.locals
            .get(&name.to_string())
            .copied()
            .unwrap_or(Kind::Uniform)
    }

    /// The kind of an expression's value.
    pub fn kind(&self, e: &Expr) -> Kind {
        use Kind::*;
        match &e.kind {
            ExprKind::Var(v) => self.var(v),
            ExprKind::Lit(_) | ExprKind::Assoc { .. } => Uniform,
            ExprKind::Paren(x) => self.kind(x),
            ExprKind::Binary { op, lhs, rhs } => match (op, self.kind(lhs), self.kind(rhs)) {
                (_, Uniform, Uniform) => Uniform,
                (BinOp::Add, Affine, Uniform) | (BinOp::Add | BinOp::Sub, Uniform, Affine) => {
                    if *op == BinOp::Add {
                        Affine
                    } else {
                        Varying
                    }
                }
                (BinOp::Sub, Affine, Uniform) => Affine,
                _ => Varying,
            },
            ExprKind::Offset { start, count, step } => {
                match (self.kind(start), self.kind(count), step) {
                    (Uniform, Uniform, s) if s.as_deref().is_none_or(|s| self.uniform(s)) => {
                        Uniform
                    }
                    (Uniform, Affine, None) => Affine,
                    _ => Varying,
                }
            }
            ExprKind::Cast { expr, ty } => match (self.kind(expr), ty) {
                (Affine, Ty::Scalar(s)) if widens(*s) && !self.exact => Affine,
                (Affine, _) => Varying,
                (k, _) => k,
            },
            ExprKind::If { cond, then, els } => {
                let mut k = self.kind(cond);
                k = k.join(then.tail.as_deref().map_or(Uniform, |t| self.kind(t)));
                els.as_deref().map_or(k, |x| k.join(self.kind(x)))
            }
            ExprKind::Block(b) => b.tail.as_deref().map_or(Uniform, |t| self.kind(t)),
            _ => {
                let any = e.operands().into_iter().any(|x| !self.uniform(x));
                if any {
                    Varying
                } else {
                    Uniform
                }
            }
        }
    }

    /// Whether `e` is the same in every lane.
    pub fn uniform(&self, e: &Expr) -> bool {
        self.kind(e) == Kind::Uniform
    }

    fn bind(&mut self, name: &syn::Ident, k: Kind) -> bool {
        let key = name.to_string();
        let old = self.locals.get(&key).copied();
        let new = old.map_or(k, |o| o.join(k));
        self.locals.insert(key, new);
        old != Some(new)
    }
}

/// A 64-bit integer target: lane 0's value plus `l` stays the lane's value after the cast,
/// even where the cast wraps (both sides are modulo 2^64; 32-bit `usize` launches are proven
/// to stay in range).
fn widens(s: Scalar) -> bool {
    matches!(s, Scalar::Usize | Scalar::U64 | Scalar::I64 | Scalar::Isize)
}

/// One pass of the classification.
struct Walk<'p> {
    plan: &'p mut Plan,
    changed: bool,
}

impl Visit for Walk<'_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => {
                let k = l.init.as_ref().map_or(Kind::Uniform, |e| self.plan.kind(e));
                let names: Vec<syn::Ident> = match &l.pat {
                    Pat::Ident { name, .. } => vec![name.clone()],
                    Pat::Tuple(list) => list.iter().flatten().map(|(n, _)| n.clone()).collect(),
                };
                let k = if names.len() > 1 && k != Kind::Uniform {
                    Kind::Varying
                } else {
                    k
                };
                for n in &names {
                    self.changed |= self.plan.bind(n, k);
                }
            }
            Stmt::Assign {
                place, value, op, ..
            } => self.assign(place, value, *op),
            Stmt::For { var, .. } => self.changed |= self.plan.bind(var, Kind::Uniform),
            _ => {}
        }
        visit::walk_stmt(self, s);
    }

    fn visit_nest(&mut self, n: &Nest) {
        for l in &n.loops {
            self.changed |= self.plan.bind(&l.var, Kind::Uniform);
        }
        visit::walk_nest(self, n);
    }
}

impl Walk<'_> {
    /// An assignment to a local the body declares. Lane 0's value is all the C holds of a
    /// uniform or affine local, so it keeps its kind only where the new value has it too
    /// (`k = j + 1` keeps an affine `k` affine: every lane still steps by one; the emitter
    /// refuses a branch whose condition differs between lanes, so every lane assigns or none
    /// does); `k += u` with `u` uniform keeps `k`'s kind.
    fn assign(&mut self, place: &Place, value: &Expr, op: Option<BinOp>) {
        let (base, index_varies) = match place {
            Place::Var(v) => (v, false),
            Place::Member { base, path } => {
                let varies = path.iter().any(|s| match s {
                    Step::Elem(e) => !self.plan.uniform(e),
                    Step::Field(_) => false,
                });
                (base, varies)
            }
            Place::Index { .. } => return,
        };
        if !self.plan.declares(base) {
            return;
        }
        let old = self.plan.var(base);
        let new = match (op, self.plan.kind(value)) {
            (None, v) => v,
            (Some(BinOp::Add | BinOp::Sub), Kind::Uniform) => old,
            (Some(_), Kind::Uniform) if old == Kind::Uniform => Kind::Uniform,
            _ => Kind::Varying,
        };
        // A part of a struct or array holds one kind for all its parts: an affine part, or
        // one chosen per lane, makes the whole vary.
        let whole = matches!(place, Place::Var(_));
        let k = match index_varies || (new == Kind::Affine && !whole) {
            true => Kind::Varying,
            false => new,
        };
        self.changed |= self.plan.bind(base, k);
    }
}
