//! Statements and loops in native Rust.

use super::RustEmitter;
use crate::base::ir::*;
use crate::base::paths::{KERNEL, PRIVATE};
use crate::checks::capture::Context;
use crate::checks::sites::SiteKind;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

impl RustEmitter<'_> {
    /// A block, as `{ .. }` tokens.
    pub fn block(&mut self, b: &Block) -> TokenStream {
        let inner = self.block_inner(b);
        quote!({ #inner })
    }

    /// A block's statements and tail, without braces.
    pub fn block_inner(&mut self, b: &Block) -> TokenStream {
        let stmts: Vec<TokenStream> = b.stmts.iter().map(|s| self.stmt(s)).collect();
        let tail = b.tail.as_ref().map(|t| self.expr(t));
        quote!(#(#stmts)* #tail)
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> TokenStream {
        match s {
            Stmt::Let(l) => self.let_stmt(l),
            Stmt::Assign {
                place,
                op,
                value,
                slot,
                span,
            } => {
                let a = self.assign(place, *op, value, *span);
                let rec = slot.map(|k| self.record_place(k, place));
                quote!(#a #rec)
            }
            Stmt::Expr(e) => {
                let e = self.expr(e);
                quote!(#e;)
            }
            Stmt::While { cond, body, span } => {
                let c = self.expr(cond);
                let b = self.looped(body);
                quote_spanned!(*span=> while #c #b)
            }
            Stmt::Loop { body, span } => {
                let b = self.looped(body);
                quote_spanned!(*span=> loop #b)
            }
            Stmt::For {
                var,
                slot,
                range,
                body,
                span,
            } => self.for_loop(var, *slot, range, body, *span),
            Stmt::Nest(n) if n.lanes.is_some() && self.witness => {
                let plan = crate::checks::lanes::Plan::of(n).map(std::rc::Rc::new);
                let saved = std::mem::replace(&mut self.lanes, plan);
                let t = self.nest(&n.loops, &n.body);
                self.lanes = saved;
                t
            }
            Stmt::Nest(n) if n.lanes.is_some() && self.native() => self.lane_nest(n),
            Stmt::Nest(n) if n.stage.is_some() && self.native() => self
                .staged_nest(n)
                .unwrap_or_else(|| self.nest(&n.loops, &n.body)),
            Stmt::Nest(n) => self.nest(&n.loops, &n.body),
            Stmt::Break(span) => quote_spanned!(*span=> break;),
            Stmt::Continue(span) if self.depth == 0 && self.context == Context::Nuwork => {
                quote_spanned!(*span=> return;)
            }
            Stmt::Continue(span) => quote_spanned!(*span=> continue;),
            Stmt::Return(e, _) if self.item_exit.is_some() => {
                let e = e.as_ref().map(|x| self.expr(x));
                let exit = self.item_exit.clone().unwrap_or_default();
                let e = e.map(|x| quote!(let _ = #x;));
                quote!({ #e #exit })
            }
            Stmt::Return(e, span) => {
                let e = e.as_ref().map(|x| self.expr(x));
                quote_spanned!(*span=> return #e;)
            }
        }
    }

    fn for_loop(
        &mut self,
        var: &syn::Ident,
        slot: Slot,
        range: &Range,
        body: &Block,
        span: proc_macro2::Span,
    ) -> TokenStream {
        if let Some(k) = self.k_loop(var, range, body, |s, b| s.looped(b)) {
            return k;
        }
        let it = self.range(range);
        let rec = self.record_var(slot, var);
        let b = self.looped(body);
        quote_spanned!(span=> for #var in #it { #rec #b })
    }

    fn looped(&mut self, body: &Block) -> TokenStream {
        self.depth += 1;
        let b = self.block(body);
        self.depth -= 1;
        b
    }

    /// Nested loops for a nest's loops around its body.
    pub fn nest(&mut self, loops: &[Loop], body: &Block) -> TokenStream {
        let Some((l, rest)) = loops.split_first() else {
            return self.looped(body);
        };
        if rest.is_empty() {
            if let Some(k) = self.k_loop(&l.var, &l.range, body, |s, b| s.looped(b)) {
                return k;
            }
        }
        let it = self.range(&l.range);
        let rec = self.record_var(l.slot, &l.var);
        let inner = self.nest(rest, body);
        let var = &l.var;
        quote!(for #var in #it { #rec #inner })
    }

    /// An iterator over a range with Rust's own semantics; a stepped range's zero step is
    /// a fault in kernels and a panic (as `step_by(0)`) in host loops.
    pub fn range(&mut self, r: &Range) -> TokenStream {
        let (a, b) = (self.expr(&r.start), self.expr(&r.end));
        let (incl, rev) = (r.inclusive, r.rev);
        let Some(s) = &r.step else {
            let plain = match incl {
                false => quote_spanned!(r.span=> (#a..#b)),
                true => quote_spanned!(r.span=> (#a..=#b)),
            };
            return match rev {
                false => plain,
                true => quote_spanned!(r.span=> (#plain.rev())),
            };
        };
        let s = self.expr(s);
        if self.sites.is_none() {
            return quote_spanned!(r.span=> #PRIVATE::steps(#a, #b, #s, #incl, #rev));
        }
        let site = self.site(SiteKind::Step, "", 0, r.span);
        quote_spanned!(r.span=> #PRIVATE::steps_in(#a, #b, (#s, #incl, #rev), __nuda_fault, #site))
    }

    /// `let c = k;` of a captured `k` in `nuwork!`: typed by the host value, so an array
    /// bound to a local is an error naming the array's own type.
    fn let_init(&mut self, init: &Expr) -> TokenStream {
        let e = self.expr(init);
        let ExprKind::Var(name) = &init.kind else {
            return e;
        };
        // Its view's value is the host value's (`Capture::native_ref` copies it).
        let caps = &self.analysis.captures;
        match caps.iter().position(|c| c.name == *name) {
            Some(k) if self.view(name) && self.context == Context::Nuwork => {
                // Resolved where the binding is, reported at the user's variable.
                let mut host = crate::emit::glue::capture_ident(k);
                host.set_span(proc_macro2::Span::call_site().located_at(init.span));
                {
                    let kernel_at = KERNEL.at(init.span);
                    quote_spanned!(init.span=> #kernel_at::let_copy(#host))
                }
            }
            _ => e,
        }
    }

    fn let_stmt(&mut self, l: &Let) -> TokenStream {
        let init = l.init.as_ref().map(|e| self.let_init(e));
        let ty = match (&l.named, l.ty) {
            (Some(t), _) => Some(quote!(: #t)),
            (None, t) => t.map(|t| {
                let t = super::expr::ty_tokens(t);
                quote!(: #t)
            }),
        };
        let span = l.span;
        match &l.pat {
            Pat::Ident { name, mutable } => {
                let m = mutable.then(|| quote!(mut));
                let rec = match (&init, &ty) {
                    (None, None) => {
                        self.pending.insert(name.to_string(), l.slots[0]);
                        TokenStream::new()
                    }
                    // `let x: u32;`, assigned later: the slot takes the written type (a read
                    // of `x` here would be rustc's "used binding isn't initialized").
                    (None, Some(t)) => self.record_type(l.slots[0], t),
                    _ => self.record_var(l.slots[0], name),
                };
                let init = init.map(|i| quote!(= #i));
                quote_spanned!(span=> let #m #name #ty #init; #rec)
            }
            Pat::Tuple(names) => {
                // The witness binds `_` too, so its slot gets a type like the others.
                let bound: Vec<syn::Ident> = names
                    .iter()
                    .enumerate()
                    .map(|(k, n)| {
                        n.as_ref().map_or_else(
                            || quote::format_ident!("__nuda_wild{}", k),
                            |(id, _)| id.clone(),
                        )
                    })
                    .collect();
                let parts = names.iter().zip(&bound).map(|(n, b)| match n {
                    Some((id, true)) => quote!(mut #id),
                    Some((id, false)) => quote!(#id),
                    None if self.witness => quote!(#b),
                    None => quote!(_),
                });
                let recs: Vec<TokenStream> = bound
                    .iter()
                    .zip(&l.slots)
                    .map(|(b, s)| self.record_var(*s, b))
                    .collect();
                let init = init.map(|i| quote!(= #i));
                quote_spanned!(span=> let (#(#parts),*) #ty #init; #(#recs)*)
            }
        }
    }

    /// Records a compound assignment's type: the assigned place's value (witness only).
    fn record_place(&mut self, slot: Slot, place: &Place) -> TokenStream {
        if !self.witness {
            return TokenStream::new();
        }
        let s = super::slot_ident(slot);
        let value = match place {
            Place::Var(name) => quote!(#name),
            Place::Member { base, path } => {
                let steps = self.plain_steps(path);
                quote!(#base #(#steps)*)
            }
            Place::Index { base, index } => {
                let idx = self.index(index);
                quote!(#base.get(#idx))
            }
        };
        // (The witness never runs: `get` here only names the element's type.)
        quote!(#s = #KERNEL::TypeSlot::of(&#value);)
    }

    pub(super) fn assign(
        &mut self,
        place: &Place,
        op: Option<BinOp>,
        value: &Expr,
        span: proc_macro2::Span,
    ) -> TokenStream {
        let v = self.expr(value);
        match place {
            Place::Var(name) => {
                let rec = self
                    .pending
                    .get(&name.to_string())
                    .map(|s| self.record_var(*s, name));
                let update = match op {
                    Some(op) if self.kernel_arith() => {
                        let new = self.binary(op, quote!(#name), v, span);
                        quote_spanned!(span=> #name = #new;)
                    }
                    _ => {
                        let op = super::expr::assign_op(op, span);
                        quote_spanned!(span=> #name #op #v;)
                    }
                };
                quote!(#update #rec)
            }
            // Host code (a host `annot!`) is plain Rust: the plain path below.
            Place::Member { base, path } if has_elem(path) && self.sites.is_some() => {
                self.element_store(base, path, op, v, span)
            }
            Place::Member { base, path } => {
                let steps = self.plain_steps(path);
                let target = quote_spanned!(span=> #base #(#steps)*);
                match op {
                    Some(op) if self.kernel_arith() => {
                        let new = self.binary(op, target.clone(), v, span);
                        quote_spanned!(span=> #target = #new;)
                    }
                    _ => {
                        let op = super::expr::assign_op(op, span);
                        quote_spanned!(span=> #target #op #v;)
                    }
                }
            }
            Place::Index { base, index } if self.host => {
                let idx = self.index(index);
                let op = super::expr::assign_op(op, span);
                quote_spanned!(span=> #base[#idx] #op #v;)
            }
            Place::Index { base, index } => {
                let v = self.lane_checked(index, v, span);
                self.store(base, index, op, v, span)
            }
        }
    }

    /// `a[i] = v` or `a[i] op= v` through a view's checked `load`/`store`.
    fn store(
        &mut self,
        base: &syn::Ident,
        index: &[Expr],
        op: Option<BinOp>,
        v: TokenStream,
        span: proc_macro2::Span,
    ) -> TokenStream {
        let idx = super::expr::index_of(base, index, self.index(index));
        let site = self.site(SiteKind::Write, &base.to_string(), index.len(), span);
        let Some(op) = op else {
            return quote_spanned!(span=> #base.store(#idx, #v, __nuda_fault, #site););
        };
        let old = quote_spanned!(span=> #base.load(__nuda_i, __nuda_fault, #site));
        let new = self.binary(op, old, quote!((#v)), span);
        quote_spanned!(span=> { let __nuda_i = #idx; #base.store(__nuda_i, #new, __nuda_fault, #site); })
    }

    /// A path as Rust writes it, `.x`, `[k]` (the witness's type of a place: never run).
    fn plain_steps(&mut self, path: &[Step]) -> Vec<TokenStream> {
        path.iter()
            .map(|s| match s {
                Step::Field(f) => quote!(.#f),
                Step::Elem(e) => {
                    let k = self.expr(e);
                    quote!([#k])
                }
            })
            .collect()
    }

    /// `t[k] = v`, `b.w[k] += v`: the value first, as Rust evaluates it, then each index
    /// checked (`private_index`); out of range, the store is skipped.
    fn element_store(
        &mut self,
        base: &syn::Ident,
        path: &[Step],
        op: Option<BinOp>,
        v: TokenStream,
        span: proc_macro2::Span,
    ) -> TokenStream {
        let mut target = quote!(#base);
        let mut checks = Vec::new();
        for (k, step) in path.iter().enumerate() {
            match step {
                Step::Field(f) => target = quote!(#target.#f),
                Step::Elem(e) => {
                    let name = crate::base::ir::display::member_path(base, &path[..k]);
                    let site = self.site(SiteKind::Private, &name, 1, span);
                    let x = self.expr(e);
                    let i = format_ident!("__nuda_k{}", k);
                    let p = PRIVATE.at(span);
                    checks.push(quote_spanned!(span=> let ::core::option::Option::Some(#i) = #p::private_index(&#target, #x, __nuda_fault, #site) else { break 'store; };));
                    target = quote!(#target[#i]);
                }
            }
        }
        let update = match op {
            Some(op) if self.kernel_arith() => {
                let new = self.binary(op, target.clone(), quote!(__nuda_v), span);
                quote_spanned!(span=> #target = #new;)
            }
            _ => {
                let op = super::expr::assign_op(op, span);
                quote_spanned!(span=> #target #op __nuda_v;)
            }
        };
        quote_spanned!(span=> { let __nuda_v = #v; 'store: { #(#checks)* #update } })
    }
}
