//! Expressions in the proof program, and the refinement of variables by branch conditions.

use super::{cl_ty, line, slot_ty, written_ty, Proof, Reg, NONE};
use crate::base::ir::builtins::{builtin_of, FnKind, MethodKind, ProofRule};
use crate::base::ir::*;
use crate::base::paths::PRIVATE;
use crate::checks::capture::Context;
use crate::checks::sites::SiteKind;
use nuda_abi::proof::{Bin, Cmp};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// The proof's operator for an arithmetic operator; comparisons and logic are `Bool`.
fn proof_bin(op: BinOp) -> Bin {
    use BinOp::*;
    match op {
        Add => Bin::Add,
        Sub => Bin::Sub,
        Mul => Bin::Mul,
        Div => Bin::Div,
        Rem => Bin::Rem,
        BitAnd => Bin::And,
        BitOr => Bin::Or,
        BitXor => Bin::Xor,
        Shl => Bin::Shl,
        Shr => Bin::Shr,
        And | Or | Eq | Ne | Lt | Le | Gt | Ge => Bin::Bool,
    }
}

/// A comparison, and what its negation establishes.
fn cmp_of(op: BinOp, truth: bool) -> Option<Cmp> {
    use BinOp::*;
    Some(match (op, truth) {
        (Lt, true) | (Ge, false) => Cmp::Lt,
        (Le, true) | (Gt, false) => Cmp::Le,
        (Gt, true) | (Le, false) => Cmp::Gt,
        (Ge, true) | (Lt, false) => Cmp::Ge,
        (Eq, true) | (Ne, false) => Cmp::Eq,
        _ => return None,
    })
}

