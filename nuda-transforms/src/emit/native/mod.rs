//! Rust emission of kernel bodies, for the native engine and for the type witness.
//!
//! The native form runs on host views: array elements are read and written through the
//! views' `load`/`store`, which check every index and record a fault at the access's site
//! (`emit::sites`) instead of panicking; integer arithmetic goes through
//! `nuda::__private::Arith`, which wraps and faults on division by zero exactly as the
//! generated OpenCL C does, in debug builds too; work-item builtins ask the `WorkItem`. The
//! witness form is the same code with Rust's own operators, inside a closure that is never
//! called, with captures bound to phantom views and every slotted expression recorded into a
//! `__nuda_s<k>` variable, so rustc infers the types the OpenCL C needs exactly as it would
//! for plain Rust.

mod barrier_split;
mod expr;
mod lanes;
mod panels;
mod stage;
mod stmt;
#[cfg(test)]
mod test;
mod typed_literals;

pub use barrier_split::slot_ident as phase_slot;

use crate::base::paths::KERNEL;
use crate::checks::capture::{Analysis, Context};
use crate::checks::sites::{SiteKind, Sites};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

/// What the Rust is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The native engine: captures are views.
    Native,
    /// The type witness: the native code, never run, recording slot types.
    Witness,
    /// Host loops (`annot!` outside kernels): captures are the arrays themselves.
    Host,
    /// A `nuwork!` mapped range, evaluated on the host before the launch: captures are the
    /// arrays themselves, but arithmetic and reads are the kernel's (wrapping, faults
    /// recorded at `__NUDA_RANGES` sites), so a bad range is an `Err`, not a panic.
    Range,
}

/// Emits Rust tokens for a body.
pub struct RustEmitter<'a> {
    analysis: &'a Analysis,
    context: Context,
    witness: bool,
    host: bool,
    range: bool,
    depth: usize,
    /// Variables declared without a value, by name: their slot, recorded at assignment.
    pending: HashMap<String, usize>,
    /// The program's check sites, and the path of their static table.
    sites: Option<(&'a Sites, TokenStream)>,
    /// In the witness, inside a `vector(w)` nest: what differs between its lanes.
    lanes: Option<std::rc::Rc<crate::checks::lanes::Plan>>,
    /// In a split barrier kernel's work-item loop (`barrier_split`): what a `return` becomes.
    item_exit: Option<TokenStream>,
    /// The split conditions numbered so far, for their agreement variables.
    heads: usize,
    /// On the native engine, inside a `vector(w)` nest run with its lanes side by side.
    lane_cx: Option<lanes::LaneCx>,
    /// In a staged nest on the native engine: the staged arrays' panels.
    staging: Option<stage::NativeStaging>,
    /// On the native engine, inside `body` or `phased`: the slots whose unsuffixed literals
    /// take their type from a `TypeSlot` (`typed_literal`), `None` elsewhere.
    tied: Option<std::collections::BTreeSet<usize>>,
}

/// The identifier of slot `k`'s recording variable.
pub fn slot_ident(k: usize) -> Ident {
    format_ident!("__nuda_s{}", k)
}

impl<'a> RustEmitter<'a> {
    /// An emitter for the native engine (`witness == false`) or the type witness.
    pub fn new(analysis: &'a Analysis, context: Context, mode: Mode) -> Self {
        let (witness, range) = (mode == Mode::Witness, mode == Mode::Range);
        RustEmitter {
            analysis,
            context,
            witness,
            host: mode == Mode::Host || range,
            range,
            depth: 0,
            pending: HashMap::new(),
            sites: None,
            lanes: None,
            item_exit: None,
            heads: 0,
            lane_cx: None,
            staging: None,
            tied: None,
        }
    }

    /// Numbers checks through `sites`, whose static table the code finds at `table` (a path
    /// to an array or slice of `nuda::__private::Site`).
    pub fn with_sites(mut self, sites: &'a Sites, table: TokenStream) -> Self {
        self.sites = Some((sites, table));
        self
    }

    /// Whether the code runs on the native engine (not the witness, not host loops).
    fn native(&self) -> bool {
        !self.witness && !self.host
    }

    /// Whether arithmetic is the kernel's (wrapping, division faults recorded): on the
    /// native engine and in `nuwork!` ranges.
    fn kernel_arith(&self) -> bool {
        self.native() || self.range
    }

