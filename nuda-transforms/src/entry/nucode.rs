//! `#[nucode] fn f(..) -> T { .. }`: a function kernels may call and the host may call
//! unchanged. Beside the function goes its hidden twin in the type namespace, a struct of
//! the same name (functions and types live in different namespaces, so `use m::f;` imports
//! both): its associated items hold the OpenCL C template, type witness, check sites and
//! called functions kernels link in (`f::__NUDA_NUCODE`), and the native engine's form of the
//! body (`f::__nuda_native`), whose arithmetic wraps and whose faults go to the launch.
//!
//! Stage 7 of the pipeline in `lib.rs` (entry points).

use crate::base::ctxt::Ctxt;
use crate::base::ir::{Block, Expr, ExprKind, Ty};
use crate::base::paths::{KERNEL, PRIVATE};
use crate::checks::capture::{self, Context};
use crate::emit::cl::{ClEmitter, Env, Shared};
use crate::emit::glue::companions;
use crate::emit::native::{recorded_slots, slot_decls, slot_ident, Mode, RustEmitter};
use crate::syntax::Lower;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType};

/// What `#[nucode]` emits beside the function.
struct Parts {
    slots: usize,
    template: String,
    witness: TokenStream,
    native: TokenStream,
    sites: TokenStream,
    /// The body's proof program (`usize` width only: nucode checks all stay).
    proof: TokenStream,
    calls: Vec<syn::Path>,
    /// The body's `let`s, whose sizes a launch counts.
    lets: Vec<crate::emit::private::PrivateLet>,
    /// The constants it names, in capture order.
    consts: Vec<syn::Ident>,
}

/// Expands `#[nucode]`.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "#[nucode] takes no arguments"));
    }
    let f: ItemFn = syn::parse2(item)?;
    let parts = build(&f)?;
    Ok(glue(&f, &parts))
}

/// The function template `#[nucode]` would embed, for inspection and snapshot tests.
pub fn template(item: TokenStream) -> syn::Result<String> {
    let f: ItemFn = syn::parse2(item)?;
    Ok(build(&f)?.template)
}

