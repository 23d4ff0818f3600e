//! The launch-time proof program of a kernel: the body compiled into `nuda::__private::Op`s,
//! one per integer value it computes and one per check site, which the runtime evaluates
//! over intervals at each launch (see the runtime's `proof`). It decides which checks the
//! launch's program keeps and whether `usize` may be 32-bit.
//!
//! The walk is total: every expression the OpenCL C emitter checks is visited here with the
//! same site, so a site is only ever proved safe from all of its accesses. Variables map to
//! registers; a variable assigned after its `let` is any value of its type (one only divided
//! or shifted right by literals lies between its first value and zero); inside an `if`, a
//! variable compared with a value is refined by the comparison; and a sum with `global_id(d)`
//! in it is also read through `local_id(d)` (`relate.rs`).
//!
//! Stage 6 of the pipeline in `lib.rs` (the launch-time proof).

mod expr;
mod relate;
#[cfg(test)]
mod test;

use crate::base::ir::*;
use crate::base::paths::PRIVATE;
use crate::checks::capture::{Analysis, Context};
use crate::checks::sites::{SiteKind, Sites};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::HashSet;

/// A register of the program: the value of op number `r`.
type Reg = u32;

/// No register.
const NONE: Reg = u32::MAX;

/// Builds a proof program.
pub struct Proof<'a> {
    analysis: &'a Analysis,
    sites: &'a Sites,
    context: Context,
    ops: Vec<TokenStream>,
    scopes: Vec<Vec<(String, Reg)>>,
    /// Names assigned somewhere after their `let`: never refined, any value of their type.
    assigned: HashSet<String>,
    /// Of those, the names only ever divided or shifted right by a literal (`s /= 2`, `s =
    /// s >> 1`): such a variable stays between its first value and zero.
    shrinking: HashSet<String>,
    /// The registers that hold `global_id(d)` or `local_id(d)` (refined or not).
    origins: std::collections::HashMap<Reg, relate::Origin>,
}

impl<'a> Proof<'a> {
    /// A program over the captures of `analysis`, numbering checks through `sites`.
    pub fn new(analysis: &'a Analysis, sites: &'a Sites, context: Context) -> Self {
        Proof {
            analysis,
            sites,
            context,
            ops: Vec::new(),
            scopes: vec![Vec::new()],
            assigned: HashSet::new(),
            shrinking: HashSet::new(),
            origins: Default::default(),
        }
    }

