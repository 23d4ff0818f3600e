//! Copies of one statement (stage 5, the Rust emitters): annotations that unroll (`dmine`,
//! `inline`, `unroll`, `vector`'s lanes) copy a body's statements, and each copy keeps the
//! slots of the statement it copies. The witness records each slot's type once, from the
//! first copy; the native form types each copy's literals as the witness typed them, through
//! one `TypeSlot` per slot (`inline` replaced `k` of `0..3` by `2`, which rustc would
//! otherwise type `i32` wherever nothing else fixes it, where `k` was a `usize`).

use super::{recorded_slots, RustEmitter};
use crate::base::ir::visit::shared::{walk_stmt, Visit};
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

    /// `s` as emitted, or, in the witness, nothing where it is a copy: every slot it records
    /// was recorded before and dropping it cannot leave a variable unassigned.
    pub(super) fn kept_stmt(&mut self, s: &Stmt) -> Option<TokenStream> {
        if !self.witness {
            return Some(self.stmt(s));
        }
        // What was recorded before it: its own inner statements record into the same set.
        let before = self.recorded.clone();
        let tokens = self.stmt(s);
        let mut slots = BTreeSet::new();
        recorded_slots(&tokens, &mut slots);
        let copy = !slots.is_empty() && slots.is_subset(&before) && droppable(s);
        self.recorded.extend(slots);
        (!copy).then_some(tokens)
    }
}

/// The `TypeSlot` of slot `k` in native code.
fn tie_ident(k: usize) -> proc_macro2::Ident {
    format_ident!("__nuda_t{}", k)
}

/// Whether leaving `s` out of the witness leaves every later statement compiling: it
/// declares nothing later statements see, and assigns no whole local (which a `let x;`
/// before it may wait for).
fn droppable(s: &Stmt) -> bool {
    struct Assigns(bool);
    impl Visit for Assigns {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let Stmt::Assign {
                place: Place::Var(_),
                op: None,
                ..
            } = s
            {
                self.0 = true;
            }
            walk_stmt(self, s);
        }
    }
    if matches!(s, Stmt::Let(_)) {
        return false;
    }
    let mut a = Assigns(false);
    a.visit_stmt(s);
    !a.0
}