fn build(f: &ItemFn) -> syn::Result<Parts> {
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    let mut named = Vec::new();
    let mut unpack = TokenStream::new();
    let params = params(&cx, &mut lower, f, (&mut named, &mut unpack));
    let (ret, outs) = match &f.sig.output {
        ReturnType::Default => (None, Vec::new()),
        ReturnType::Type(_, t) => match &**t {
            syn::Type::Tuple(tt) if tt.elems.len() >= 2 => (
                None,
                tt.elems
                    .iter()
                    .filter_map(|e| value_ty(&mut lower, e, &mut named))
                    .collect(),
            ),
            t => (value_ty(&mut lower, t, &mut named), Vec::new()),
        },
    };
    for g in &f.sig.generics.params {
        if !matches!(g, syn::GenericParam::Type(_)) {
            cx.error(g.span(), "#[nucode] functions are generic over types only, as in `fn f<T: nuda::Element>(x: T) -> T`; lifetimes and const parameters are not supported");
        }
    }
    let mut body = lower.block(&f.block);
    crate::annot::expand_block(&cx, &mut lower.slots, &mut body);
    let slots = lower.slots;
    // `lower` borrows `cx`, which `check` consumes; it ends here.
    let _ = lower;
    let mut parts = forms(&cx, f, &params, (ret, &outs), &mut body, slots);
    parts.witness = record_named(&named, parts.witness);
    let (witness, native) = (&parts.witness, &parts.native);
    parts.witness = quote!(#unpack #witness);
    parts.native = quote!(#unpack #native);
    cx.check()?;
    Ok(parts)
}

/// The function's forms: OpenCL C, witness, native twin, proof program.
fn forms(
    cx: &Ctxt,
    f: &ItemFn,
    params: &[(syn::Ident, Ty)],
    (ret, outs): (Option<Ty>, &[Ty]),
    body: &mut Block,
    slots: usize,
) -> Parts {
    let names: Vec<syn::Ident> = params.iter().map(|(n, _)| n.clone()).collect();
    if !outs.is_empty() {
        if let Some(t) = &mut body.tail {
            untyped_tuple_tail(t);
        }
    }
    let analysis = capture::analyze(cx, body, &names, Context::Nucode);
    // Constants (`const K: f32 = 2.5;` outside, `K` inside) are written into the function's
    // text as literals; anything else from outside has no way in.
    for c in analysis
        .captures
        .iter()
        .filter(|c| !crate::syntax::looks_const(&c.name))
    {
        let msg = format!(
            "#[nucode] functions use their parameters, locals and constants only; `{}` is none of them (pass it as a parameter)",
            c.name
        );
        cx.error(c.span, msg);
    }
    refuse_self_calls(cx, f, &analysis.calls);
    let shared = Shared::new();
    let env = Env {
        analysis: &analysis,
        capture_base: slots,
        context: Context::Nucode,
        shared: &shared,
        threads: None,
    };
    let template = ClEmitter::new(cx, env).function(params, ret, outs, body);
    let ident = &f.sig.ident;
    let emit = |mode| {
        RustEmitter::new(&analysis, Context::Nucode, mode)
            .with_sites(&shared.sites, quote!(#ident::__NUDA_SITES))
            .body(body)
    };
    let (witness, native) = (emit(Mode::Witness), emit(Mode::Native));
    let mut proof = crate::proof::Proof::new(&analysis, &shared.sites, Context::Nucode);
    proof.function(params, body);
    Parts {
        slots,
        template,
        witness,
        native,
        sites: shared.sites.table(),
        proof: proof.tokens(),
        consts: analysis.captures.iter().map(|c| c.name.clone()).collect(),
        calls: analysis.calls,
        lets: crate::emit::private::lets(body),
    }
}

/// The `if`s and blocks that choose a returned tuple have no C type (each branch writes the
/// components out): their slots go, so that the witness does not ask for a tuple's C type.
fn untyped_tuple_tail(e: &mut Expr) {
    match &mut e.kind {
        ExprKind::If { then, els, .. } => {
            e.slot = None;
            if let Some(t) = &mut then.tail {
                untyped_tuple_tail(t);
            }
            if let Some(x) = els {
                untyped_tuple_tail(x);
            }
        }
        ExprKind::Block(b) => {
            e.slot = None;
            if let Some(t) = &mut b.tail {
                untyped_tuple_tail(t);
            }
        }
        ExprKind::Paren(x) => untyped_tuple_tail(x),
        _ => {}
    }
}

/// OpenCL C has no recursion, and on the native engine deep recursion would overflow the
/// stack: a function that calls itself is refused here. A cycle through several functions
/// is only visible when a kernel links them: the launch refuses it then, on every engine.
fn refuse_self_calls(cx: &Ctxt, f: &ItemFn, calls: &[syn::Path]) {
    let own = &f.sig.ident;
    let itself = |p: &&syn::Path| match p.segments.len() {
        1 => p.segments[0].ident == *own,
        2 => p.segments[0].ident == "self" && p.segments[1].ident == *own,
        _ => false,
    };
    if let Some(p) = calls.iter().find(itself) {
        let msg = format!("#[nucode]: `{own}` calls itself, and kernels cannot recurse (OpenCL C has no recursion); write the recursion as a loop");
        cx.error(p.span(), msg);
    }
}

/// A parameter's or result's type: a scalar, `[f32; 4]`, or a user type (a `#[nustruct]`)
/// typed through a new slot, listed in `named` for the witness to fill.
fn value_ty(
    lower: &mut Lower<'_>,
    t: &syn::Type,
    named: &mut Vec<(usize, syn::Type)>,
) -> Option<Ty> {
    if !crate::syntax::body::is_named_type(t) {
        return lower.ty(t);
    }
    let k = lower.slot();
    named.push((k, t.clone()));
    Some(Ty::Slot(k))
}

/// The witness, after statements that fill the user types' slots: `TypeSlot::<T>::new()`
/// has type `TypeSlot<T>`, all a slot needs.
fn record_named(named: &[(usize, syn::Type)], witness: TokenStream) -> TokenStream {
    let fills = named.iter().map(|(k, t)| {
        let s = slot_ident(*k);
        quote!(#s = #KERNEL::TypeSlot::<#t>::new();)
    });
    quote!(#(#fills)* #witness)
}

/// The parameters as OpenCL C has them: a tuple parameter is one per component, and the
/// Rust forms begin by `unpack`ing it into its components' locals.
fn params(
    cx: &Ctxt,
    lower: &mut Lower<'_>,
    f: &ItemFn,
    (named, unpack): (&mut Vec<(usize, syn::Type)>, &mut TokenStream),
) -> Vec<(syn::Ident, Ty)> {
    let mut out = Vec::new();
    for arg in &f.sig.inputs {
        let FnArg::Typed(pt) = arg else {
            cx.error(arg.span(), "#[nucode] functions take no `self`");
            continue;
        };
        let Pat::Ident(pi) = &*pt.pat else {
            cx.error(
                pt.pat.span(),
                "#[nucode] parameters are plain names, as in `x: f32`",
            );
            continue;
        };
        if pi.mutability.is_some() {
            cx.error(
                pi.span(),
                "#[nucode] parameters are values; copy one into a local to change it",
            );
        }
        match &*pt.ty {
            syn::Type::Tuple(t) if t.elems.len() >= 2 => {
                let parts = lower.tuple_param(&pi.ident, t.elems.len());
                for (part, e) in parts.iter().zip(&t.elems) {
                    if let Some(ty) = value_ty(lower, e, named) {
                        out.push((part.clone(), ty));
                    }
                }
                let p = &pi.ident;
                unpack.extend(quote!(let (#(#parts),*) = #p;));
            }
            t => {
                if let Some(t) = value_ty(lower, t, named) {
                    out.push((pi.ident.clone(), t));
                }
            }
        }
    }
    out
}

fn glue(f: &ItemFn, p: &Parts) -> TokenStream {
    let ident = &f.sig.ident;
    let (impl_g, ty_g, _) = f.sig.generics.split_for_impl();
    let turbofish = ty_g.as_turbofish();
    let where_c = where_static(f);
    let (inputs, output, sites) = (&f.sig.inputs, &f.sig.output, &p.sites);
    let ret = match output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, t) => quote!(#t),
    };
    let (twin, witness, nucode) = (twin(f), witness_fns(f, p), nucode_fn(f, p));
    let (native, f) = (&p.native, with_builtins(f));
    quote! {
        #f

        #twin

        #[doc(hidden)]
        #[allow(clippy::all, unused_parens, non_upper_case_globals, dead_code)]
        impl #impl_g #ident #ty_g #where_c {
            /// The check sites of the kernel forms.
            pub const __NUDA_SITES: &'static [#PRIVATE::Site] = {
                static SITES: #sites;
                &SITES
            };

            #witness

            /// The call as a kernel's witness types it: the result, and this twin, whose
            /// type names the instance (never called).
            #[allow(unused_variables)]
            pub fn __nuda_call(#inputs) -> (#ret, Self) {
                // Names the function, which kernels use through this twin alone.
                let _ = #ident #turbofish;
                ::core::unreachable!("nuda: the type witness is never called")
            }

            /// The body as the native engine runs it.
            #[inline(always)]
            pub fn __nuda_native<const TRUST: bool>(__nuda_fault: #PRIVATE::Checker<'_, TRUST>, #inputs) #output {
                // No launch-time proof reaches into functions: their sites stay checked.
                let __nuda_fault = __nuda_fault.checking();
                #native
            }
        }

        #[doc(hidden)]
        #[allow(clippy::all)]
        // SAFETY: the OpenCL C this macro generated from the function's own body.
        unsafe impl #impl_g #PRIVATE::NucodeFn for #ident #ty_g #where_c {
            fn nucode() -> &'static #PRIVATE::Nucode {
                #nucode
            }
        }
    }
}

/// The function as the host calls it, with the builtin functions kernels may call anywhere
/// (`rsqrt`) in scope: they are no functions of Rust's, and the body must mean on the host what
/// it means in a kernel.
fn with_builtins(f: &ItemFn) -> ItemFn {
    let names = crate::base::ir::builtins::BUILTIN_FNS
        .iter()
        .filter(|b| !b.kernel_only())
        .map(|b| syn::Ident::new(b.name, proc_macro2::Span::call_site()));
    let import: syn::Stmt = syn::parse_quote! {
        #[allow(unused_imports)]
        use #PRIVATE::{#(#names),*};
    };
    let mut f = f.clone();
    f.block.stmts.insert(0, import);
    f
}

/// The function's twin in the type namespace: a unit struct, generic over the function's
/// type parameters so that each instance has its own type.
fn twin(f: &ItemFn) -> TokenStream {
    let (vis, ident) = (&f.vis, &f.sig.ident);
    let params: Vec<&syn::Ident> = f.sig.generics.type_params().map(|t| &t.ident).collect();
    let body = match params.is_empty() {
        true => quote!({}),
        // Braced: a tuple struct's constructor would clash with the function's name.
        false => quote!({ __nuda: ::core::marker::PhantomData<fn() -> (#(#params,)*)> }),
    };
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident <#(#params),*> #body
    }
}

/// The function's where clause, plus `T: 'static` for each type parameter: an instance's
/// companion is kept by its type's `TypeId`.
fn where_static(f: &ItemFn) -> TokenStream {
    let params = f.sig.generics.type_params().map(|t| &t.ident);
    let own = f.sig.generics.where_clause.as_ref().map(|w| &w.predicates);
    let own = own.into_iter().flat_map(|p| p.iter());
    quote!(where #(#params: 'static,)* #(#own,)*)
}

/// The companion: a static for a plain function, one made on first use per instance of a
/// generic one.
fn nucode_fn(f: &ItemFn, p: &Parts) -> TokenStream {
    let (name, generic) = (f.sig.ident.to_string(), !f.sig.generics.params.is_empty());
    let (template, proof) = (&p.template, &p.proof);
    // A static's initializer cannot name `Self`: a plain function's twin is named instead.
    let this = match generic {
        true => quote!(Self),
        false => f.sig.ident.to_token_stream(),
    };
    let make = quote! {
        #PRIVATE::Nucode {
            name: #name,
            template: #template,
            types: #this::__nuda_types,
            calls: #this::__nuda_calls,
            private: #this::__nuda_private,
            sites: #this::__NUDA_SITES,
            proof: {
                static PROOF: #proof;
                &PROOF
            },
        }
    };
    match generic {
        true => quote!(#PRIVATE::nucode_instance::<Self>(|| #make)),
        false => quote! {
            static NUCODE: #PRIVATE::Nucode = #make;
            &NUCODE
        },
    }
}

/// The witness, once: the types of its slots and the instances its calls make.
fn witness_fns(f: &ItemFn, p: &Parts) -> TokenStream {
    let (inputs, output) = (&f.sig.inputs, &f.sig.output);
    let mut recorded = std::collections::BTreeSet::new();
    recorded_slots(&p.witness, &mut recorded);
    let decls = slot_decls(&recorded);
    let call_decls = crate::emit::native::call_decls(p.calls.len());
    let types = (0..p.slots).map(|k| {
        if recorded.contains(&k) {
            let s = slot_ident(k);
            quote!(#PRIVATE::Fill::Type(#KERNEL::cl_type(&#s)))
        } else {
            quote!(#PRIVATE::Fill::Type("void"))
        }
    });
    let (calls, witness) = (companions(&p.calls), &p.witness);
    let private = crate::emit::private::table(&p.lets, &recorded);
    // The constants the body names, after the slots, in capture order (see `ClEmitter::var`).
    let consts = p
        .consts
        .iter()
        .map(|c| quote_spanned!(c.span()=> #PRIVATE::const_fill(&#c)));
    quote! {
        fn __nuda_witness() -> (::std::vec::Vec<#PRIVATE::Fill>, ::std::vec::Vec<&'static #PRIVATE::Nucode>, usize) {
            #decls
            #call_decls
            {
                #[allow(unused, unreachable_code, clippy::all)]
                let __nuda_witness = |__nuda_fault: #PRIVATE::Checker<'_, false>, #inputs| #output { #witness };
            }
            let __nuda_calls: &[&'static #PRIVATE::Nucode] = #calls;
            let __nuda_private: &[#PRIVATE::PrivateLet] = #private;
            let __nuda_bytes = __nuda_private.iter().map(|l| l.1).sum();
            (::std::vec![#(#types,)* #(#consts,)*], __nuda_calls.to_vec(), __nuda_bytes)
        }

        fn __nuda_types() -> ::std::vec::Vec<#PRIVATE::Fill> {
            Self::__nuda_witness().0
        }

        fn __nuda_calls() -> ::std::vec::Vec<&'static #PRIVATE::Nucode> {
            Self::__nuda_witness().1
        }

        fn __nuda_private() -> usize {
            Self::__nuda_witness().2
        }
    }
}
