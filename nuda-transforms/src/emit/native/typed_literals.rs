//! Typed literals on the native engine (stage 5, the Rust emitters). The witness ties every
//! slotted expression to its slot's `TypeSlot`, so rustc gives all of a slot's expressions
//! one type; the native form ties its unsuffixed integer literals the same way, one
//! `TypeSlot` per slot. It matters where annotations copy a body: `inline` replaces `k` of
//! `0..3` by `2` in a copy, which rustc would otherwise type `i32` wherever nothing else in
//! the copy fixes it, where the witness (and so the OpenCL C) has `k: usize`.

use super::RustEmitter;
use crate::base::ir::*;
use crate::base::paths::KERNEL;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use std::collections::BTreeSet;

impl RustEmitter<'_> {
    /// A kernel's or function's whole body: its statements, after the `TypeSlot`s its
    /// literals take their types from (`typed_literal`).
    pub fn body(&mut self, b: &Block) -> TokenStream {
        self.typed(|em| em.block_inner(b))
    }

    /// `emit`'s tokens, after the `TypeSlot`s their native literals use.
    pub(super) fn typed(&mut self, emit: impl FnOnce(&mut Self) -> TokenStream) -> TokenStream {
        let outer = self.tied.take();
        self.tied = self.native().then(BTreeSet::new);
        let tokens = emit(self);
        let tied = std::mem::replace(&mut self.tied, outer).unwrap_or_default();
        let slots = tied.iter().map(|&k| {
            let t = tie_ident(k);
            quote!(let #t = #KERNEL::TypeSlot::new();)
        });
        quote!(#(#slots)* #tokens)
    }

    /// An unsuffixed integer literal of slot `slot` (`lit` its tokens, negated or not), typed
    /// through the slot's `TypeSlot` inside `body`; elsewhere `lit` as it is.
    pub(super) fn typed_literal(
        &mut self,
        slot: Option<usize>,
        lit: TokenStream,
        span: Span,
    ) -> TokenStream {
        match (self.tied.as_mut(), slot) {
            (Some(tied), Some(k)) => {
                tied.insert(k);
                let t = tie_ident(k);
                quote_spanned!(span=> #t.lit(#lit))
            }
            _ => lit,
        }
    }
}

/// The `TypeSlot` of slot `k` in native code.
fn tie_ident(k: usize) -> proc_macro2::Ident {
    format_ident!("__nuda_t{}", k)
}