    /// `&<table>[k]` for the site of (kind, name, rank, span). Only kernel code (native and
    /// witness) has sites; host loops check nothing and panic as plain Rust does.
    fn site(&self, kind: SiteKind, name: &str, rank: usize, span: Span) -> TokenStream {
        match &self.sites {
            Some((sites, table)) => {
                let k = sites.intern(kind, name, rank, span);
                quote::quote_spanned!(span=> &#table[#k])
            }
            None => quote!(compile_error!("nuda bug: a check site in host code")),
        }
    }

    /// Records `value` into slot `slot` in the witness; the native form is just `value`.
    fn record(&self, slot: Option<usize>, value: TokenStream, span: Span) -> TokenStream {
        match (self.witness, slot) {
            (true, Some(k)) => {
                let s = slot_ident(k);
                {
                    let kernel_at = KERNEL.at(span);
                    quote::quote_spanned!(span=> { let __nuda_v = #value; #s = #kernel_at::TypeSlot::of(&__nuda_v); __nuda_v })
                }
            }
            _ => value,
        }
    }

    /// The statement that records variable `var` into `slot` (witness only).
    fn record_var(&self, slot: usize, var: &syn::Ident) -> TokenStream {
        if !self.witness {
            return TokenStream::new();
        }
        let s = slot_ident(slot);
        quote!(#s = #KERNEL::TypeSlot::of(&#var);)
    }

    /// In the witness, slot `slot` takes the type written after `:` (`t` is `: T`).
    fn record_type(&self, slot: usize, t: &TokenStream) -> TokenStream {
        if !self.witness {
            return TokenStream::new();
        }
        let s = slot_ident(slot);
        let ty: TokenStream = t.clone().into_iter().skip(1).collect();
        quote!(#s = #KERNEL::TypeSlot::<#ty>::new();)
    }

    /// In the witness, a vector access's value (`vector(w)` lanes at an index that differs
    /// between them) asks for an element type OpenCL C has vectors of; elsewhere `value`.
    fn lane_checked(
        &self,
        index: &[crate::base::ir::Expr],
        value: TokenStream,
        span: Span,
    ) -> TokenStream {
        match &self.lanes {
            Some(p) if index.iter().any(|i| !p.uniform(i)) => {
                let kernel_at = KERNEL.at(span);
                quote::quote_spanned!(span=> #kernel_at::lane(#value))
            }
            _ => value,
        }
    }

    /// Whether accesses to `name` go through a writable view's `get`/`set`.
    /// Whether `name` is a captured value the native engine sees as a view.
    fn view(&self, name: &syn::Ident) -> bool {
        !self.host && self.analysis.capture(name).is_some()
    }
}

/// The slots a witness records: the `__nuda_s<k>` identifiers in its tokens. A slot nothing
/// records (an annotation's constant factor, say) is not declared, or rustc could not infer it.
pub fn recorded_slots(witness: &TokenStream, out: &mut std::collections::BTreeSet<usize>) {
    for tt in witness.clone() {
        match tt {
            proc_macro2::TokenTree::Ident(id) => {
                if let Some(k) = id
                    .to_string()
                    .strip_prefix("__nuda_s")
                    .and_then(|k| k.parse().ok())
                {
                    out.insert(k);
                }
            }
            proc_macro2::TokenTree::Group(g) => recorded_slots(&g.stream(), out),
            _ => {}
        }
    }
}

/// The call slot of the `k`-th called `#[nucode]` function: the witness stores a value of the
/// function's twin type in it, which names the instance a generic function's call makes.
pub fn call_ident(k: usize) -> syn::Ident {
    quote::format_ident!("__nuda_f{}", k)
}

/// `let mut __nuda_f<k> = None;` for `n` called functions.
pub fn call_decls(n: usize) -> TokenStream {
    let ids = (0..n).map(call_ident);
    quote!(#( let mut #ids = ::core::option::Option::None; )*)
}

/// `let mut __nuda_s<k> = TypeSlot::new();` for the recorded slots: zero-sized, so a
/// private array's type takes no room on the host's stack.
pub fn slot_decls(recorded: &std::collections::BTreeSet<usize>) -> TokenStream {
    let ids = recorded.iter().map(|&k| slot_ident(k));
    let kernel = KERNEL;
    quote!(#( let mut #ids = #kernel::TypeSlot::new(); )*)
}
