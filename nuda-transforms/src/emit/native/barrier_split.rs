//! The native form of a split barrier kernel (`barrier_split`), layer: emitters. It is the body of a
//! closure over one work-group, `__nuda_g: &nuda::__private::Group`: the group's chunks run
//! once, the others in a loop over the group's work-items (`'__nuda_item`), and the split
//! `if`, `while`, `loop` and `for` run at the group's level on conditions the group decides.
//! Per-item variables live in `Slots` between loops; a work-item that returns is marked in
//! `Done` and skipped by later loops.

use super::RustEmitter;
use crate::base::ir::*;
use crate::base::paths::PRIVATE;
use crate::checks::barrier_split::{Head, Plan, Scan, Seg, Uses, Var};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// The per-item store of binding `k` (bindings may share a name).
pub fn slot_ident(k: usize) -> Ident {
    format_ident!("__nuda_st{}", k)
}

impl RustEmitter<'_> {
    /// The group's code for `plan`, after `__nuda_n` (the group's size) and `__nuda_w` (its
    /// first work-item) are bound.
    pub fn phased(&mut self, plan: &Plan) -> TokenStream {
        self.typed(|em| em.phases(plan))
    }

    fn phases(&mut self, plan: &Plan) -> TokenStream {
        let slots = (plan.vars.iter().filter(|v| v.1 == Var::Slot)).map(|(_, _, k)| {
            let id = slot_ident(*k);
            quote!(let mut #id = #PRIVATE::Slots::new(__nuda_n);)
        });
        let done =
            (plan.returns).then(|| quote!(let mut __nuda_done = #PRIVATE::Done::new(__nuda_n);));
        let body = self.segs(plan, &plan.segs);
        quote!(#(#slots)* #done #body)
    }

    fn segs(&mut self, plan: &Plan, segs: &[Seg]) -> TokenStream {
        let parts: Vec<TokenStream> = segs.iter().map(|s| self.seg(plan, s)).collect();
        quote!(#(#parts)*)
    }

    fn seg(&mut self, plan: &Plan, s: &Seg) -> TokenStream {
        match s {
            Seg::Chunk(c) if c.group => {
                let remat = self.remat(&c.uses);
                let body: Vec<TokenStream> = c.stmts.iter().map(|s| self.stmt(s)).collect();
                quote!(#remat #(#body)*)
            }
            Seg::Chunk(c) => {
                let walk = match &c.guard {
                    Some((op, bound)) => {
                        let bound = self.expr(bound);
                        quote!(__nuda_g.walk_where(#op, #bound))
                    }
                    None => quote!(__nuda_g.walk()),
                };
                self.items_in(plan, &c.uses, &c.stmts, TokenStream::new(), walk)
            }
            Seg::If {
                cond,
                head,
                then,
                els,
            } => {
                let (pre, c) = self.head(plan, head, cond, cond.span);
                let (then, els) = (self.segs(plan, then), self.segs(plan, els));
                quote!(#pre if #c { #then } else { #els })
            }
            Seg::While { cond, head, body } => {
                let (pre, c) = self.head(plan, head, cond, cond.span);
                let body = self.segs(plan, body);
                quote!(loop { #pre if !(#c) { break; } #body })
            }
            Seg::Loop { body } => {
                let body = self.segs(plan, body);
                quote!(loop { #body })
            }
            Seg::Block { body } => {
                let body = self.segs(plan, body);
                quote!({ #body })
            }
            Seg::For {
                var,
                range,
                head,
                body,
            } => self.split_for(plan, var, range, head, body),
        }
    }

    /// The recomputed `let`s a piece needs.
    fn remat(&mut self, uses: &Uses) -> TokenStream {
        let lets: Vec<TokenStream> = (uses.remat.iter())
            .map(|l| self.stmt(&Stmt::Let(l.clone())))
            .collect();
        quote!(#(#lets)*)
    }

    /// A loop over the group's work-items running `stmts`, then `tail`, for each live one.
    fn items(
        &mut self,
        plan: &Plan,
        uses: &Uses,
        stmts: &[Stmt],
        tail: TokenStream,
    ) -> TokenStream {
        self.items_in(plan, uses, stmts, tail, quote!(__nuda_g.walk()))
    }

    /// As `items`, over the work-items whose indexes `walk` gives (a plain range).
    fn items_in(
        &mut self,
        plan: &Plan,
        uses: &Uses,
        stmts: &[Stmt],
        tail: TokenStream,
        walk: TokenStream,
    ) -> TokenStream {
        let remat = self.remat(uses);
        let restore = uses.restore.iter().map(|(n, assigned, k)| {
            let (st, m) = (slot_ident(*k), assigned.then(|| quote!(mut)));
            quote!(let #m #n = #st.get(__nuda_k);)
        });
        let save = uses.save.iter().map(|(n, k)| {
            let st = slot_ident(*k);
            quote!(#st.set(__nuda_k, #n);)
        });
        let returns = Scan::stmts(stmts).returns;
        let exit = quote!({
            __nuda_done.finish(__nuda_k);
            continue '__nuda_item;
        });
        let saved = std::mem::replace(&mut self.item_exit, returns.then_some(exit));
        let body: Vec<TokenStream> = stmts.iter().map(|s| self.stmt(s)).collect();
        self.item_exit = saved;
        let skip = (plan.returns).then(|| {
            quote!(if __nuda_done.is(__nuda_k) {
                continue;
            })
        });
        let after = returns.then(|| {
            quote!(if __nuda_done.all() {
                return;
            })
        });
        quote! {
            '__nuda_item: for __nuda_k in #walk {
                let __nuda_w = &__nuda_g.item(__nuda_k);
                #skip
                #remat
                #(#restore)*
                #(#body)*
                #(#save)*
                #tail
            }
            #after
        }
    }

    /// A split construct's condition: the code that decides it, and its value. The group
    /// evaluates a group head once; otherwise every live work-item does and must agree.
    fn head(
        &mut self,
        plan: &Plan,
        head: &Head,
        e: &Expr,
        span: Span,
    ) -> (TokenStream, TokenStream) {
        let value = self.expr(e);
        self.decide(plan, head, value, span)
    }

    fn decide(
        &mut self,
        plan: &Plan,
        head: &Head,
        value: TokenStream,
        span: Span,
    ) -> (TokenStream, TokenStream) {
        if head.group {
            let remat = self.remat(&head.uses);
            return (TokenStream::new(), quote!({ #remat #value }));
        }
        let u = format_ident!("__nuda_u{}", self.heads);
        self.heads += 1;
        let agree = quote_spanned!(span=> #PRIVATE::agree(&mut #u, #value););
        let each = self.items(plan, &head.uses, &[], agree);
        let pre = quote!(let mut #u = ::core::option::Option::None; #each);
        let value = quote!(match #u { ::core::option::Option::Some(v) => v, ::core::option::Option::None => return });
        (pre, value)
    }

    /// A split `for`: the group runs the range its work-items agree on.
    fn split_for(
        &mut self,
        plan: &Plan,
        var: &Ident,
        range: &Range,
        head: &Head,
        body: &[Seg],
    ) -> TokenStream {
        let body = self.segs(plan, body);
        if head.group {
            let remat = self.remat(&head.uses);
            let it = self.range(range);
            return quote!(for #var in { #remat #it } { #body });
        }
        let k = self.heads;
        let bound = |what: &str| format_ident!("__nuda_r{}{}", what, k);
        let (a, b, s) = (bound("a"), bound("b"), bound("s"));
        let (start, end) = (self.expr(&range.start), self.expr(&range.end));
        let step = range.step.as_ref().map(|x| self.expr(x));
        let step_value = step.map_or(quote!(()), |x| x);
        let (pre, value) = self.decide(plan, head, quote!((#start, #end, #step_value)), range.span);
        let var_of = |id: &Ident| Expr::new(ExprKind::Var(id.clone()), range.span);
        let decided = Range {
            start: var_of(&a),
            end: var_of(&b),
            step: range.step.as_ref().map(|_| var_of(&s)),
            ..range.clone()
        };
        let it = self.range(&decided);
        quote!(#pre let (#a, #b, #s) = #value; for #var in #it { #body })
    }
}