impl Proof<'_> {
    /// The register of an expression's value, after the ops of its checks.
    pub(super) fn expr(&mut self, e: &Expr) -> Reg {
        match &e.kind {
            ExprKind::Lit(l) => self.lit(l, e.slot),
            ExprKind::Assoc { ty, name } => self.assoc(*ty, &name.to_string()),
            ExprKind::Var(v) => self.var(v, e.slot),
            ExprKind::Member { base, .. } => {
                self.expr(base);
                self.loaded(e.slot)
            }
            ExprKind::Struct { fields, rest, .. } => {
                for v in fields.iter().map(|f| &f.1).chain(rest.as_deref()) {
                    self.expr(v);
                }
                self.push(quote!(Top))
            }
            ExprKind::Unary { op, expr } => {
                let a = self.expr(expr);
                let (neg, ty, l) = (*op == UnOp::Neg, self.ty_of(e), line(e.span));
                self.push(quote!(Un(#neg, #a, #ty, #l)))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.expr(lhs), self.expr(rhs));
                let ty = self.ty_of(e);
                let plain = self.binary(*op, a, b, ty.clone(), e.span);
                match op {
                    BinOp::Add => self.related_sum(a, b, ty, plain, e.span),
                    _ => plain,
                }
            }
            ExprKind::Cast { expr, ty } => {
                let a = self.expr(expr);
                let (t, l) = (written_ty(*ty), line(e.span));
                self.push(quote!(Cast(#a, #t, #l)))
            }
            ExprKind::Index { base, index } => self.read(base, index, e.span),
            ExprKind::Call { func, args } => self.call(func, args),
            ExprKind::Method {
                recv, method, args, ..
            } => self.method(recv, method, args, e.span),
            ExprKind::If { cond, then, els } => self.if_value(cond, then, els.as_deref()),
            ExprKind::Block(b) => self.block(b),
            ExprKind::Paren(x) => self.expr(x),
            ExprKind::Tuple(items) | ExprKind::Array(items) => {
                items.iter().for_each(|x| {
                    self.expr(x);
                });
                self.push(quote!(Top))
            }
            ExprKind::Field { base, index } => self.field(base, *index),
            ExprKind::At { base, index } => {
                self.expr(base);
                self.expr(index);
                self.loaded(e.slot)
            }
            ExprKind::Repeat { value, .. } => {
                self.expr(value);
                self.push(quote!(Top))
            }
            ExprKind::Trips(r, _) => self.trips(r),
            ExprKind::Offset { start, count, step } => {
                let (a, k) = (self.expr(start), self.expr(count));
                let s = step.as_ref().map_or(NONE, |s| self.expr(s));
                let (ty, l) = (self.ty_of(e), line(e.span));
                self.push(quote!(Offset { start: #a, count: #k, step: #s, ty: #ty, line: #l }))
            }
        }
    }

    /// An expression's type: its slot, or unknown (`Top` then follows).
    fn ty_of(&self, e: &Expr) -> TokenStream {
        match e.slot {
            Some(s) => slot_ty(s),
            None => cl_ty("?"),
        }
    }

    fn lit(&mut self, l: &Lit, slot: Option<Slot>) -> Reg {
        let (text, suffix) = match l {
            Lit::Bool(b) => {
                let v = i128::from(*b);
                let t = cl_ty("bool");
                return self.push(quote!(Lit(#v, #t)));
            }
            Lit::Float { .. } => return self.push(quote!(Top)),
            Lit::Int { text, suffix } => (text, suffix),
        };
        let Ok(v) = text.parse::<u128>().map(|v| v.min(1 << 120) as i128) else {
            return self.push(quote!(Top));
        };
        let ty = match (slot, suffix) {
            (Some(s), _) => slot_ty(s),
            (None, Some(t)) => written_ty(Ty::Scalar(*t)),
            (None, None) => cl_ty("?"),
        };
        self.push(quote!(Lit(#v, #ty)))
    }

    /// `T::MIN`, `T::MAX`, `T::BITS` of integers; floats' constants are not followed.
    fn assoc(&mut self, ty: Scalar, name: &str) -> Reg {
        if ty.is_float() {
            return self.push(quote!(Top));
        }
        let max = ty.max_value() as i128;
        let (v, t) = match name {
            "BITS" => (i128::from(ty.bits()), cl_ty("uint")),
            "MAX" => (max, written_ty(Ty::Scalar(ty))),
            _ if ty.is_signed() => (-max - 1, written_ty(Ty::Scalar(ty))),
            _ => (0, written_ty(Ty::Scalar(ty))),
        };
        self.push(quote!(Lit(#v, #t)))
    }

    /// A variable: its register in scope, a captured scalar's value, or else (a scan or
    /// reduction variable's running value, a push's counter) any value of its type.
    fn var(&mut self, v: &syn::Ident, slot: Option<Slot>) -> Reg {
        if let Some(r) = self.lookup(v) {
            return r;
        }
        match (self.capture(v), slot) {
            (Some(k), _) => self.push(quote!(Scalar(#k))),
            (None, Some(t)) => {
                let t = super::slot_ty(t);
                self.push(quote!(Var(#t)))
            }
            (None, None) => self.push(quote!(Top)),
        }
    }

    /// `a op b` of type `ty`; a division also checks its divisor at its site.
    pub(super) fn binary(&mut self, op: BinOp, a: Reg, b: Reg, ty: TokenStream, span: Span) -> Reg {
        if matches!(op, BinOp::Div | BinOp::Rem) {
            let kind = if op == BinOp::Div {
                SiteKind::Divide
            } else {
                SiteKind::Remainder
            };
            let site = self.site(kind, "", 0, span);
            self.push(quote!(Divide { site: #site, a: #a, b: #b, ty: #ty }));
        }
        let bin = proof_bin(op);
        let (name, l) = (format_ident!("{}", bin.name()), line(span));
        let ty = if bin == Bin::Bool { cl_ty("bool") } else { ty };
        self.push(quote!(Bin(#PRIVATE::Bin::#name, #a, #b, #ty, #l)))
    }

    /// `a[i]`: the check of the read, then any value of the element type.
    fn read(&mut self, base: &syn::Ident, index: &[Expr], span: Span) -> Reg {
        let idx = self.index_regs(index);
        let Some(cap) = self.capture(base) else {
            return self.push(quote!(Top));
        };
        let site = self.site(SiteKind::Read, &base.to_string(), index.len(), span);
        self.push(quote!(Index { site: #site, cap: #cap, idx: [#(#idx),*] }));
        self.push(quote!(Elem(#cap)))
    }

    fn call(&mut self, func: &syn::Path, args: &[Expr]) -> Reg {
        let regs: Vec<Reg> = args.iter().map(|a| self.expr(a)).collect();
        let item = match builtin_of(func).map(|f| f.kind) {
            Some(FnKind::WorkItem { item, .. }) => item,
            _ => return self.push(quote!(Top)),
        };
        if self.context != Context::Kernel {
            return self.push(quote!(Top));
        }
        let d = regs.first().copied().unwrap_or(NONE);
        let name = format_ident!("{}", item);
        let r = self.push(quote!(Item(#PRIVATE::Item::#name, #d)));
        let dim = match args.first().map(|a| &a.kind) {
            Some(ExprKind::Lit(Lit::Int { text, .. })) => text.parse::<u128>().ok(),
            _ => None,
        };
        if let (Some(dim), "GlobalId" | "LocalId") = (dim, item) {
            let global = item == "GlobalId";
            (self.origins).insert(
                r,
                super::relate::Origin {
                    global,
                    dim,
                    dim_reg: d,
                },
            );
        }
        r
    }

    fn method(&mut self, recv: &Expr, method: &syn::Ident, args: &[Expr], span: Span) -> Reg {
        let Some(kind) = MethodKind::of(&method.to_string()) else {
            return self.push(quote!(Top));
        };
        // The table's `proof` column says what is known of the value.
        let rule = kind.spec().proof;
        if rule == ProofRule::Memory {
            return self.memory(recv, kind, args, span);
        }
        let a = self.expr(recv);
        let regs: Vec<Reg> = args.iter().map(|x| self.expr(x)).collect();
        let b = regs.first().copied().unwrap_or(NONE);
        let (ty, l) = (self.ty_of(recv), line(span));
        match rule {
            ProofRule::MinMax(max) => self.push(quote!(MinMax(#max, #a, #b))),
            ProofRule::Abs => self.push(quote!(Abs(#a, #ty, #l))),
            ProofRule::Binary(op) => self.binary(op, a, b, ty, span),
            ProofRule::Divides => {
                self.binary(BinOp::Div, a, b, ty, span);
                self.push(quote!(Top))
            }
            ProofRule::Bits => self.push(quote!(Bits(#ty, #l))),
            ProofRule::Width => self.push(quote!(Rotate(#ty, #l))),
            ProofRule::Top | ProofRule::Memory => self.push(quote!(Top)),
        }
    }

    /// `.dims()`, `.len()`, `img.read(..)`, and `img.write(..)`'s check.
    fn memory(&mut self, recv: &Expr, kind: MethodKind, args: &[Expr], span: Span) -> Reg {
        if let (true, ExprKind::Var(base)) = (kind.is_atomic(), &recv.kind) {
            return self.atomic(base, args, span);
        }
        let regs: Vec<Reg> = args.iter().map(|x| self.expr(x)).collect();
        let (name, cap) = match &recv.kind {
            ExprKind::Var(v) => (v.to_string(), self.capture(v)),
            _ => (String::new(), None),
        };
        let Some(cap) = cap else {
            return self.push(quote!(Top));
        };
        match kind {
            MethodKind::Dims => self.push(quote!(Dim(#cap, 0))),
            MethodKind::Len => self.push(quote!(Len(#cap))),
            MethodKind::Write => {
                let site = self.site(SiteKind::ImageWrite, &name, 2, span);
                let (x, y) = (regs[0], regs[1]);
                self.push(quote!(Image { site: #site, cap: #cap, x: #x, y: #y }))
            }
            _ => self.push(quote!(Top)),
        }
    }

    /// An atomic's index, checked as a write of the array is; its value is the element's.
    fn atomic(&mut self, base: &syn::Ident, args: &[Expr], span: Span) -> Reg {
        let (index, values) = crate::emit::cl::atomic_args(args);
        values.iter().for_each(|v| {
            self.expr(v);
        });
        let idx = self.index_regs(index);
        let Some(cap) = self.capture(base) else {
            return self.push(quote!(Top));
        };
        let site = self.site(SiteKind::Write, &base.to_string(), index.len(), span);
        self.push(quote!(Index { site: #site, cap: #cap, idx: [#(#idx),*] }));
        self.push(quote!(Elem(#cap)))
    }

    /// A value read from a struct's field or a private array: any value of its type (slot);
    /// a `usize` there, from memory, needs the launch's 64-bit `usize`.
    fn loaded(&mut self, slot: Option<Slot>) -> Reg {
        match slot {
            Some(k) => {
                let t = super::slot_ty(k);
                self.push(quote!(Loaded(#t)))
            }
            None => self.push(quote!(Top)),
        }
    }

    fn field(&mut self, base: &Expr, index: u32) -> Reg {
        if let ExprKind::Method { recv, method, .. } = &base.kind {
            if let (ExprKind::Var(v), true) = (&recv.kind, method == "dims") {
                if let Some(cap) = self.capture(v) {
                    let d = index as u8;
                    return self.push(quote!(Dim(#cap, #d)));
                }
            }
        }
        self.expr(base);
        self.push(quote!(Top))
    }

    fn trips(&mut self, r: &Range) -> Reg {
        let (start, end) = (self.expr(&r.start), self.expr(&r.end));
        let step = r.step.as_ref().map_or(NONE, |s| self.expr(s));
        let site = self.site(SiteKind::Step, "", 0, r.span);
        self.push(quote!(Step { site: #site, step: #step }));
        let (incl, l) = (r.inclusive, line(r.span));
        self.push(quote!(Trips { site: #site, start: #start, end: #end, step: #step, incl: #incl, line: #l }))
    }

    /// `if`/`else` as a value: each branch sees the condition, refined, and the value is
    /// either branch's.
    fn if_value(&mut self, cond: &Expr, then: &Block, els: Option<&Expr>) -> Reg {
        self.expr(cond);
        let t = self.scoped(|p| {
            p.refine(cond, true);
            p.block(then)
        });
        let f = self.scoped(|p| {
            p.refine(cond, false);
            match els {
                Some(e) => p.expr(e),
                None => p.push(quote!(Top)),
            }
        });
        self.push(quote!(Hull(#t, #f)))
    }

    /// Binds, in the current scope, the variables `cond` (when `truth`) bounds.
    fn refine(&mut self, cond: &Expr, truth: bool) {
        match &cond.kind {
            ExprKind::Paren(x) => self.refine(x, truth),
            ExprKind::Unary {
                op: UnOp::Not,
                expr,
            } => self.refine(expr, !truth),
            ExprKind::Binary { op, lhs, rhs } => match (op, truth) {
                (BinOp::And, true) | (BinOp::Or, false) => {
                    self.refine(lhs, truth);
                    self.refine(rhs, truth);
                }
                _ => self.compare(*op, lhs, rhs, truth),
            },
            _ => {}
        }
    }

    fn compare(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, truth: bool) {
        let Some(c) = cmp_of(op, truth) else {
            return;
        };
        for (var, other, c) in [(lhs, rhs, c), (rhs, lhs, c.flip())] {
            let ExprKind::Var(v) = &var.kind else {
                continue;
            };
            let Some(r) = self
                .lookup(v)
                .filter(|_| !self.assigned.contains(&v.to_string()))
            else {
                continue;
            };
            let o = self.expr(other);
            let c = format_ident!("{}", c.name());
            let refined = self.push(quote!(Refine(#r, #PRIVATE::Cmp::#c, #o)));
            // A refined id is still the same id.
            if let Some(origin) = self.origins.get(&r).copied() {
                self.origins.insert(refined, origin);
            }
            self.bind(v, refined);
        }
    }
}
