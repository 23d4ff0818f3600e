//! `vector(w)` lanes on the native engine (layer: emitters, native Rust).
//!
//! The plain form of a lane nest is `for l in 0..w { body }`: each lane runs the whole body,
//! inner loops included, so LLVM sees one scalar lane at a time and vectorises nothing (nbody's
//! `vector(16)` ran at 17 GFLOP/s natively, against 263 on PoCL). Here the body is turned inside
//! out, as OpenCL C's `floatN` form is: statement by statement, each over all `w` lanes.
//!
//! - A varying local (`lanes::Plan`) becomes `[T; w]`, set by `core::array::from_fn` or a
//!   `for __nuda_l in 0..w` loop; a uniform one stays a scalar. Loops and branches whose heads
//!   are uniform stay as they are, with their bodies turned the same way.
//! - An affine local (lane `l`'s value is lane 0's plus `l`, exactly: `Plan::exact`) stays a
//!   scalar, lane 0's value, and lane `l` reads it as `offset(x, l, 1)`. Then LLVM sees that
//!   the lanes' indices are consecutive and loads and stores whole vectors. As `[usize; w]`
//!   it did not always see it: sgemm's `dmine(8, 1), vector(8)` gathered its loads of `b`
//!   lane by lane and ran at half the speed.
//! - Uniform subexpressions that are not plain names (loads at uniform indices, calls) are
//!   evaluated once before a statement's lanes, so the lane loop is straight-line arithmetic
//!   over arrays, which LLVM vectorises. Nothing is lifted out of a branch or a short-circuit
//!   operand, where it might not run.
//!
//! Each lane computes exactly what the plain loop computes, in the same order within the lane;
//! only the interleaving of lanes changes, which `nfor!`'s independent iterations allow (the
//! OpenCL C form interleaves them the same way). Anything outside this subset (a `let` without
//! a value, a tuple pattern with a written type, a varying place other than a local or an
//! array element, a block with statements inside a lane expression) makes the whole nest fall
//! back to the plain loop, which is always right.

use super::RustEmitter;
use crate::base::ir::builtins::{builtin_of, NativeFn};
use crate::base::ir::*;
use crate::base::paths::NUDA;
use crate::checks::lanes::{Kind, Plan};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// The state of one lane nest's emission.
pub(super) struct LaneCx {
    pub(super) plan: Plan,
    /// The loop depth of the nest's body: `break`/`continue` are only kept inside loops
    /// nested in it, whose heads are uniform.
    depth: usize,
    /// Inside one lane's expression, where varying names are indexed by `__nuda_l`.
    pub(super) per_lane: bool,
    /// Lifted uniform values of the statement being emitted, as `let`s.
    hoisted: Vec<TokenStream>,
    /// Inside a branch or a short-circuit operand, from which nothing is lifted.
    pub(super) guarded: usize,
    /// Set where the nest leaves the subset this form covers.
    failed: bool,
    /// Lifted values numbered so far.
    next: usize,
}

/// The lane counter of the turned form.
fn lane_ident() -> syn::Ident {
    format_ident!("__nuda_l")
}

