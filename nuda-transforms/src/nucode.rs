//! `#[nucode] fn f(..) -> T { .. }`: a function kernels may call and the host may call
//! unchanged. Next to the function goes a hidden companion static holding its OpenCL C
//! template, its type witness and the `#[nucode]` functions it calls, which kernels link in.

use crate::capture::{self, Context};
use crate::ctxt::Ctxt;
use crate::emit::cl::{ClEmitter, Env};
use crate::emit::glue::companions;
use crate::emit::native::{recorded_slots, slot_decls, slot_ident, Mode, RustEmitter};
use crate::ir::Ty;
use crate::syntax::Lower;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType};

/// Expands `#[nucode]`.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "#[nucode] takes no arguments"));
    }
    let f: ItemFn = syn::parse2(item)?;
    let (slots, template, witness, calls) = build(&f)?;
    Ok(glue(&f, slots, &template, &witness, &calls))
}

/// The function template `#[nucode]` would embed, for inspection and snapshot tests.
pub fn template(item: TokenStream) -> syn::Result<String> {
    let f: ItemFn = syn::parse2(item)?;
    Ok(build(&f)?.1)
}

fn build(f: &ItemFn) -> syn::Result<(usize, String, TokenStream, Vec<syn::Path>)> {
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    let params = params(&cx, &mut lower, f);
    let ret = match &f.sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, t) => lower.ty(t),
    };
    if !f.sig.generics.params.is_empty() {
        cx.error(
            f.sig.generics.span(),
            "#[nucode] functions cannot be generic",
        );
    }
    let mut body = lower.block(&f.block);
    crate::annot::expand_block(&cx, &mut lower.slots, &mut body);
    let names: Vec<syn::Ident> = params.iter().map(|(n, _)| n.clone()).collect();
    let analysis = capture::analyze(&cx, &mut body, &names, Context::Nucode);
    for c in &analysis.captures {
        cx.error(
            c.span,
            format!(
                "#[nucode] functions use their parameters and locals only; `{}` is neither",
                c.name
            ),
        );
    }
    let env = Env {
        analysis: &analysis,
        capture_base: lower.slots,
        context: Context::Nucode,
    };
    let template = ClEmitter::new(&cx, env).function(&params, ret, &body);
    let witness = RustEmitter::new(&analysis, Context::Nucode, Mode::Witness).block_inner(&body);
    let slots = lower.slots;
    // `lower` borrows `cx`, which `check` consumes; it ends here.
    let _ = lower;
    cx.check()?;
    Ok((slots, template, witness, analysis.calls))
}

fn params(cx: &Ctxt, lower: &mut Lower<'_>, f: &ItemFn) -> Vec<(syn::Ident, Ty)> {
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
        if let Some(t) = lower.ty(&pt.ty) {
            out.push((pi.ident.clone(), t));
        }
    }
    out
}

fn glue(
    f: &ItemFn,
    slots: usize,
    template: &str,
    witness: &TokenStream,
    calls: &[syn::Path],
) -> TokenStream {
    let (vis, ident, inputs, output) = (&f.vis, &f.sig.ident, &f.sig.inputs, &f.sig.output);
    let companion = format_ident!("__nuda_nucode_{}", ident);
    let name = ident.to_string();
    let mut recorded = std::collections::BTreeSet::new();
    recorded_slots(witness, &mut recorded);
    let decls = slot_decls(&recorded);
    let types = (0..slots).map(|k| {
        if recorded.contains(&k) {
            let s = slot_ident(k);
            quote!(::nuda::__private::Fill::Type(::nuda::__private::cl_type(&#s)))
        } else {
            quote!(::nuda::__private::Fill::Type("void"))
        }
    });
    let calls = companions(calls);
    quote! {
        #f

        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #vis static #companion: ::nuda::__private::Nucode = ::nuda::__private::Nucode {
            name: #name,
            template: #template,
            types: {
                fn __nuda_types() -> ::std::vec::Vec<::nuda::__private::Fill> {
                    #decls
                    {
                        #[allow(unused, unreachable_code, clippy::all)]
                        let __nuda_witness = |#inputs| #output { #witness };
                    }
                    ::std::vec![#(#types),*]
                }
                __nuda_types
            },
            calls: #calls,
        };
    }
}
