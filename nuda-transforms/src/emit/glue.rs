//! Glue shared by the kernel-launching macros: binding captured values, their native views and
//! type-witness phantoms, template fills, launch arguments, and `#[nucode]` companions.

use crate::base::ir::visit::shared::{walk_expr, walk_stmt, Visit};
use crate::base::ir::{Block, Expr, ExprKind, Place, Stmt};
use crate::base::paths::{KERNEL, PRIVATE};
use crate::checks::capture::Capture;
use crate::emit::native::slot_ident;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// The local that holds capture `i` (a reference to the captured value).
pub fn capture_ident(i: usize) -> syn::Ident {
    format_ident!("__nuda_c{}", i)
}

/// `let __nuda_c0 = &mut b;` for each capture.
pub fn bind_captures(captures: &[Capture]) -> TokenStream {
    let binds = captures.iter().enumerate().map(|(i, c)| {
        let (id, name) = (capture_ident(i), &c.name);
        if c.written {
            // Method syntax auto-dereferences: a captured `&mut NuArray` reborrows without
            // needing a `mut` binding, and an owned array borrows mutably as usual. A
            // `NuShared` handle (shared writes) is copied instead, through `&self`; the `&mut`
            // around either gives the traits the `&mut` they take.
            {
                let kernel_at = KERNEL.at(c.span);
                quote_spanned!(c.span=> let #id = &mut {
                #[allow(unused_imports)]
                use #kernel_at::{ByMut as _, ByShared as _};
                #name.__nuda_by_mut()
            };)
            }
        } else {
            quote_spanned!(c.span=> let #id = &#name;)
        }
    });
    quote!(#(#binds)*)
}

/// Whether a name is written like a constant (`SCALE`, `N2`): such a capture is not rebound
/// in native and witness code, since `let SCALE = ..` would be a pattern matching the
/// constant. The constant itself is in scope there, with the same value and type.
pub use crate::syntax::looks_const;

/// Rebinds each capture's name to a view (native) or a phantom view (witness).
pub fn capture_views(captures: &[Capture], witness: bool) -> TokenStream {
    capture_views_but(captures, &[], witness)
}

/// As [`capture_views`], but for the captures named in `skip` (vectors a scan's first pass
/// has not grown yet). Each capture keeps its own binding, `__nuda_c<its index>`.
pub fn capture_views_but(captures: &[Capture], skip: &[&syn::Ident], witness: bool) -> TokenStream {
    let kept = |c: &Capture| (c.written || !looks_const(&c.name)) && !skip.contains(&&c.name);
    let binds = captures
        .iter()
        .enumerate()
        .filter(|(_, c)| kept(c))
        .map(|(i, c)| {
            let (id, name) = (capture_ident(i), &c.name);
            match (witness, c.written) {
                (true, false) if c.is_number() => {
                    let kernel_at = KERNEL.at(c.span);
                    quote_spanned!(c.span=>
                        let #name = #kernel_at::witness_ref(#id);
                        #kernel_at::witness_number(#id, &#name);
                    )
                }
                (true, false) => {
                    let kernel_at = KERNEL.at(c.span);
                    quote_spanned!(c.span=> let #name = #kernel_at::witness_ref(#id);)
                }
                (true, true) => {
                    let kernel_at = KERNEL.at(c.span);
                    quote_spanned!(c.span=> let #name = #kernel_at::witness_mut(&*#id);)
                }
                (false, false) => {
                    // Two steps: the fallible one has a concrete type, and the view's type may
                    // still be an unsuffixed integer's inference variable (see `native_ref`).
                    {
                        let kernel_at = KERNEL.at(c.span);
                        quote_spanned!(c.span=>
                            #kernel_at::Capture::native_ready(#id)?;
                            let #name = #kernel_at::Capture::native_ref(#id);
                        )
                    }
                }
                (false, true) => {
                    let kernel_at = KERNEL.at(c.span);
                    quote_spanned!(c.span=> let #name = #kernel_at::CaptureMut::native_mut(#id)?;)
                }
            }
        });
    quote!(#(#binds)*)
}

/// Inside a native body's chunk closure: each captured view (and scalar) copied into a local
/// of the same name, so LLVM sees values, not memory a store could change. The written arrays
/// named in `plain` become plain-store views (see `crate::checks::disjoint`).
pub fn hoist_views(captures: &[Capture], plain: &[String]) -> TokenStream {
    let hoists = captures
        .iter()
        .filter(|c| c.written || !looks_const(&c.name))
        .map(|c| {
            let name = &c.name;
            let copy = quote!(#PRIVATE::hoist(&#name));
            // A capture only the host side uses (an annotation's factor) is not read.
            if c.written && plain.contains(&name.to_string()) {
                // SAFETY (of the generated code): `crate::checks::disjoint` proved that no two
                // work-items touch one element of this array, `plain_stores`'s contract.
                quote!(#[allow(unused_variables)] let #name = unsafe { #KERNEL::PlainStores::plain_stores(#copy) };)
            } else {
                quote!(#[allow(unused_variables)] let #name = #copy;)
            }
        });
    quote!(#(#hoists)*)
}

/// The fills of a template: type slots (those the witness records), then capture descriptors,
/// then `extra` (the types of `nuwork!`'s reduction variables).
/// With `bake` (`nuwork!`), a read capture named as a constant gets its value as a literal
/// where its type has one (`PRIVATE::Baked`).
pub fn fills(
    slots: usize,
    recorded: &std::collections::BTreeSet<usize>,
    (captures, bake): (&[Capture], bool),
    extra: &[TokenStream],
) -> TokenStream {
    let types = (0..slots).map(|k| {
        let s = slot_ident(k);
        if recorded.contains(&k) {
            quote!(#PRIVATE::Fill::Type(#KERNEL::cl_type(&#s)))
        } else {
            // Referenced by no template either: its fill is never read.
            quote!(#PRIVATE::Fill::Type("void"))
        }
    });
    let caps = captures.iter().enumerate().map(|(i, c)| {
        let id = capture_ident(i);
        if c.written {
            { let kernel_at = KERNEL.at(c.span); quote_spanned!(c.span=> #PRIVATE::Fill::Capture(#kernel_at::CaptureMut::desc_mut(#id))) }
        } else if bake && looks_const(&c.name) {
            quote_spanned!(c.span=> {
                #[allow(unused_imports)]
                use #PRIVATE::{BakedFill as _, PlainFill as _};
                (&#PRIVATE::Baked(#id)).fill()
            })
        } else {
            { let kernel_at = KERNEL.at(c.span); quote_spanned!(c.span=> #PRIVATE::Fill::Capture(#kernel_at::Capture::desc(#id))) }
        }
    });
    quote!([#(#types,)* #(#caps,)* #(#extra,)*])
}

/// Pushes each capture's kernel arguments onto `__nuda_l`.
pub fn push_captures(captures: &[Capture]) -> TokenStream {
    let pushes = captures.iter().enumerate().map(|(i, c)| {
        let id = capture_ident(i);
        if c.written {
            quote!(__nuda_l = #KERNEL::CaptureMut::push_mut(#id, __nuda_l);)
        } else {
            quote!(__nuda_l = #KERNEL::Capture::push_ref(#id, __nuda_l);)
        }
    });
    quote!(#(#pushes)*)
}

/// The companions of the called `#[nucode]` functions, from the witness's call slots (see
/// `nucode.rs`): each slot's type is the function's twin, of the instance the call makes.
pub fn companions(calls: &[syn::Path]) -> TokenStream {
    let refs = calls.iter().enumerate().map(|(k, p)| {
        let f = crate::emit::native::call_ident(k);
        quote_spanned!(p.span()=> #PRIVATE::nucode_of(&#f))
    });
    quote!(&[#(#refs),*])
}

/// What the launch-time proof knows of each capture, as an array expression.
pub fn proof_inputs(captures: &[Capture]) -> TokenStream {
    let inputs = captures.iter().enumerate().map(|(i, c)| {
        let id = capture_ident(i);
        if c.written {
            quote!(#KERNEL::CaptureMut::proof_input_mut(#id))
        } else {
            quote!(#KERNEL::Capture::proof_input(#id))
        }
    });
    quote!([#(#inputs),*])
}

/// Hygiene guards for a type witness: `let NAME = ForeignVariable;` for every variable use in
/// `blocks`, each with its use's span. The macros follow names by their text, but rustc
/// resolves a variable by its hygiene context too: in a `macro_rules!` that passes in a
/// caller's `i` where the kernel declares its own `i`, the two differ. A use the kernel's own
/// binding (a loop variable, a `let`, a capture's view) reaches shadows its guard and
/// compiles; a use from another context reaches only its guard, and the witness fails to
/// type-check at that use, instead of the native code silently using another variable than
/// the one the OpenCL C, the proof and the plain-store rule saw.
pub fn hygiene_guards(blocks: &[&Block]) -> TokenStream {
    let mut uses = Uses(Vec::new());
    for b in blocks {
        uses.visit_block(b);
    }
    // Constants are items, which hygiene does not hide (and a `let` would match them). The
    // copies annotations make keep their uses' spans: one guard per name and span is enough
    // (a span's debug form includes its hygiene context).
    let mut seen = std::collections::HashSet::new();
    let names = uses
        .0
        .into_iter()
        .filter(|n| !looks_const(n) && seen.insert(format!("{n} {:?}", n.span())));
    // quote! binds each name a repetition interpolates: a constant's must be a local's.
    let kernel = KERNEL;
    quote!(#( #[allow(unused_variables)] let #names = #kernel::ForeignVariable; )*)
}

/// Every identifier a body uses as a variable or an array, as written (with its span).
struct Uses(Vec<syn::Ident>);

impl Visit for Uses {
    fn visit_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(v) | ExprKind::Index { base: v, .. } => self.0.push(v.clone()),
            _ => {}
        }
        walk_expr(self, e);
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        if let Stmt::Assign {
            place: Place::Var(v) | Place::Index { base: v, .. } | Place::Member { base: v, .. },
            ..
        } = s
        {
            self.0.push(v.clone());
        }
        walk_stmt(self, s);
    }
}

/// The user's code at `span` as a failed build quotes it: the first line of its source text
/// (the tokens where rustc gives no text), in backticks, at most 100 characters.
pub fn quoted(span: proc_macro2::Span, tokens: &TokenStream) -> String {
    let text = span.source_text().unwrap_or_else(|| tokens.to_string());
    let line = text.lines().next().unwrap_or("").trim();
    let cut: String = line.chars().take(100).collect();
    let more = if cut.len() < line.len() || text.lines().nth(1).is_some() {
        " .."
    } else {
        ""
    };
    format!("`{cut}{more}`")
}

/// A macro call as a failed build quotes it: `nfor!` and the first line of its input (its
/// path's span alone covers only the path).
pub fn quoted_macro(m: &syn::Macro) -> String {
    let path = m.path.to_token_stream().to_string().replace(' ', "");
    let inner = quoted(m.delimiter.span().join(), &m.tokens);
    format!("`{path}!{}", inner.trim_start_matches('`'))
}