impl RustEmitter<'_> {
    /// A `vector(w)` nest on the native engine: its lanes side by side where the body allows,
    /// else the plain lane loop.
    pub(super) fn lane_nest(&mut self, n: &Nest) -> TokenStream {
        let Some(plan) = Plan::exact(n).filter(|_| lane_loop_is_plain(n)) else {
            return self.nest(&n.loops, &n.body);
        };
        self.depth += 1;
        let cx = LaneCx {
            plan,
            depth: self.depth,
            per_lane: false,
            hoisted: Vec::new(),
            guarded: 0,
            failed: false,
            next: 0,
        };
        let saved = self.lane_cx.replace(cx);
        let body = self.lane_block(&n.body);
        let cx = std::mem::replace(&mut self.lane_cx, saved);
        self.depth -= 1;
        match cx.is_some_and(|c| !c.failed) {
            true => quote!({ #body }),
            false => self.nest(&n.loops, &n.body),
        }
    }

    fn lane_fail(&mut self) {
        if let Some(cx) = &mut self.lane_cx {
            cx.failed = true;
        }
    }

    fn lane_plan(&self) -> &Plan {
        &self.lane_cx.as_ref().expect("inside a lane nest").plan
    }

    pub(super) fn lane_width(&self) -> TokenStream {
        let w = self.lane_plan().width;
        let lit = syn::LitInt::new(&format!("{w}usize"), Span::call_site());
        quote!(#lit)
    }

    /// A block's statements, each over all lanes; a tail value is outside the subset.
    fn lane_block(&mut self, b: &Block) -> TokenStream {
        if b.tail.is_some() {
            self.lane_fail();
        }
        let stmts: Vec<TokenStream> = b.stmts.iter().map(|s| self.lane_stmt(s)).collect();
        quote!(#(#stmts)*)
    }

    fn lane_looped(&mut self, b: &Block) -> TokenStream {
        self.depth += 1;
        let t = self.lane_block(b);
        self.depth -= 1;
        quote!({ #t })
    }

    fn lane_stmt(&mut self, s: &Stmt) -> TokenStream {
        match s {
            Stmt::Let(l) => self.lane_let(l),
            Stmt::Assign {
                place,
                op,
                value,
                span,
                ..
            } => self.lane_assign(place, *op, value, *span),
            Stmt::Expr(e) => self.lane_expr_stmt(e),
            Stmt::For {
                var, range, body, ..
            } if self.uniform_range(range) && self.lane_plan().var(var) == Kind::Uniform => {
                if let Some(k) = self.k_loop(var, range, body, |s, b| s.lane_looped(b)) {
                    return k;
                }
                let it = self.range(range);
                let b = self.lane_looped(body);
                quote!(for #var in #it #b)
            }
            Stmt::While { cond, body, span } if self.lane_plan().uniform(cond) => {
                let c = self.expr(cond);
                let b = self.lane_looped(body);
                quote_spanned!(*span=> while #c #b)
            }
            Stmt::Loop { body, span } => {
                let b = self.lane_looped(body);
                quote_spanned!(*span=> loop #b)
            }
            Stmt::Nest(n) if self.plain_nest(n) => self.lane_inner_nest(&n.loops, &n.body),
            Stmt::Break(_) | Stmt::Continue(_) if self.inside_inner_loop() => self.stmt(s),
            _ => {
                self.lane_fail();
                TokenStream::new()
            }
        }
    }

    fn inside_inner_loop(&self) -> bool {
        self.lane_cx.as_ref().is_some_and(|c| self.depth > c.depth)
    }

    fn uniform_range(&self, r: &Range) -> bool {
        let p = self.lane_plan();
        p.uniform(&r.start) && p.uniform(&r.end) && r.step.as_ref().is_none_or(|s| p.uniform(s))
    }

    /// A nest inside the lanes that is plain loops over uniform ranges.
    fn plain_nest(&self, n: &Nest) -> bool {
        let p = self.lane_plan();
        n.lanes.is_none()
            && n.stage.is_none()
            && n.loops
                .iter()
                .all(|l| self.uniform_range(&l.range) && p.var(&l.var) == Kind::Uniform)
    }

    fn lane_inner_nest(&mut self, loops: &[Loop], body: &Block) -> TokenStream {
        let Some((l, rest)) = loops.split_first() else {
            return self.lane_looped(body);
        };
        if rest.is_empty() {
            if let Some(k) = self.k_loop(&l.var, &l.range, body, |s, b| s.lane_looped(b)) {
                return k;
            }
        }
        let it = self.range(&l.range);
        let var = &l.var;
        let inner = self.lane_inner_nest(rest, body);
        quote!(for #var in #it { #inner })
    }

    /// `let x = e;`: a scalar where `x` is the same in every lane, else `[T; w]`.
    fn lane_let(&mut self, l: &Let) -> TokenStream {
        let names: Vec<&syn::Ident> = match &l.pat {
            Pat::Ident { name, .. } => vec![name],
            Pat::Tuple(list) => list.iter().flatten().map(|(n, _)| n).collect(),
        };
        if names
            .iter()
            .all(|n| self.lane_plan().var(n) == Kind::Uniform)
        {
            return self.stmt(&Stmt::Let(l.clone()));
        }
        match (&l.pat, &l.init) {
            (Pat::Ident { name, mutable }, Some(init))
                if self.lane_plan().var(name) == Kind::Affine =>
            {
                self.lane_affine_let(l, name, *mutable, init)
            }
            (Pat::Ident { name, mutable }, Some(init)) => {
                let ty = self.lane_array_ty(l);
                let v = self.lane_array(init);
                let m = mutable.then(|| quote!(mut));
                self.with_hoisted(quote_spanned!(l.span=> let #m #name #ty = #v;))
            }
            (Pat::Tuple(list), Some(init))
                if l.ty.is_none() && l.named.is_none() && !self.binds_affine(list) =>
            {
                self.lane_tuple_let(list, init, l.span)
            }
            _ => {
                self.lane_fail();
                TokenStream::new()
            }
        }
    }

    /// `let x = e;` for an affine `x`: lane 0's value, as a scalar.
    fn lane_affine_let(
        &mut self,
        l: &Let,
        name: &syn::Ident,
        mutable: bool,
        init: &Expr,
    ) -> TokenStream {
        let ty = written_ty(l).map(|t| quote!(: #t));
        let (lane, v) = (lane_ident(), self.lane_value(init));
        let m = mutable.then(|| quote!(mut));
        let first = quote!({ let #lane = 0usize; #v });
        self.with_hoisted(quote_spanned!(l.span=> let #m #name #ty = #first;))
    }

    /// Whether a tuple pattern binds an affine name, which only a plain `let` keeps as a
    /// scalar: such a nest keeps its lane loop.
    fn binds_affine(&self, list: &[Option<(syn::Ident, bool)>]) -> bool {
        let p = self.lane_plan();
        list.iter().flatten().any(|(n, _)| p.var(n) == Kind::Affine)
    }

    /// `: [T; w]` for a written type.
    fn lane_array_ty(&self, l: &Let) -> Option<TokenStream> {
        let w = self.lane_width();
        written_ty(l).map(|t| quote!(: [#t; #w]))
    }

    /// `let (a, mut b) = (x, y);`: each value into a temporary first, as Rust evaluates the
    /// tuple before binding any name (`let (a, b) = (b, a)` swaps).
    fn lane_tuple_let(
        &mut self,
        list: &[Option<(syn::Ident, bool)>],
        init: &Expr,
        span: Span,
    ) -> TokenStream {
        let ExprKind::Tuple(items) = &init.kind else {
            self.lane_fail();
            return TokenStream::new();
        };
        if items.len() != list.len() {
            self.lane_fail();
            return TokenStream::new();
        }
        let mut out = TokenStream::new();
        let mut temps = Vec::new();
        for (k, item) in items.iter().enumerate() {
            let t = format_ident!("__nuda_lt{}", k);
            let v = self.lane_array(item);
            out.extend(self.with_hoisted(quote_spanned!(span=> let #t = #v;)));
            temps.push(t);
        }
        for (name, t) in list.iter().zip(&temps) {
            out.extend(match name {
                Some((n, true)) => quote_spanned!(span=> let mut #n = #t;),
                Some((n, false)) => quote_spanned!(span=> let #n = #t;),
                None => quote_spanned!(span=> let _ = #t;),
            });
        }
        out
    }

    /// `e` in every lane, as an array.
    fn lane_array(&mut self, e: &Expr) -> TokenStream {
        let (l, w) = (lane_ident(), self.lane_width());
        let v = self.lane_value(e);
        quote!(::core::array::from_fn::<_, #w, _>(|#l: usize| #v))
    }

    /// `e` as lane `__nuda_l` computes it; lifted uniform values go to the pending `let`s.
    fn lane_value(&mut self, e: &Expr) -> TokenStream {
        self.set_per_lane(true);
        let v = self.expr(e);
        self.set_per_lane(false);
        v
    }

    pub(super) fn set_per_lane(&mut self, on: bool) {
        if let Some(cx) = &mut self.lane_cx {
            cx.per_lane = on;
        }
    }

    /// The statement after the `let`s of the values lifted out of it.
    fn with_hoisted(&mut self, stmt: TokenStream) -> TokenStream {
        let lifted = self
            .lane_cx
            .as_mut()
            .map(|c| std::mem::take(&mut c.hoisted))
            .unwrap_or_default();
        quote!(#(#lifted)* #stmt)
    }

    fn lane_assign(
        &mut self,
        place: &Place,
        op: Option<BinOp>,
        value: &Expr,
        span: Span,
    ) -> TokenStream {
        let uniform = self.lane_plan().uniform(value);
        let (l, w) = (lane_ident(), self.lane_width());
        let update = match place {
            Place::Var(name) if self.lane_plan().var(name) == Kind::Uniform && uniform => {
                return self.assign(place, op, value, span);
            }
            // An affine local holds lane 0's value: `k += u` as a scalar, `k = j + 1` at lane 0.
            Place::Var(name) if self.lane_plan().var(name) == Kind::Affine => {
                if uniform {
                    return self.assign(place, op, value, span);
                }
                let (lane, v) = (lane_ident(), self.lane_value(value));
                return self
                    .with_hoisted(quote_spanned!(span=> #name = { let #lane = 0usize; #v };));
            }
            Place::Var(name) if self.lane_plan().declares(name) => {
                let v = self.lane_value(value);
                let target = quote_spanned!(span=> #name[#l]);
                let new = match op {
                    Some(op) if self.kernel_arith() => self.binary(op, target.clone(), v, span),
                    Some(op) => {
                        let o = super::expr::bin_op_tokens(op, span);
                        quote_spanned!(span=> (#target #o #v))
                    }
                    None => v,
                };
                quote_spanned!(span=> #target = #new;)
            }
            Place::Index { .. } => {
                self.set_per_lane(true);
                let a = self.assign(place, op, value, span);
                self.set_per_lane(false);
                a
            }
            _ => {
                self.lane_fail();
                return TokenStream::new();
            }
        };
        self.with_hoisted(quote_spanned!(span=> for #l in 0..#w { #update }))
    }

    fn lane_expr_stmt(&mut self, e: &Expr) -> TokenStream {
        match &e.kind {
            ExprKind::If { cond, then, els } if self.lane_plan().uniform(cond) => {
                let c = self.expr(cond);
                let t = self.lane_block(then);
                let el = els.as_deref().map(|x| {
                    let x = self.lane_expr_stmt(x);
                    quote!(else { #x })
                });
                quote_spanned!(e.span=> if #c { #t } #el)
            }
            ExprKind::Block(b) => {
                let t = self.lane_block(b);
                quote!({ #t })
            }
            _ if self.lane_plan().uniform(e) => self.stmt(&Stmt::Expr(e.clone())),
            _ => {
                self.lane_fail();
                TokenStream::new()
            }
        }
    }

    /// In a lane expression: the tokens for `e` where the turned form differs from the plain
    /// one (a varying name, the lane counter, a lifted uniform value), else `None`.
    pub(super) fn lane_override(&mut self, e: &Expr) -> Option<TokenStream> {
        let cx = self.lane_cx.as_ref()?;
        if !cx.per_lane {
            return None;
        }
        if let ExprKind::Var(v) = &e.kind {
            let l = lane_ident();
            return match cx.plan.var(v) {
                _ if *v == cx.plan.lane => Some(quote!(#l)),
                Kind::Uniform => None,
                Kind::Affine => Some({
                    let nuda_at = NUDA.at(e.span);
                    quote_spanned!(e.span=> #nuda_at::__private::offset(#v, #l, 1))
                }),
                Kind::Varying => Some(quote_spanned!(e.span=> #v[#l])),
            };
        }
        if cx.guarded == 0 && cx.plan.uniform(e) && worth_lifting(e) && liftable(e) {
            return Some(self.lift(e));
        }
        if let Some(run) = self.lane_run(e) {
            return Some(run);
        }
        match &e.kind {
            ExprKind::Block(b) if !b.stmts.is_empty() => self.lane_fail(),
            ExprKind::If { then, .. } if !then.stmts.is_empty() => self.lane_fail(),
            _ => {}
        }
        None
    }

    /// A uniform value evaluated once, before the statement's lanes.
    fn lift(&mut self, e: &Expr) -> TokenStream {
        self.set_per_lane(false);
        let v = self.expr(e);
        self.set_per_lane(true);
        let cx = self.lane_cx.as_mut().expect("inside a lane nest");
        let name = format_ident!("__nuda_h{}", cx.next);
        cx.next += 1;
        cx.hoisted.push(quote_spanned!(e.span=> let #name = #v;));
        quote!(#name)
    }

    /// A value (`[T; w]`, say) evaluated once, before the statement's lanes: its name.
    pub(super) fn lift_value(&mut self, v: TokenStream) -> syn::Ident {
        let cx = self.lane_cx.as_mut().expect("inside a lane nest");
        let name = format_ident!("__nuda_h{}", cx.next);
        cx.next += 1;
        cx.hoisted.push(quote!(let #name = #v;));
        name
    }

    /// Runs `f` with lifting off: inside a branch or a short-circuit operand.
    pub(super) fn lane_guarded<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        if let Some(cx) = &mut self.lane_cx {
            cx.guarded += 1;
        }
        let r = f(self);
        if let Some(cx) = &mut self.lane_cx {
            cx.guarded -= 1;
        }
        r
    }
}

/// The type a `let` writes, named or built in, if any.
fn written_ty(l: &Let) -> Option<TokenStream> {
    match (&l.named, l.ty) {
        (Some(t), _) => Some(quote!(#t)),
        (None, Some(t)) => Some(super::expr::ty_tokens(t)),
        (None, None) => None,
    }
}

/// The lane loop as `vector` builds it: one loop from zero, stepping by one.
fn lane_loop_is_plain(n: &Nest) -> bool {
    let [l] = n.loops.as_slice() else {
        return false;
    };
    let zero = matches!(&l.range.start.kind, ExprKind::Lit(Lit::Int { text, .. }) if text == "0");
    zero && l.range.step.is_none() && !l.range.rev && !l.range.inclusive
}

/// Whether `e` may run once for all lanes instead of once per lane: reads and arithmetic,
/// with no effect that repeating would show (no atomic, no image write, no user function).
fn liftable(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Lit(_) | ExprKind::Assoc { .. } => true,
        ExprKind::Paren(x) | ExprKind::Unary { expr: x, .. } | ExprKind::Cast { expr: x, .. } => {
            liftable(x)
        }
        ExprKind::Binary { lhs, rhs, .. } => liftable(lhs) && liftable(rhs),
        ExprKind::Index { index, .. } => index.iter().all(liftable),
        ExprKind::Member { base, .. } | ExprKind::Field { base, .. } => liftable(base),
        ExprKind::At { base, index } => liftable(base) && liftable(index),
        ExprKind::Method {
            recv, method, args, ..
        } => pure_method(method) && liftable(recv) && args.iter().all(liftable),
        ExprKind::Call { func, args } => {
            builtin_of(func).is_some_and(|f| f.native != NativeFn::Barrier)
                && args.iter().all(liftable)
        }
        _ => false,
    }
}

/// A builtin method with no effect on memory.
fn pure_method(m: &syn::Ident) -> bool {
    use crate::base::ir::builtins::{MethodKind, NativeMethod};
    match MethodKind::of(&m.to_string()).map(|k| k.spec().native) {
        Some(NativeMethod::Atomic | NativeMethod::View(_)) | None => false,
        Some(_) => true,
    }
}

/// Whether lifting `e` saves work: anything but a name, a literal or a constant.
fn worth_lifting(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Lit(_) | ExprKind::Assoc { .. } => false,
        ExprKind::Paren(x) => worth_lifting(x),
        ExprKind::Unary { expr, .. } => worth_lifting(expr),
        ExprKind::Cast { expr, .. } => worth_lifting(expr),
        _ => true,
    }
}
