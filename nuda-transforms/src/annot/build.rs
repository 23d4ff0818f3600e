//! Building IR for the transformations: fresh names that clash with nothing the user wrote,
//! new slots, and the counter arithmetic (`usize`) the loops are rewritten over.

use crate::base::ctxt::Ctxt;
use crate::base::ir::visit::shared::{self as visit, Visit};
use crate::base::ir::*;
use proc_macro2::Span;
use std::collections::HashSet;
use syn::Ident;

/// Context of a transformation: errors, slots, taken names.
pub struct Gen<'a> {
    /// Where errors go.
    pub cx: &'a Ctxt,
    /// The next free slot.
    pub slots: &'a mut usize,
    names: HashSet<String>,
    /// Bindings to run once before the transformed nest (`hoist.rs`); `None` where the nest
    /// has no place before it (a `nuwork!` nest).
    pub prelude: Option<Vec<Stmt>>,
    /// Names the nest's body assigns: ranges reading them are evaluated once, in the prelude.
    pub assigned: HashSet<String>,
}

/// Every identifier a block mentions.
struct Names<'s>(&'s mut HashSet<String>);

impl Visit for Names<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(v) => {
                self.0.insert(v.to_string());
            }
            ExprKind::Index { base, .. } => {
                self.0.insert(base.to_string());
            }
            _ => {}
        }
        visit::walk_expr(self, e);
    }
    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(Let {
                named: None,
                pat: Pat::Ident { name, .. },
                ..
            })
            | Stmt::For { var: name, .. } => {
                self.0.insert(name.to_string());
            }
            Stmt::Let(Let {
                named: None,
                pat: Pat::Tuple(list),
                ..
            }) => {
                self.0
                    .extend(list.iter().flatten().map(|(n, _)| n.to_string()));
            }
            _ => {}
        }
        visit::walk_stmt(self, s);
    }
    fn visit_nest(&mut self, n: &Nest) {
        self.0.extend(n.loops.iter().map(|l| l.var.to_string()));
        visit::walk_nest(self, n);
    }
}

impl<'a> Gen<'a> {
    /// A context whose fresh names avoid every name in `nest`; with `prelude`, unstable
    /// range parts are bound before the nest (see `hoist.rs`).
    pub fn new(cx: &'a Ctxt, slots: &'a mut usize, nest: &Nest, prelude: bool) -> Self {
        let mut names = HashSet::new();
        Names(&mut names).visit_nest(&nest);
        let assigned = match prelude {
            true => assigned(nest),
            false => HashSet::new(),
        };
        Gen {
            cx,
            slots,
            names,
            prelude: prelude.then(Vec::new),
            assigned,
        }
    }

    /// A new slot.
    pub fn slot(&mut self) -> Slot {
        *self.slots += 1;
        *self.slots - 1
    }

    /// A name starting with `stem` used nowhere yet, with the span of `like` (so it resolves
    /// in the user's hygiene context).
    pub fn fresh(&mut self, stem: &str, like: &Ident) -> Ident {
        let mut name = stem.to_string();
        let mut k = 1;
        while self.names.contains(&name) {
            name = format!("{stem}_{k}");
            k += 1;
        }
        self.names.insert(name.clone());
        Ident::new(&name, like.span())
    }

    /// A `usize` literal.
    pub fn usize_lit(&self, n: u128, span: Span) -> Expr {
        Expr::new(
            ExprKind::Lit(Lit::Int {
                text: n.to_string(),
                suffix: Some(Scalar::Usize),
            }),
            span,
        )
    }

    /// A variable.
    pub fn var(&self, id: &Ident) -> Expr {
        Expr::new(ExprKind::Var(id.clone()), id.span())
    }

    /// `a op b`, with a slot for arithmetic.
    pub fn bin(&mut self, op: BinOp, a: Expr, b: Expr) -> Expr {
        let span = a.span;
        let slot = op.is_arithmetic().then(|| self.slot());
        Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(a),
                rhs: Box::new(b),
            },
            span,
            slot,
        }
    }

    /// `a.min(b)` or `a.max(b)`.
    pub fn method(&mut self, name: &str, a: Expr, b: Expr) -> Expr {
        let span = a.span;
        let mut recv = a;
        if recv.slot.is_none() {
            recv.slot = Some(self.slot());
        }
        let method = Ident::new(name, span);
        Expr::new(
            ExprKind::Method {
                recv: Box::new(recv),
                method,
                args: vec![b],
                path: None,
            },
            span,
        )
    }

    /// `e as usize`.
    pub fn as_usize(&mut self, e: Expr) -> Expr {
        let span = e.span;
        let mut e = e;
        if e.slot.is_none() {
            e.slot = Some(self.slot());
        }
        Expr::new(
            ExprKind::Cast {
                expr: Box::new(e),
                ty: Ty::Scalar(Scalar::Usize),
            },
            span,
        )
    }

    /// The trip count of `r`, a range of the type of `slot`.
    pub fn trips(&self, r: &Range, slot: Slot) -> Expr {
        Expr::new(ExprKind::Trips(Box::new(r.clone()), slot), r.span)
    }

    /// The value of iteration `count` of a loop over `r`, typed by the loop's `slot`. A
    /// reversed range's iteration `k` is the forward range's `trips - 1 - k`.
    pub fn offset(&mut self, r: &Range, count: Expr, slot: Slot) -> Expr {
        let count = if r.rev {
            let last = self.bin(BinOp::Sub, self.trips(r, slot), self.usize_lit(1, r.span));
            self.bin(BinOp::Sub, last, count)
        } else {
            count
        };
        let kind = ExprKind::Offset {
            start: Box::new(r.start.clone()),
            count: Box::new(count),
            step: r.step.clone().map(Box::new),
        };
        Expr {
            kind,
            span: r.span,
            slot: Some(slot),
        }
    }

    /// A loop `var in start..end` (step `step`) over `usize` counters.
    pub fn counter(&mut self, var: Ident, start: Expr, end: Expr, step: Option<Expr>) -> Loop {
        let span = start.span;
        let range = Range {
            start,
            end,
            inclusive: false,
            step,
            rev: false,
            span,
        };
        Loop {
            var,
            range,
            slot: self.slot(),
        }
    }
}

/// A nest of `loops` around `body`.
pub fn nest(loops: Vec<Loop>, body: Block, span: Span) -> Nest {
    Nest {
        loops,
        body,
        annots: Vec::new(),
        lanes: None,
        stage: None,
        span,
    }
}

/// Names assigned anywhere in a nest's body (`x = ..`, `x += ..`).
pub fn assigned(nest: &Nest) -> HashSet<String> {
    let mut found = Assigned(HashSet::new());
    found.visit_block(&nest.body);
    found.0
}

struct Assigned(HashSet<String>);

impl Visit for Assigned {
    fn visit_place(&mut self, p: &Place) {
        if let Place::Var(v) | Place::Member { base: v, .. } = p {
            self.0.insert(v.to_string());
        }
        visit::walk_place(self, p);
    }
}
