//! Expressions in native Rust: the user's own expression, with array accesses routed through
//! views (checked, recording faults), integer arithmetic through `nuda::__private::Arith`
//! (wrapping, as the OpenCL C), and work-item builtins through the `WorkItem`. The witness
//! keeps Rust's operators, so rustc types it as plain Rust.

use super::RustEmitter;
use crate::base::ir::builtins::{builtin_of, MethodKind, NativeFn, NativeMethod};
use crate::base::ir::*;
use crate::base::paths::{KERNEL, PRIVATE};
use crate::checks::capture::Context;
use crate::checks::sites::SiteKind;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

/// A written type as tokens.
pub fn ty_tokens(t: Ty) -> TokenStream {
    match t {
        Ty::Scalar(s) => format_ident!("{}", s.rust_name()).into_token_stream(),
        // A user type is never written where the native form needs it (casts).
        Ty::Slot(_) => quote!(_),
    }
}

/// An array index `idx` (the tokens of `index`) as the array's index type, through
/// `IndexOf`: an index of the wrong type or rank is an error at the user's index, in nuda's
/// words.
pub(super) fn index_of(base: &syn::Ident, index: &[Expr], idx: TokenStream) -> TokenStream {
    let span = index.first().map_or_else(Span::call_site, |x| x.span);
    {
        let kernel_at = KERNEL.at(span);
        quote_spanned!(span=> #kernel_at::index_of(&#base, #idx))
    }
}

/// A binary operator as tokens.
pub fn bin_op_tokens(op: BinOp, span: Span) -> TokenStream {
    respan(op.symbol(), span)
}

/// `=` or `op=` as tokens.
pub fn assign_op(op: Option<BinOp>, span: Span) -> TokenStream {
    let text = op.map_or("=".to_string(), |o| format!("{}=", o.symbol()));
    respan(&text, span)
}

fn respan(text: &str, span: Span) -> TokenStream {
    text.parse::<TokenStream>()
        .unwrap_or_default()
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect()
}

/// The `nuda::__private` method a native binary operation calls, if it is not Rust's own.
fn native_op(op: BinOp) -> Option<&'static str> {
    use BinOp::*;
    Some(match op {
        Add => "nu_add",
        Sub => "nu_sub",
        Mul => "nu_mul",
        Div => "nu_div",
        Rem => "nu_rem",
        Shl => "nu_shl",
        Shr => "nu_shr",
        _ => return None,
    })
}