    /// Adds kernel `k` of a `nuwork!`: its mapped loops, then its body.
    pub fn nuwork_kernel(&mut self, k: usize, mapped: &[Loop], body: &Block) {
        self.collect_assigned(body);
        self.scopes.push(Vec::new());
        for (d, l) in mapped.iter().enumerate() {
            let ty = slot_ty(l.slot);
            let r = self.push(quote!(Mapped(#k as u16, #d as u8, #ty)));
            self.bind(&l.var, r);
        }
        self.body(body);
        self.scopes.pop();
    }

    /// Adds a `#[nukernel]` body.
    pub fn kernel(&mut self, body: &Block) {
        self.collect_assigned(body);
        self.body(body);
    }

    /// Adds a `#[nucode]` function's body, each parameter any value of its type: the
    /// runtime runs it to see whether the function's `usize` values fit 32 bits.
    pub fn function(&mut self, params: &[(syn::Ident, Ty)], body: &Block) {
        self.collect_assigned(body);
        for (name, ty) in params {
            let t = written_ty(*ty);
            let r = self.push(quote!(Var(#t)));
            self.bind(name, r);
        }
        self.body(body);
    }

    /// The program as `[Op; N] = [..]`, to follow `static NAME:`.
    pub fn tokens(&self) -> TokenStream {
        let ops = &self.ops;
        let n = ops.len();
        let op = quote!(#PRIVATE::Op);
        quote!([#op; #n] = [#(#op::#ops),*])
    }

    fn push(&mut self, op: TokenStream) -> Reg {
        self.ops.push(op);
        (self.ops.len() - 1) as Reg
    }

    fn bind(&mut self, name: &syn::Ident, r: Reg) {
        if let Some(s) = self.scopes.last_mut() {
            s.push((name.to_string(), r));
        }
    }

    fn lookup(&self, name: &syn::Ident) -> Option<Reg> {
        let key = name.to_string();
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.iter().rev().find(|(n, _)| *n == key).map(|(_, r)| *r))
    }

    fn capture(&self, name: &syn::Ident) -> Option<u16> {
        self.analysis
            .captures
            .iter()
            .position(|c| c.name == *name)
            .map(|k| k as u16)
    }

    fn site(&self, kind: SiteKind, name: &str, rank: usize, span: Span) -> u32 {
        self.sites.intern(kind, name, rank, span) as u32
    }

    fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.scopes.push(Vec::new());
        let r = f(self);
        self.scopes.pop();
        r
    }

    fn collect_assigned(&mut self, b: &Block) {
        use crate::base::ir::visit::shared::{walk_stmt, Visit};
        /// The assigned names, and those assigned in another way than a shrinking one.
        struct Assigned<'s>(&'s mut HashSet<String>, HashSet<String>);
        impl Visit for Assigned<'_> {
            fn visit_stmt(&mut self, s: &Stmt) {
                if let Stmt::Assign {
                    place: Place::Var(v) | Place::Member { base: v, .. },
                    ..
                } = s
                {
                    self.0.insert(v.to_string());
                    if !shrinks(s) {
                        self.1.insert(v.to_string());
                    }
                }
                walk_stmt(self, s);
            }
        }
        let mut a = Assigned(&mut self.assigned, HashSet::new());
        a.visit_block(b);
        let other = a.1;
        self.shrinking = (self.assigned.iter())
            .filter(|v| !other.contains(*v))
            .cloned()
            .collect();
    }

    fn body(&mut self, b: &Block) {
        self.stmts(&b.stmts);
        if let Some(t) = &b.tail {
            self.expr(t);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    /// A block's value register, in its own scope.
    fn block(&mut self, b: &Block) -> Reg {
        self.scoped(|p| {
            p.stmts(&b.stmts);
            match &b.tail {
                Some(t) => p.expr(t),
                None => p.push(quote!(Top)),
            }
        })
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => self.let_stmt(l),
            Stmt::Assign {
                place,
                op,
                value,
                slot,
                span,
            } => self.assign(place, op.zip(*slot), value, *span),
            Stmt::Expr(e) => {
                self.expr(e);
            }
            Stmt::While { cond, body, .. } => {
                self.expr(cond);
                self.block(body);
            }
            Stmt::Loop { body, .. } => {
                self.block(body);
            }
            Stmt::For {
                var,
                slot,
                range,
                body,
                ..
            } => self.scoped(|p| {
                let r = p.range(range, *slot);
                p.bind(var, r);
                p.block(body);
            }),
            Stmt::Nest(n) => self.nest(&n.loops, &n.body),
            Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(None, _) => {}
            Stmt::Return(Some(e), _) => {
                self.expr(e);
            }
        }
    }

    fn nest(&mut self, loops: &[Loop], body: &Block) {
        match loops.split_first() {
            None => {
                self.block(body);
            }
            Some((l, rest)) => self.scoped(|p| {
                let r = p.range(&l.range, l.slot);
                p.bind(&l.var, r);
                p.nest(rest, body);
            }),
        }
    }

    /// A loop variable's values, and the step check the OpenCL C makes for counted loops.
    fn range(&mut self, r: &Range, slot: Slot) -> Reg {
        let (start, end) = (self.expr(&r.start), self.expr(&r.end));
        let step = r.step.as_ref().map_or(NONE, |s| self.expr(s));
        if r.step.is_some() || r.inclusive || r.rev {
            let site = self.site(SiteKind::Step, "", 0, r.span);
            self.push(quote!(Step { site: #site, step: #step }));
        }
        let (incl, ty, line) = (r.inclusive, slot_ty(slot), line(r.span));
        self.push(quote!(Range { start: #start, end: #end, step: #step, incl: #incl, ty: #ty, line: #line }))
    }

    fn let_stmt(&mut self, l: &Let) {
        let init = l.init.as_ref().map(|e| (e, self.expr(e)));
        match &l.pat {
            Pat::Ident { name, .. } => {
                let ty = l.ty.map_or_else(|| slot_ty(l.slots[0]), written_ty);
                let name_s = name.to_string();
                let r = match init {
                    Some((_, r)) if !self.assigned.contains(&name_s) => r,
                    // Each value is the last divided or shifted toward zero (a division
                    // truncates, an arithmetic shift stops at -1), so every value lies
                    // between the first and zero, both included.
                    Some((_, r)) if self.shrinking.contains(&name_s) => {
                        let zero = self.push(quote!(Lit(0, #ty)));
                        self.push(quote!(Hull(#r, #zero)))
                    }
                    _ => self.push(quote!(Var(#ty))),
                };
                self.bind(name, r);
            }
            Pat::Tuple(names) => {
                let parts = self.tuple_parts(init.map(|(e, _)| e), names.len());
                for (n, r) in names.iter().zip(parts) {
                    if let Some((id, _)) = n {
                        let r = match self.assigned.contains(&id.to_string()) {
                            true => self.push(quote!(Top)),
                            false => r,
                        };
                        self.bind(id, r);
                    }
                }
            }
        }
    }

    /// The registers of `let (a, b) = init;`: a tuple's items, or an array's dims.
    fn tuple_parts(&mut self, init: Option<&Expr>, n: usize) -> Vec<Reg> {
        match init.map(|e| &e.kind) {
            Some(ExprKind::Tuple(items)) => items.iter().map(|x| self.expr(x)).collect(),
            Some(ExprKind::Method { recv, method, .. }) if method == "dims" => {
                let cap = match &recv.kind {
                    ExprKind::Var(v) => self.capture(v),
                    _ => None,
                };
                (0..n)
                    .map(|d| match cap {
                        Some(c) => self.push(quote!(Dim(#c, #d as u8))),
                        None => self.push(quote!(Top)),
                    })
                    .collect()
            }
            _ => (0..n).map(|_| self.push(quote!(Top))).collect(),
        }
    }

    fn assign(&mut self, place: &Place, op: Option<(BinOp, Slot)>, value: &Expr, span: Span) {
        let v = self.expr(value);
        let old = match place {
            Place::Var(name) => self.lookup(name).unwrap_or(NONE),
            // A struct's fields and an array's elements are not tracked: the local is
            // unknown (`Top`) throughout. Their indices may read captured arrays.
            Place::Member { .. } => {
                for i in place.indices() {
                    self.expr(i);
                }
                return;
            }
            Place::Index { base, index } => {
                let Some(cap) = self.capture(base) else {
                    return;
                };
                let idx = self.index_regs(index);
                let site = self.site(SiteKind::Write, &base.to_string(), index.len(), span);
                self.push(quote!(Index { site: #site, cap: #cap, idx: [#(#idx),*] }));
                self.push(quote!(Elem(#cap)))
            }
        };
        if let Some((op, slot)) = op {
            self.binary(op, old, v, slot_ty(slot), span);
        }
    }

    /// The index registers, padded with [`NONE`] to three.
    fn index_regs(&mut self, index: &[Expr]) -> Vec<Reg> {
        let mut regs: Vec<Reg> = index.iter().map(|x| self.expr(x)).collect();
        regs.resize(3, NONE);
        regs
    }
}

/// `Ty::Slot(k)`.
pub(super) fn slot_ty(k: Slot) -> TokenStream {
    let k = k as u32;
    quote!(#PRIVATE::Ty::Slot(#k))
}

/// The type a source wrote.
fn written_ty(t: Ty) -> TokenStream {
    match t {
        Ty::Slot(k) => slot_ty(k),
        t => cl_ty(t.cl_name()),
    }
}

/// `Ty::Cl(name)`.
fn cl_ty(name: &str) -> TokenStream {
    quote!(#PRIVATE::Ty::Cl(#name))
}

/// The source line of a span, for the proof's reasons.
fn line(span: Span) -> u32 {
    span.start().line as u32
}

/// Whether assignment `s` moves its variable toward zero: `v /= c` with a literal `c >= 1`,
/// `v >>= c` with a literal `c`, or the same written `v = v / c`, `v = v >> c`.
fn shrinks(s: &Stmt) -> bool {
    let Stmt::Assign {
        place: Place::Var(v),
        op,
        value,
        ..
    } = s
    else {
        return false;
    };
    let (op, by) = match (op, &value.kind) {
        (Some(op), _) => (*op, value),
        (None, ExprKind::Binary { op, lhs, rhs }) => match &lhs.kind {
            ExprKind::Var(x) if x == v => (*op, &**rhs),
            _ => return false,
        },
        _ => return false,
    };
    let lit = match &by.kind {
        ExprKind::Lit(Lit::Int { text, .. }) => text.parse::<u128>().ok(),
        _ => None,
    };
    match (op, lit) {
        (BinOp::Div, Some(c)) => c >= 1,
        (BinOp::Shr, Some(_)) => true,
        _ => false,
    }
}
