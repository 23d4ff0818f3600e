//! The host side of `nuwork!` reductions (see `crate::checks::reduce`): each variable's value copied
//! before the launch (`__nuda_rv<r>`), an accumulator over the nest's kernels
//! (`__nuda_ra<r>`), the native engine's per-task partials, the OpenCL launch with its
//! partials arrays, and the variable's update once every kernel has run, in the caller's scope.

use super::Parts;
use crate::base::paths::{KERNEL, NUDA, PRIVATE};
use crate::checks::reduce::Reduction;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

pub(super) fn rv(r: usize) -> syn::Ident {
    format_ident!("__nuda_rv{}", r)
}

pub(super) fn ra(r: usize) -> syn::Ident {
    format_ident!("__nuda_ra{}", r)
}

fn each<'p>(p: &'p Parts) -> impl Iterator<Item = (usize, &'p Reduction, TokenStream)> + 'p {
    let reds = &p.analysis.reductions;
    reds.iter()
        .enumerate()
        .map(|(r, red)| (r, red, crate::checks::reduce::red_op_tokens(red.op)))
}

/// Before the launch: each variable's value, and its accumulator at the identity. The copy
/// names the variable where it was updated, so an unsupported type is reported there.
pub(super) fn setup(p: &Parts) -> TokenStream {
    let lines = each(p).map(|(r, red, op)| {
        let (name, v, a) = (&red.name, rv(r), ra(r));
        let copy = {
            let kernel_at = KERNEL.at(red.span);
            quote_spanned!(red.span=> #kernel_at::reduction_var(#name))
        };
        quote!(let #v = #copy; let mut #a = #PRIVATE::identity(#op, &#v);)
    });
    quote!(#(#lines)*)
}

/// In the type witness, after its hygiene guards: each variable as a local of its type.
pub(super) fn witness(p: &Parts) -> TokenStream {
    let lines = each(p).map(|(r, red, _)| {
        let (name, v) = (&red.name, rv(r));
        quote!(#[allow(unused_mut)] let mut #name = #v;)
    });
    quote!(#(#lines)*)
}

/// The reduction variables' type fills, after the captures'.
pub(super) fn fills(p: &Parts) -> Vec<TokenStream> {
    each(p)
        .map(|(r, _, _)| {
            let v = rv(r);
            quote!(#PRIVATE::Fill::Type(#PRIVATE::reduce_cl_type(&#v)))
        })
        .collect()
}

/// Accumulators per variable in a native task: independent chains LLVM can overlap.
const LANES: usize = 16;

/// A native task's chunk `__nuda_lo..__nuda_hi` of the last dimension (`last`), running
/// `element` per iteration: whole steps of `LANES` iterations, iteration `k` of a step
/// updating lane `k` of each variable's accumulators, then the tail on one more accumulator;
/// the lanes and the tail combined in order are the task's partials, as a tuple.
pub(super) fn native_chunk(p: &Parts, last: &syn::Ident, element: &TokenStream) -> TokenStream {
    let lanes: Vec<syn::Ident> = each(p)
        .map(|(r, ..)| format_ident!("__nuda_lane{}", r))
        .collect();
    let names: Vec<&syn::Ident> = each(p).map(|(_, red, _)| &red.name).collect();
    let starts = each(p).map(|(r, _, op)| {
        let (lane, v) = (&lanes[r], rv(r));
        quote!(let mut #lane = [#PRIVATE::identity(#op, &#v); #LANES];)
    });
    let tails = each(p).map(|(r, red, op)| {
        let (name, v) = (&red.name, rv(r));
        quote!(let mut #name = #PRIVATE::identity(#op, &#v);)
    });
    let folds = each(p).map(|(r, red, op)| {
        let (name, lane) = (&red.name, &lanes[r]);
        quote!(let #name = #lane.iter().rfold(#name, |__nuda_t, &__nuda_x| #PRIVATE::combine(#op, __nuda_x, __nuda_t));)
    });
    quote! {
        #(#starts)*
        let mut __nuda_b = __nuda_lo;
        while __nuda_hi.saturating_sub(__nuda_b) >= #LANES {
            for __nuda_k in 0..#LANES {
                let #last = __nuda_b + __nuda_k;
                #( let mut #names = #lanes[__nuda_k]; )*
                #element
                #( #lanes[__nuda_k] = #names; )*
            }
            __nuda_b += #LANES;
        }
        #(#tails)*
        for #last in __nuda_b..__nuda_hi { #element }
        #(#folds)*
        (#(#names,)*)
    }
}

/// The native run of one kernel's `__nuda_body` over `trips`, its partials folded into the
/// accumulators.
pub(super) fn native_run(p: &Parts, trips: &TokenStream) -> TokenStream {
    let combines = each(p).map(|(r, _, op)| {
        let k = syn::Index::from(r);
        quote!(#PRIVATE::combine(#op, __nuda_a.#k, __nuda_b.#k))
    });
    let folds = each(p).map(|(r, _, op)| {
        let (a, k) = (ra(r), syn::Index::from(r));
        quote!(#a = #PRIVATE::combine(#op, #a, __nuda_p.#k);)
    });
    quote! {
        let (_, __nuda_part) = #PRIVATE::native_nuwork_reduce(&__nuda_dev, __nuda_local, #trips, __nuda_faults,
            __nuda_body, |__nuda_a, __nuda_b| (#(#combines,)*))?;
        if let ::core::option::Option::Some(__nuda_p) = __nuda_part {
            #(#folds)*
        }
    }
}

/// The OpenCL launch of one kernel: `start` builds `__nuda_l` on the capped NDRange
/// `__nuda_global`, and each group's partials are folded into the accumulators after. Each
/// privatised array (`crate::checks::privatise`) passes its flag and local copy after the partials.
pub(super) fn launch(p: &Parts, trips: &TokenStream, start: &TokenStream) -> TokenStream {
    let news = each(p).map(|(r, _, op)| {
        let (pa, v) = (format_ident!("__nuda_pa{}", r), rv(r));
        quote!(let mut #pa = #PRIVATE::Partials::new(#op, &#v, __nuda_global, __nuda_local);)
    });
    let pushes = each(p).map(|(r, _, _)| {
        let pa = format_ident!("__nuda_pa{}", r);
        quote!(__nuda_l = #pa.push(__nuda_l);)
    });
    let folds = each(p).map(|(r, _, _)| {
        let (pa, a) = (format_ident!("__nuda_pa{}", r), ra(r));
        quote!(#a = #pa.fold(#a)?;)
    });
    let (pv_news, pv_pushes) = privatised(p);
    let global = match p.analysis.privatised.is_empty() {
        true => quote!(#PRIVATE::reduce_global),
        false => quote!(#PRIVATE::privatised_global),
    };
    quote! {{
        let __nuda_global = #global(&__nuda_dev, #trips, __nuda_local);
        #(#news)*
        #pv_news
        #start
        #(#pushes)*
        #pv_pushes
        __nuda_l.run()?;
        #(#folds)*
    }}
}

/// Each privatised array's decision, made before the launch borrows the captures, and its
/// arguments pushed after the partials'.
fn privatised(p: &Parts) -> (TokenStream, TokenStream) {
    let caps = &p.analysis.captures;
    let (mut news, mut pushes) = (TokenStream::new(), TokenStream::new());
    for (k, x) in p.analysis.privatised.iter().enumerate() {
        let Some(i) = caps.iter().position(|c| c.name == x.name) else {
            continue;
        };
        let (pv, id) = (
            format_ident!("__nuda_pv{}", k),
            crate::emit::glue::capture_ident(i),
        );
        news.extend(quote! {
            let #pv = #PRIVATE::Privatised::new(&__nuda_dev, #KERNEL::CaptureMut::proof_input_mut(#id));
        });
        pushes.extend(quote!(__nuda_l = #pv.push(__nuda_l);));
    }
    (news, pushes)
}

/// The whole expansion around `launch` (which binds the accumulators): the launch in a
/// closure returning the accumulators, then, in the caller's scope and only on success, each
/// variable combined with its accumulator. Outside the closure, a variable declared without
/// `mut` is rustc's usual error at the variable.
pub(super) fn around(p: &Parts, launch: TokenStream) -> TokenStream {
    let ras: Vec<syn::Ident> = each(p).map(|(r, ..)| ra(r)).collect();
    let updates = updates(p, &ras);
    if p.dist {
        return around_dist(p, launch, &ras, &updates);
    }
    quote! {
        match (|| -> #NUDA::Result<_> { #launch ::core::result::Result::Ok((#(#ras,)*)) })() {
            ::core::result::Result::Ok((#(#ras,)*)) => {
                #(#updates)*
                ::core::result::Result::Ok(())
            }
            ::core::result::Result::Err(__nuda_e) => ::core::result::Result::Err(__nuda_e),
        }
    }
}

/// The variables a launch updates after it: not push counters, whose final value is the
/// vector's length, which the vector keeps (in a `nudist` launch, each rank's own).
fn kept(p: &Parts) -> impl Iterator<Item = (usize, &Reduction, TokenStream)> {
    each(p).filter(|(_, red, _)| !p.pushes.iter().any(|x| x.counter == red.name))
}

/// `around` in a `nudist` launch: the accumulators of every rank, gathered at the launch's
/// end step, folded in rank order the same way on every rank, then the updates; so a
/// variable's value before the loop counts once, as in plain Rust.
fn around_dist(
    p: &Parts,
    launch: TokenStream,
    ras: &[syn::Ident],
    updates: &[TokenStream],
) -> TokenStream {
    let kept: Vec<(syn::Ident, TokenStream)> = kept(p).map(|(r, _, op)| (ra(r), op)).collect();
    let (puts, folds) = (
        kept.iter().map(|(a, _)| a),
        kept.iter().map(
            |(a, op)| quote!(#a = #PRIVATE::dist::fold(#op, &__nudist_all, &mut __nudist_at);),
        ),
    );
    quote! {{
        let (__nudist_done, __nudist_accs) = match (|| -> #NUDA::Result<_> { #launch ::core::result::Result::Ok((#(#ras,)*)) })() {
            ::core::result::Result::Ok(__a) => (::core::result::Result::Ok(()), ::core::option::Option::Some(__a)),
            ::core::result::Result::Err(__e) => (::core::result::Result::Err(__e), ::core::option::Option::None),
        };
        let mut __nudist_pl = #PRIVATE::dist::Payload::new();
        if let ::core::option::Option::Some((#(#ras,)*)) = __nudist_accs {
            #( __nudist_pl.put(#puts); )*
        }
        #[allow(unused_mut, unused_variables)]
        let __nudist_r: #NUDA::Result<()> = match __nudist.end(__nudist_done, __nudist_pl) {
            ::core::result::Result::Ok(__nudist_all) => {
                if let ::core::option::Option::Some((#(mut #ras,)*)) = __nudist_accs {
                    let mut __nudist_at = 0usize;
                    #(#folds)*
                    #(#updates)*
                }
                ::core::result::Result::Ok(())
            }
            ::core::result::Result::Err(__e) => ::core::result::Result::Err(__e),
        };
        __nudist_r
    }}
}

/// Each kept variable combined with its accumulator, in the caller's scope.
fn updates(p: &Parts, ras: &[syn::Ident]) -> Vec<TokenStream> {
    kept(p)
        .map(|(r, red, op)| {
            let (name, a) = (&red.name, &ras[r]);
            // Through `reduction_var`, as in `setup`: an unsupported type is one error, there.
            let copy = {
                let kernel_at = KERNEL.at(red.span);
                quote_spanned!(red.span=> #kernel_at::reduction_var(#name))
            };
            quote_spanned!(name.span()=> #name = #PRIVATE::reduced(#op, #copy, #a);)
        })
        .collect()
}