impl RustEmitter<'_> {
    /// An expression as tokens, recorded into its type slot in witness code.
    pub fn expr(&mut self, e: &Expr) -> TokenStream {
        let value = self.value(e);
        self.record(e.slot, value, e.span)
    }

    fn value(&mut self, e: &Expr) -> TokenStream {
        if let Some(t) = self.lane_override(e) {
            return t;
        }
        let span = e.span;
        match &e.kind {
            ExprKind::Lit(l @ Lit::Int { suffix: None, .. }) => {
                let lit = lit_tokens(l, span);
                self.typed_literal(e.slot, lit, span)
            }
            ExprKind::Lit(l) => lit_tokens(l, span),
            ExprKind::Var(v) => quote!(#v),
            ExprKind::Member { base, name } => {
                let b = self.expr(base);
                quote_spanned!(span=> #b.#name)
            }
            ExprKind::Struct { path, fields, rest } => self.struct_lit(path, fields, rest, span),
            ExprKind::Unary { op, expr } => {
                let t = self.unary(*op, expr, span);
                match (op, &expr.kind) {
                    (UnOp::Neg, ExprKind::Lit(Lit::Int { suffix: None, .. })) => {
                        self.typed_literal(e.slot, t, span)
                    }
                    _ => t,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs);
                // The right operand of `&&` and `||` may not run: nothing is lifted from it.
                let r = match op {
                    BinOp::And | BinOp::Or => self.lane_guarded(|s| s.expr(rhs)),
                    _ => self.expr(rhs),
                };
                self.binary(*op, l, r, span)
            }
            ExprKind::Cast { expr, ty } => {
                // The type at the cast's own span, so that rustc's errors about it (`i as
                // bool`, an index `a[i as i32]`) point there. Not `usize`, the type of every
                // cast the annotations write: a user-spanned `64 as usize` from `tilem(64)`
                // would draw clippy's unnecessary_cast in the user's code.
                let t = match ty {
                    Ty::Scalar(Scalar::Usize) => ty_tokens(*ty),
                    _ => respan(&ty_tokens(*ty).to_string(), span),
                };
                let x = self.expr(expr);
                quote_spanned!(span=> (#x as #t))
            }
            ExprKind::Index { base, index } => {
                let v = self.element(base, index, span);
                self.lane_checked(index, v, span)
            }
            ExprKind::Call { func, args } => self.call(func, args, span),
            ExprKind::Method {
                recv,
                method,
                args,
                path,
            } => self.method(recv, method, args, *path, span),
            ExprKind::Assoc { ty, name } => {
                let t = ty_tokens(Ty::Scalar(*ty));
                quote_spanned!(span=> #t::#name)
            }
            ExprKind::If { cond, then, els } => self.if_else(cond, then, els.as_deref(), span),
            ExprKind::Block(b) => self.block(b),
            ExprKind::Paren(x) => {
                let x = self.expr(x);
                quote_spanned!(span=> (#x))
            }
            ExprKind::Tuple(items) => {
                let a = self.exprs(items);
                quote_spanned!(span=> (#(#a,)*))
            }
            ExprKind::Array(items) => {
                let a = self.exprs(items);
                quote_spanned!(span=> [#(#a),*])
            }
            ExprKind::Field { base, index } => self.field(base, *index, span),
            ExprKind::Trips(r, _) => self.trips(r, span),
            ExprKind::Offset { start, count, step } => self.offset(start, count, step, span),
            ExprKind::At { base, index } => self.private_read(base, index, span),
            ExprKind::Repeat { value, len } => {
                let v = self.expr(value);
                quote_spanned!(span=> [#v; #len])
            }
        }
    }

    /// `t[k]` on an array value: checked, as the OpenCL C's `NU_AT`.
    fn private_read(&mut self, base: &Expr, index: &Expr, span: Span) -> TokenStream {
        let name = crate::base::ir::display::expr(base);
        let (b, k) = (self.expr(base), self.expr(index));
        if self.sites.is_none() {
            // Host code (a host `annot!`) is plain Rust, with Rust's indexing.
            return quote_spanned!(span=> #b[#k]);
        }
        let site = self.site(SiteKind::Private, &name, 1, span);
        let p = PRIVATE.at(span);
        quote_spanned!(span=> #p::element_at(&#b, #k, __nuda_fault, #site))
    }

    fn exprs(&mut self, items: &[Expr]) -> Vec<TokenStream> {
        items.iter().map(|x| self.expr(x)).collect()
    }

    fn unary(&mut self, op: UnOp, x: &Expr, span: Span) -> TokenStream {
        if let (UnOp::Neg, ExprKind::Lit(l)) = (op, &x.kind) {
            // A negative literal, as Rust reads `-128i8`: the negation's slot records it.
            let lit = lit_tokens(l, x.span);
            return quote_spanned!(span=> (-#lit));
        }
        let x = self.expr(x);
        match op {
            UnOp::Neg if self.kernel_arith() => {
                let kernel_at = KERNEL.at(span);
                quote_spanned!(span=> #kernel_at::Arith::nu_neg(#x))
            }
            UnOp::Neg => quote_spanned!(span=> (-#x)),
            UnOp::Not => quote_spanned!(span=> (!#x)),
        }
    }

    /// `l op r`: Rust's operator in the witness and host loops; on the native engine the
    /// wrapping (and fault-recording, for `/` and `%`) form.
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        l: TokenStream,
        r: TokenStream,
        span: Span,
    ) -> TokenStream {
        let (true, Some(f)) = (self.kernel_arith(), native_op(op)) else {
            // OpenCL C compares numbers only: the witness refuses `==` on two structs.
            let comparison = !op.is_arithmetic() && !matches!(op, BinOp::And | BinOp::Or);
            let l = match self.witness && comparison {
                true => {
                    let kernel_at = KERNEL.at(span);
                    quote_spanned!(span=> #kernel_at::compared(#l))
                }
                false => l,
            };
            let o = bin_op_tokens(op, span);
            return quote_spanned!(span=> (#l #o #r));
        };
        let f = format_ident!("{}", f, span = span);
        match op {
            BinOp::Div | BinOp::Rem => {
                let kind = if op == BinOp::Div {
                    SiteKind::Divide
                } else {
                    SiteKind::Remainder
                };
                let site = self.site(kind, "", 0, span);
                {
                    let kernel_at = KERNEL.at(span);
                    quote_spanned!(span=> #kernel_at::Arith::#f(#l, #r, __nuda_fault, #site))
                }
            }
            BinOp::Shl | BinOp::Shr => {
                let kernel_at = KERNEL.at(span);
                quote_spanned!(span=> #kernel_at::Shift::#f(#l, #r))
            }
            _ => {
                let kernel_at = KERNEL.at(span);
                quote_spanned!(span=> #kernel_at::Arith::#f(#l, #r))
            }
        }
    }

    /// An element read. Captured arrays are views whose `load` checks the index and records
    /// a fault (giving zero) when it is out of range; local texels index as Rust does.
    pub(super) fn element(&mut self, base: &syn::Ident, index: &[Expr], span: Span) -> TokenStream {
        let idx = self.index(index);
        if self.range {
            // Before the launch (a range has no locals, so `base` is an array of the
            // caller's): its host copy, read as the kernel reads.
            let site = self.site(SiteKind::Read, &base.to_string(), index.len(), span);
            return quote_spanned!(span=> {
                #[allow(unused_imports)]
                use #PRIVATE::RangeElement as _;
                #base.range_element(#idx, __nuda_fault, #site)?
            });
        }
        if !self.view(base) {
            return quote_spanned!(span=> #base[#idx]);
        }
        let site = self.site(SiteKind::Read, &base.to_string(), index.len(), span);
        let idx = index_of(base, index, idx);
        if let Some(read) = self.staged_read(base, index) {
            return read;
        }
        // A view's own `load`; a captured `[T; N]`'s comes from `PrivateLoad`.
        quote_spanned!(span=> {
            #[allow(unused_imports)]
            use #PRIVATE::PrivateLoad as _;
            #base.load(#idx, __nuda_fault, #site)
        })
    }

    fn method(
        &mut self,
        recv: &Expr,
        method: &syn::Ident,
        args: &[Expr],
        path: Option<Scalar>,
        span: Span,
    ) -> TokenStream {
        let native = MethodKind::of(&method.to_string()).map(|k| k.spec().native);
        if native == Some(NativeMethod::Atomic) && self.view_expr(recv) {
            return self.atomic(recv, method, args, span);
        }
        let (r, a) = (self.expr(recv), self.exprs(args));
        if let Some(t) = path {
            let t = ty_tokens(Ty::Scalar(t));
            return match native {
                Some(NativeMethod::Arith(f)) if self.kernel_arith() => {
                    let f = format_ident!("{}", f, span = span);
                    {
                        let kernel_at = KERNEL.at(span);
                        quote_spanned!(span=> <#t as #kernel_at::Arith>::#f(#r #(, #a)*))
                    }
                }
                _ => quote_spanned!(span=> #t::#method(#r #(, #a)*)),
            };
        }
        match native {
            Some(NativeMethod::Arith(f)) if self.kernel_arith() => {
                let f = format_ident!("{}", f, span = span);
                {
                    let kernel_at = KERNEL.at(span);
                    quote_spanned!(span=> #kernel_at::Arith::#f(#r #(, #a)*))
                }
            }
            Some(NativeMethod::CheckedOr) => {
                // The method's own arguments, then `unwrap_or`'s value.
                let (own, v) = a.split_at(a.len().saturating_sub(1));
                quote_spanned!(span=> #r.#method(#(#own),*).unwrap_or(#(#v)*))
            }
            Some(NativeMethod::Checked(f)) if self.kernel_arith() => {
                let f = format_ident!("{}", f, span = span);
                let kind = match MethodKind::of(&method.to_string()) {
                    Some(MethodKind::Clamp) => SiteKind::Clamp,
                    Some(MethodKind::SaturatingDiv | MethodKind::DivEuclid) => SiteKind::Divide,
                    _ => SiteKind::Remainder,
                };
                let site = self.site(kind, "", 0, span);
                {
                    let kernel_at = KERNEL.at(span);
                    quote_spanned!(span=> #kernel_at::Arith::#f(#r #(, #a)*, __nuda_fault, #site))
                }
            }
            Some(NativeMethod::Int(f)) if self.kernel_arith() => {
                let f = format_ident!("{}", f, span = span);
                {
                    let kernel_at = KERNEL.at(span);
                    quote_spanned!(span=> #kernel_at::Shift::#f(#r #(, #a)*))
                }
            }
            Some(NativeMethod::View(f)) if self.view_expr(recv) => {
                let (name, f) = (recv_name(recv), format_ident!("{}", f, span = span));
                let site = self.site(SiteKind::ImageWrite, &name, 2, span);
                quote_spanned!(span=> #r.#f(#(#a,)* __nuda_fault, #site))
            }
            _ => quote_spanned!(span=> #r.#method(#(#a),*)),
        }
    }

    /// `a.atomic_<op>(index, values..)` on a view: checked like `a[i]`, the previous value.
    fn atomic(
        &mut self,
        recv: &Expr,
        method: &syn::Ident,
        args: &[Expr],
        span: Span,
    ) -> TokenStream {
        let (index, values) = crate::emit::cl::atomic_args(args);
        let (r, idx, vals) = (self.expr(recv), self.index(index), self.exprs(values));
        let idx = match &recv.kind {
            ExprKind::Var(base) => index_of(base, index, idx),
            _ => idx,
        };
        let site = self.site(SiteKind::Write, &recv_name(recv), index.len(), span);
        // A free function bounded on the element type: a `u8` array's atomic is an error
        // naming the element, not a native view's method.
        {
            let kernel_at = KERNEL.at(span);
            quote_spanned!(span=> #kernel_at::#method(&#r, #idx, #(#vals,)* __nuda_fault, #site))
        }
    }

    /// Whether `e` names a captured view (an image written through, say).
    fn view_expr(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Var(v) if self.view(v))
    }

    fn if_else(
        &mut self,
        cond: &Expr,
        then: &Block,
        els: Option<&Expr>,
        span: Span,
    ) -> TokenStream {
        let c = self.expr(cond);
        // Only one branch runs: nothing is lifted out of either (`lanes`).
        let (t, e) = self.lane_guarded(|s| {
            let t = s.block(then);
            let e = els.map(|x| {
                let x = s.expr(x);
                quote!(else #x)
            });
            (t, e)
        });
        quote_spanned!(span=> if #c #t #e)
    }

    fn struct_lit(
        &mut self,
        path: &syn::Path,
        fields: &[(syn::Ident, Expr)],
        rest: &Option<Box<Expr>>,
        span: Span,
    ) -> TokenStream {
        let (names, values): (Vec<&syn::Ident>, Vec<TokenStream>) =
            fields.iter().map(|(n, v)| (n, self.expr(v))).unzip();
        let rest = rest.as_ref().map(|r| {
            let r = self.expr(r);
            quote!(..#r)
        });
        quote_spanned!(span=> #path { #(#names: #values,)* #rest })
    }

    fn field(&mut self, base: &Expr, index: u32, span: Span) -> TokenStream {
        let b = self.expr(base);
        let i = syn::Index { index, span };
        quote_spanned!(span=> #b.#i)
    }

    fn trips(&mut self, r: &Range, span: Span) -> TokenStream {
        let (a, b) = (self.expr(&r.start), self.expr(&r.end));
        let s = r.step.as_ref().map_or_else(|| quote!(1), |s| self.expr(s));
        let incl = r.inclusive;
        if self.sites.is_none() {
            // Host loops, and ranges the host evaluates before a launch.
            return quote_spanned!(span=> #PRIVATE::trips_host(#a, #b, #s, #incl));
        }
        let site = self.site(SiteKind::Step, "", 0, r.span);
        quote_spanned!(span=> #PRIVATE::trips(#a, #b, #s, #incl, __nuda_fault, #site))
    }

    fn offset(
        &mut self,
        start: &Expr,
        count: &Expr,
        step: &Option<Box<Expr>>,
        span: Span,
    ) -> TokenStream {
        let (a, k) = (self.expr(start), self.expr(count));
        let s = step.as_ref().map_or_else(|| quote!(1), |s| self.expr(s));
        quote_spanned!(span=> #PRIVATE::offset(#a, #k, #s))
    }

    /// An index: one expression, or a tuple of them.
    pub(super) fn index(&mut self, index: &[Expr]) -> TokenStream {
        let parts: Vec<TokenStream> = index.iter().map(|x| self.expr(x)).collect();
        let span = index.first().map_or_else(Span::call_site, |x| x.span);
        match parts.as_slice() {
            [one] => one.clone(),
            many => quote_spanned!(span=> (#(#many),*)),
        }
    }

    fn call(&mut self, func: &syn::Path, args: &[Expr], span: Span) -> TokenStream {
        let a: Vec<TokenStream> = args.iter().map(|x| self.expr(x)).collect();
        let builtin =
            builtin_of(func).filter(|f| !f.kernel_only() || self.context == Context::Kernel);
        if let Some(f) = builtin {
            let m = format_ident!("{}", f.name, span = span);
            return match f.native {
                NativeFn::WorkItem => quote_spanned!(span=> __nuda_w.#m(#(#a),*)),
                NativeFn::Barrier => quote_spanned!(span=> __nuda_b.wait()),
                NativeFn::Private => quote_spanned!(span=> #PRIVATE::#m(#(#a),*)),
            };
        }
        let text = quote!(#func).to_string();
        let k = self
            .analysis
            .calls
            .iter()
            .position(|p| quote!(#p).to_string() == text);
        match k {
            // A mapped range is host code: a function no kernel body calls is a plain Rust
            // function there (`nfor!(i in four() { .. })`).
            None if self.range => quote_spanned!(span=> #func(#(#a),*)),
            _ if self.kernel_arith() => {
                // The function's native twin: wrapping arithmetic, faults into this launch.
                // The twin's generic parameters, if any, are inferred from the arguments.
                quote_spanned!(span=> #func::__nuda_native(__nuda_fault, #(#a),*))
            }
            Some(k) if self.witness => {
                // The call, and in its call slot the instance it makes (never run). An
                // argument OpenCL C cannot pass component by component is refused.
                let f = super::call_ident(k);
                let a = args.iter().zip(a).map(|(e, t)| match e.kind {
                    ExprKind::Tuple(_) => t,
                    _ => {
                        let kernel_at = KERNEL.at(e.span);
                        quote_spanned!(e.span=> #kernel_at::plain_arg(#t))
                    }
                });
                quote_spanned!(span=> {
                    let (__nuda_r, __nuda_i) = #func::__nuda_call(#(#a),*);
                    #f = ::core::option::Option::Some(__nuda_i);
                    __nuda_r
                })
            }
            _ => quote_spanned!(span=> #func(#(#a),*)),
        }
    }
}

/// The captured name a memory method is called on.
fn recv_name(recv: &Expr) -> String {
    match &recv.kind {
        ExprKind::Var(v) => v.to_string(),
        _ => String::new(),
    }
}

/// A literal as written (digits normalised, suffix kept).
fn lit_tokens(l: &Lit, span: Span) -> TokenStream {
    match l {
        Lit::Bool(b) => syn::LitBool::new(*b, span).into_token_stream(),
        Lit::Int { text, suffix } => {
            let suffix = suffix.map(|s| s.rust_name()).unwrap_or("");
            syn::LitInt::new(&format!("{text}{suffix}"), span).into_token_stream()
        }
        Lit::Float { text, suffix } => {
            let suffix = suffix.map(|s| s.rust_name()).unwrap_or("");
            syn::LitFloat::new(&format!("{}{suffix}", crate::emit::cl::decimal(text)), span)
                .into_token_stream()
        }
    }
}
