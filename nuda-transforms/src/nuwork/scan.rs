//! The host side of `nuwork!` scans (see `crate::reduce` and `emit/cl/scan.rs`): the two
//! OpenCL launches with the groups' prefixes between them, and the native engine's two
//! passes. Scan variables' accumulators (`__nuda_ra<r>`) end as their contributions' totals;
//! `reduce::around` then updates the variables as for reductions.

use super::reduce::{ra, rv};
use super::Parts;
use crate::emit::glue::capture_ident;
use crate::paths::PRIVATE;
use crate::reduce::Reduction;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The nest's reduction variables that are scans (`true`) or not, with their indices.
fn split(p: &Parts, scans: bool) -> Vec<(usize, &Reduction, TokenStream)> {
    let reds = &p.analysis.reductions;
    reds.iter()
        .enumerate()
        .filter(|(_, r)| r.scan.is_some() == scans)
        .map(|(r, red)| (r, red, red.op.tokens()))
        .collect()
}

/// The OpenCL launches of a scan nest; `start(kernel, global, local)` begins a launch with
/// the ranges and captures pushed.
pub(super) fn launch(
    p: &Parts,
    trips: &TokenStream,
    start: &dyn Fn(&str, TokenStream, TokenStream) -> TokenStream,
    name: &str,
) -> TokenStream {
    let (scans, others) = (split(p, true), split(p, false));
    let (g, l) = (quote!(__nuda_sg), quote!(__nuda_sl));
    let totals = scans.iter().map(|(r, _, op)| {
        let (st, v) = (format_ident!("__nuda_st{}", r), rv(*r));
        quote!(let mut #st = #PRIVATE::ScanTotals::new(#op, &#v, #g, #l);)
    });
    let push_totals = scans.iter().map(|(r, ..)| {
        let st = format_ident!("__nuda_st{}", r);
        quote!(__nuda_l = #st.push(__nuda_l);)
    });
    let prefixes = scans.iter().map(|(r, ..)| {
        let (st, sp, v) = (
            format_ident!("__nuda_st{}", r),
            format_ident!("__nuda_sp{}", r),
            rv(*r),
        );
        quote!(let #sp = #st.prefixes(#v)?;)
    });
    let grows = grows(p, &scans, |r| {
        let sp = format_ident!("__nuda_sp{}", r);
        quote!(#sp.total())
    });
    let partials = others.iter().map(|(r, _, op)| {
        let (pa, v) = (format_ident!("__nuda_pa{}", r), rv(*r));
        quote!(let mut #pa = #PRIVATE::Partials::new(#op, &#v, #g, #l);)
    });
    let pushes = scans
        .iter()
        .map(|(r, ..)| format_ident!("__nuda_sp{}", r))
        .chain(others.iter().map(|(r, ..)| format_ident!("__nuda_pa{}", r)))
        .map(|x| quote!(__nuda_l = #x.push(__nuda_l);));
    let ends = scans.iter().map(|(r, ..)| {
        let (a, sp) = (ra(*r), format_ident!("__nuda_sp{}", r));
        quote!(#a = #sp.total();)
    });
    let folds = others.iter().map(|(r, ..)| {
        let (a, pa) = (ra(*r), format_ident!("__nuda_pa{}", r));
        quote!(#a = #pa.fold(#a)?;)
    });
    let (first, second) = (
        start(&format!("{name}_totals"), g.clone(), l.clone()),
        start(name, g.clone(), l.clone()),
    );
    quote! {{
        let __nuda_sl = [__nuda_local.iter().product::<usize>()];
        let __nuda_sg = #PRIVATE::scan_global(&__nuda_dev, #trips, __nuda_sl[0]);
        #(#totals)*
        #first
        #(#push_totals)*
        __nuda_l.run()?;
        #(#prefixes)*
        #grows
        #(#partials)*
        #second
        #(#pushes)*
        __nuda_l.run()?;
        #(#ends)*
        #(#folds)*
    }}
}

/// The native engine's two passes; `setups` bind the fault checker, views and ranges in a
/// task of the first pass (no pushed vector yet) and of the second, `element(block)` is one
/// iteration running `block`. Pushed vectors grow, and get their views, between the passes.
pub(super) fn native(
    p: &Parts,
    i: usize,
    params: &TokenStream,
    setups: [&TokenStream; 2],
    element: &dyn Fn(&TokenStream) -> TokenStream,
    trips: &TokenStream,
) -> TokenStream {
    let (scans, others) = (split(p, true), split(p, false));
    let last = params_last(p, i);
    let (slice, body) = (element(&p.native_slices[i]), element(&p.natives[i]));
    let snames: Vec<&syn::Ident> = scans.iter().map(|(_, r, _)| &r.name).collect();
    let onames: Vec<&syn::Ident> = others.iter().map(|(_, r, _)| &r.name).collect();
    let ids = |list: &[(usize, &Reduction, TokenStream)]| -> Vec<TokenStream> {
        list.iter()
            .map(|(r, red, op)| {
                let (name, v) = (&red.name, rv(*r));
                quote!(let mut #name = #PRIVATE::identity(#op, &#v);)
            })
            .collect()
    };
    let (sids, oids) = (ids(&scans), ids(&others));
    let tuple_combine = |list: &[(usize, &Reduction, TokenStream)]| {
        let parts = list.iter().enumerate().map(|(k, (_, _, op))| {
            let k = syn::Index::from(k);
            quote!(#PRIVATE::combine(#op, __nuda_a.#k, __nuda_b.#k))
        });
        quote!(|__nuda_a, __nuda_b| (#(#parts,)*))
    };
    let (scombine, ocombine) = (tuple_combine(&scans), tuple_combine(&others));
    let starts = scans.iter().map(|(r, ..)| rv(*r));
    let from = (0..scans.len()).map(syn::Index::from);
    let ends = scans.iter().enumerate().map(|(k, (r, ..))| {
        let (a, k) = (ra(*r), syn::Index::from(k));
        quote!(#a = __nuda_t.#k;)
    });
    let folds = others.iter().enumerate().map(|(k, (r, _, op))| {
        let (a, k) = (ra(*r), syn::Index::from(k));
        quote!(#a = #PRIVATE::combine(#op, #a, __nuda_p.#k);)
    });
    let grows = grows(p, &scans, |r| {
        let k = syn::Index::from(scans.iter().position(|(x, ..)| *x == r).unwrap_or(0));
        quote!(__nuda_t.#k)
    });
    let views = pushed_views(p);
    let [first, setup] = setups;
    quote! {
        #[allow(unused_parens, unused_mut, unused_assignments, clippy::all)]
        let __nuda_plan = #PRIVATE::native_scan_totals(&__nuda_dev, #trips, __nuda_faults,
            |#params, __nuda_hi: usize| {
                #first
                #(#sids)*
                for #last in __nuda_lo..__nuda_hi { #slice }
                (#(#snames,)*)
            },
            #scombine,
            (#(#starts,)*),
        )?;
        if let ::core::option::Option::Some(__nuda_t) = __nuda_plan.total() {
            #grows
            #(#ends)*
        }
        #views
        #[allow(unused_parens, unused_mut, unused_assignments, clippy::all)]
        let __nuda_part = #PRIVATE::native_scan_body(&__nuda_dev, __nuda_faults, &__nuda_plan,
            |#params, __nuda_hi: usize, __nuda_s| {
                #setup
                #( let mut #snames = __nuda_s.#from; )*
                #(#oids)*
                for #last in __nuda_lo..__nuda_hi { #body }
                (#(#onames,)*)
            },
            #ocombine,
        )?;
        if let ::core::option::Option::Some(__nuda_p) = __nuda_part { #(#folds)* }
    }
}

/// Each pushed vector grown to its old length plus its pushes (`total(r)` of its counter).
fn grows(
    p: &Parts,
    scans: &[(usize, &Reduction, TokenStream)],
    total: impl Fn(usize) -> TokenStream,
) -> TokenStream {
    let lines = p.pushes.iter().filter_map(|x| {
        let (r, ..) = scans.iter().find(|(_, red, _)| red.name == x.counter)?;
        let i = p.analysis.captures.iter().position(|c| c.name == x.vec)?;
        let (id, v, t) = (capture_ident(i), rv(*r), total(*r));
        let add = crate::reduce::RedOp::Add.tokens();
        Some(quote!(::nuda::kernel::Pushed::grow(#id, #PRIVATE::reduced(#add, #v, #t))?;))
    });
    quote!(#(#lines)*)
}

/// The native views of the pushed vectors, once grown.
fn pushed_views(p: &Parts) -> TokenStream {
    let caps: Vec<_> = p
        .analysis
        .captures
        .iter()
        .enumerate()
        .filter(|(_, c)| p.pushes.iter().any(|x| x.vec == c.name))
        .map(|(i, c)| {
            let (id, name) = (capture_ident(i), &c.name);
            quote!(let #name = ::nuda::kernel::KernelMut::native_mut(#id)?;)
        })
        .collect();
    quote!(#(#caps)*)
}

/// The name of the last mapped dimension's index in a native task.
fn params_last(p: &Parts, i: usize) -> syn::Ident {
    format_ident!("__nuda_g{}", p.kernels[i].mapped.len() - 1)
}
