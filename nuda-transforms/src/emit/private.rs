//! The private memory a kernel's work-item holds, for the launch to check against the
//! device (emitters, glue): each `let` with the size of its type, which rustc knows through
//! the witness's slot, and each captured private array. An array too large for a
//! work-item's stack crashed PoCL and overflowed the native engine's worker stacks; the
//! launch refuses it instead (`nuda_runtime::macro_support::check_private`).

use crate::base::ir::visit::shared::{walk_stmt, Visit};
use crate::base::ir::{Block, Pat, Slot, Stmt};
use crate::base::paths::{KERNEL, PRIVATE};
use crate::checks::capture::Capture;
use crate::emit::glue::capture_ident;
use crate::emit::native::slot_ident;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use std::collections::BTreeSet;

/// A `let` of a kernel body: the name it binds, its type's slot and where it is.
pub struct PrivateLet {
    name: String,
    slot: Slot,
    span: Span,
}

/// Every `let` of `body`, nested blocks and loops included.
pub fn lets(body: &Block) -> Vec<PrivateLet> {
    struct Walk(Vec<PrivateLet>);
    impl Visit for Walk {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let Stmt::Let(l) = s {
                let names: Vec<String> = match &l.pat {
                    Pat::Ident { name, .. } => vec![name.to_string()],
                    Pat::Tuple(parts) => parts
                        .iter()
                        .map(|p| p.as_ref().map_or("_".into(), |p| p.0.to_string()))
                        .collect(),
                };
                for (name, &slot) in names.into_iter().zip(&l.slots) {
                    let span = l.span;
                    self.0.push(PrivateLet { name, slot, span });
                }
            }
            walk_stmt(self, s);
        }
    }
    let mut w = Walk(Vec::new());
    w.visit_block(&body);
    w.0
}

/// `&[(name, bytes, "file:line")]` for the lets whose types the witness records.
pub fn table(lets: &[PrivateLet], recorded: &BTreeSet<usize>) -> TokenStream {
    let rows = lets.iter().filter(|l| recorded.contains(&l.slot)).map(|l| {
        let (name, slot) = (&l.name, slot_ident(l.slot));
        // `line!()` at the let's own span: the user's line.
        let line = quote_spanned!(l.span=> ::core::line!());
        quote!((#name, #PRIVATE::slot_bytes(&#slot), ::core::concat!(::core::file!(), ":", #line)))
    });
    quote!(&[#(#rows),*])
}

/// `&[(name, bytes)]` of the captures passed by value (a captured `[T; N]`).
pub fn captured(captures: &[Capture]) -> TokenStream {
    let rows = captures
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.written)
        .map(|(i, c)| {
            let (id, name) = (capture_ident(i), c.name.to_string());
            quote!((#name, #KERNEL::Capture::private_bytes(#id)))
        });
    quote!(&[#(#rows),*])
}
