//! Expressions in native Rust: the user's own expression, with array accesses routed through
//! views and work-item builtins through the `WorkItem`.

use super::RustEmitter;
use crate::capture::Context;
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

/// A written type as tokens.
pub fn ty_tokens(t: Ty) -> TokenStream {
    match t {
        Ty::Scalar(s) => format_ident!("{}", s.rust_name()).into_token_stream(),
        Ty::Float4 => quote!([f32; 4]),
    }
}

/// A binary operator as tokens.
pub fn bin_op_tokens(op: BinOp, span: Span) -> TokenStream {
    let text = op.symbol();
    let mut ts: TokenStream = text.parse().unwrap_or_default();
    ts = ts
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect();
    ts
}

/// `=` or `op=` as tokens.
pub fn assign_op(op: Option<BinOp>, span: Span) -> TokenStream {
    let text = op.map_or("=".to_string(), |o| format!("{}=", o.symbol()));
    text.parse::<TokenStream>()
        .unwrap_or_default()
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect()
}

impl RustEmitter<'_> {
    /// An expression as tokens, recorded into its type slot in witness code.
    pub fn expr(&mut self, e: &Expr) -> TokenStream {
        let value = self.value(e);
        self.record(e.slot, value, e.span)
    }

    fn value(&mut self, e: &Expr) -> TokenStream {
        let span = e.span;
        match &e.kind {
            ExprKind::Lit(l) => lit_tokens(l, span),
            ExprKind::Var(v) => quote!(#v),
            ExprKind::Unary { op, expr } => self.unary(*op, expr, span),
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r, o) = (self.expr(lhs), self.expr(rhs), bin_op_tokens(*op, span));
                quote_spanned!(span=> (#l #o #r))
            }
            ExprKind::Cast { expr, ty } => {
                let (x, t) = (self.expr(expr), ty_tokens(*ty));
                quote_spanned!(span=> (#x as #t))
            }
            ExprKind::Index { base, index } => self.element(base, index, span),
            ExprKind::Call { func, args } => self.call(func, args, span),
            ExprKind::Method { recv, method, args } => {
                let (r, a) = (self.expr(recv), self.exprs(args));
                quote_spanned!(span=> #r.#method(#(#a),*))
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
            ExprKind::Trips(r) => self.trips(r, span),
            ExprKind::Offset { start, count, step } => self.offset(start, count, step, span),
            ExprKind::Lane { base, index, .. } => {
                let (b, i) = (self.expr(base), self.expr(index));
                quote_spanned!(span=> #b[#i])
            }
        }
    }

    fn exprs(&mut self, items: &[Expr]) -> Vec<TokenStream> {
        items.iter().map(|x| self.expr(x)).collect()
    }

    fn unary(&mut self, op: UnOp, x: &Expr, span: Span) -> TokenStream {
        let x = self.expr(x);
        match op {
            UnOp::Neg => quote_spanned!(span=> (-#x)),
            UnOp::Not => quote_spanned!(span=> (!#x)),
        }
    }

    /// An element read. Captured arrays are views: `get` works on read views, written views
    /// and shared-write views alike, whose elements are atomic cells with no `&T`.
    fn element(&mut self, base: &syn::Ident, index: &[Expr], span: Span) -> TokenStream {
        let idx = self.index(index);
        if self.view(base) {
            quote_spanned!(span=> #base.get(#idx))
        } else {
            quote_spanned!(span=> #base[#idx])
        }
    }

    fn if_else(
        &mut self,
        cond: &Expr,
        then: &Block,
        els: Option<&Expr>,
        span: Span,
    ) -> TokenStream {
        let (c, t) = (self.expr(cond), self.block(then));
        let e = els.map(|x| {
            let x = self.expr(x);
            quote!(else #x)
        });
        quote_spanned!(span=> if #c #t #e)
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
        quote_spanned!(span=> ::nuda::__private::trips(#a, #b, #s, #incl))
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
        quote_spanned!(span=> ::nuda::__private::offset(#a, #k, #s))
    }

    /// An index: one expression, or a tuple of them.
    pub(super) fn index(&mut self, index: &[Expr]) -> TokenStream {
        let parts: Vec<TokenStream> = index.iter().map(|x| self.expr(x)).collect();
        match parts.as_slice() {
            [one] => one.clone(),
            many => quote!((#(#many),*)),
        }
    }

    fn call(&mut self, func: &syn::Path, args: &[Expr], span: Span) -> TokenStream {
        let a: Vec<TokenStream> = args.iter().map(|x| self.expr(x)).collect();
        let name = func.get_ident().map(|i| i.to_string()).unwrap_or_default();
        match name.as_str() {
            "global_id" | "local_id" | "group_id" | "global_size" | "local_size" | "num_groups"
                if self.context == Context::Kernel =>
            {
                let m = format_ident!("{}", name, span = span);
                quote_spanned!(span=> __nuda_w.#m(#(#a),*))
            }
            "barrier" if self.context == Context::Kernel => quote_spanned!(span=> __nuda_b.wait()),
            "rsqrt" => quote_spanned!(span=> ::nuda::__private::rsqrt(#(#a),*)),
            _ => quote_spanned!(span=> #func(#(#a),*)),
        }
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
