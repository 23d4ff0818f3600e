//! The host side of `nuwork!` scans (see `crate::checks::reduce` and `emit/cl/scan.rs`): the two
//! OpenCL launches with the groups' prefixes between them, and the native engine's two
//! passes. Scan variables' accumulators (`__nuda_ra<r>`) end as their contributions' totals;
//! `reduce::around` then updates the variables as for reductions.

use super::reduce::{ra, rv};
use super::Parts;
use crate::base::paths::{KERNEL, NUDA, PRIVATE};
use crate::checks::reduce::Reduction;
use crate::emit::glue::capture_ident;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

/// The nest's reduction variables that are scans (`true`) or not, with their indices.
fn split(p: &Parts, scans: bool) -> Vec<(usize, &Reduction, TokenStream)> {
    let reds = &p.analysis.reductions;
    reds.iter()
        .enumerate()
        .filter(|(_, r)| r.scan.is_some() == scans)
        .map(|(r, red)| (r, red, crate::checks::reduce::red_op_tokens(red.op)))
        .collect()
}

/// The variables of one kind, with their indices and operators.
type Vars<'p> = [(usize, &'p Reduction, TokenStream)];

/// `prefix<r>` for each variable of `list`.
fn idents(list: &Vars<'_>, prefix: &str) -> Vec<syn::Ident> {
    list.iter()
        .map(|(r, ..)| format_ident!("{}{}", prefix, r))
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
    if crate::checks::reduce::ScanForm::of(p.dist, &p.pushes)
        == crate::checks::reduce::ScanForm::OnePass
    {
        let start = start(name, quote!(__nuda_sg), quote!(__nuda_sl));
        return one_pass(p, (&scans, &others), trips, start);
    }
    let (g, l) = (quote!(__nuda_sg), quote!(__nuda_sl));
    let first = first_launch(
        p,
        &scans,
        start(&format!("{name}_totals"), g.clone(), l.clone()),
    );
    let second = second_launch((&scans, &others), back(p, &scans), start(name, g, l));
    quote! {{
        let __nuda_sl = [__nuda_local.iter().product::<usize>()];
        let __nuda_sg = #PRIVATE::scan_global(&__nuda_dev, #trips, __nuda_sl[0]);
        #first
        #second
    }}
}

/// The single-pass launch (`emit/cl/lookback.rs`): per scan variable its tiles' aggregates
/// and prefixes, the tickets, the other reductions' partials; then the accumulators, each
/// scan's from its tiles' aggregates.
fn one_pass(
    p: &Parts,
    (scans, others): (&Vars<'_>, &Vars<'_>),
    trips: &TokenStream,
    start: TokenStream,
) -> TokenStream {
    let (st, pa) = (idents(scans, "__nuda_st"), idents(others, "__nuda_pa"));
    let rvs: Vec<_> = scans.iter().map(|(r, ..)| rv(*r)).collect();
    let news = scans.iter().zip(&st).zip(&rvs).map(|(((_, _, op), st), v)| {
        quote!(let mut #st = #PRIVATE::ScanTiles::new(#op, #v, &__nuda_tiling);)
    });
    let parts = others.iter().zip(&pa).map(|((r, _, op), pa)| {
        let v = rv(*r);
        quote!(let mut #pa = #PRIVATE::Partials::new(#op, &#v, __nuda_sg, __nuda_sl);)
    });
    let (sra, ora) = (
        scans.iter().map(|(r, ..)| ra(*r)),
        others.iter().map(|(r, ..)| ra(*r)),
    );
    let sizes = rvs.iter().map(|v| quote!(#PRIVATE::dev_size(&#v)));
    // A pushed vector grows by all it may take, and keeps what the launch pushed (or, if it
    // failed, what it had).
    let reserve = per_push(p, scans, "grow", |v, _, bound| {
        let bound = bound.unwrap_or(0);
        quote!(#PRIVATE::push_capacity(#PRIVATE::push_len(#v), #trips, #bound))
    });
    let back = back(p, scans);
    let add = crate::checks::reduce::red_op_tokens(crate::checks::reduce::RedOp::Add);
    let keep = per_push(
        p,
        scans,
        "shrink",
        |v, a, _| quote!(#PRIVATE::push_len(#PRIVATE::reduced(#add, #v, #a))),
    );
    quote! {{
        let __nuda_sl = [__nuda_local.iter().product::<usize>()];
        let __nuda_tiling = #PRIVATE::scan_tiling(&__nuda_dev, #trips, __nuda_sl[0], &[#(#sizes),*])?;
        let __nuda_sg = __nuda_tiling.global();
        let mut __nuda_tt = #PRIVATE::ScanTickets::new(&__nuda_tiling);
        #(#news)*
        #(#parts)*
        #reserve
        #start
        #( __nuda_l = #st.push(__nuda_l); )*
        __nuda_l = __nuda_tt.push(__nuda_l);
        #( __nuda_l = #pa.push(__nuda_l); )*
        let __nuda_ran = __nuda_l.run();
        if __nuda_ran.is_err() {
            #back
        }
        __nuda_ran?;
        // The accumulators read back; a vector keeps what was pushed only if they arrived.
        #[allow(clippy::redundant_closure_call)]
        let __nuda_read = (|| -> #NUDA::Result<()> {
            #( #sra = #st.total()?; )*
            #( #ora = #pa.fold(#ora)?; )*
            ::core::result::Result::Ok(())
        })();
        if __nuda_read.is_err() {
            #back
        }
        __nuda_read?;
        #keep
    }}
}

/// Each pushed vector back at its length before the launch, after a launch that failed.
fn back(p: &Parts, scans: &Vars<'_>) -> TokenStream {
    per_push(p, scans, "shrink", |v, _, _| quote!(#PRIVATE::push_len(#v)))
}

/// Per pushed vector, `Pushed::<method>(vector, arg(counter's start, counter's accumulator,
/// bound per iteration))?;` at the vector's span (misuse is one error there, as in `grows`);
/// a single-pass launch has a bound for each (`ScanForm::of`).
fn per_push(
    p: &Parts,
    scans: &Vars<'_>,
    method: &str,
    arg: impl Fn(syn::Ident, syn::Ident, Option<u64>) -> TokenStream,
) -> TokenStream {
    let method = format_ident!("{}", method);
    let lines = p.pushes.iter().filter_map(|x| {
        let (r, ..) = scans.iter().find(|(_, red, _)| red.name == x.counter)?;
        let i = p.analysis.captures.iter().position(|c| c.name == x.vec)?;
        let (id, value) = (capture_ident(i), arg(rv(*r), ra(*r), x.bound));
        Some({
            let kernel_at = KERNEL.at(x.vec.span());
            quote_spanned!(x.vec.span()=> #kernel_at::Pushed::#method(#id, #value)?;)
        })
    });
    quote!(#(#lines)*)
}

/// The first launch: each scan variable's group totals, turned into prefixes on the host;
/// then the pushed vectors grow.
fn first_launch(p: &Parts, scans: &Vars<'_>, start: TokenStream) -> TokenStream {
    let (st, sp) = (idents(scans, "__nuda_st"), idents(scans, "__nuda_sp"));
    let rvs: Vec<_> = scans.iter().map(|(r, ..)| rv(*r)).collect();
    let news = scans.iter().zip(&st).map(|((r, _, op), st)| {
        let v = rv(*r);
        quote!(let mut #st = #PRIVATE::ScanTotals::new(#op, &#v, __nuda_sg, __nuda_sl);)
    });
    let grows = grows(p, scans, |r| {
        let sp = format_ident!("__nuda_sp{}", r);
        quote!(#sp.total())
    });
    let prefixes = scans.iter().zip(st.iter().zip(&sp)).zip(&rvs).map(|(((_, red, op), (st, sp)), rv)| {
        match p.dist && !counter(p, red) {
            // A `nudist` rank starts after the totals of the ranks before it.
            true => quote! {
                let __nudist_s = __nudist.rank_start(#op, #rv, ::core::option::Option::Some(#st.local_total()?))?;
                let #sp = #st.prefixes(__nudist_s)?;
            },
            false => quote!(let #sp = #st.prefixes(#rv)?;),
        }
    });
    quote! {
        #(#news)*
        #start
        #( __nuda_l = #st.push(__nuda_l); )*
        __nuda_l.run()?;
        #(#prefixes)*
        #grows
    }
}

/// Whether a scan variable is a push counter, which stays each rank's own.
fn counter(p: &Parts, red: &Reduction) -> bool {
    p.pushes.iter().any(|x| x.counter == red.name)
}

/// The native first pass's `rank(start, total)`: the start itself, or in a `nudist` launch
/// each scan variable's start after the ranks before this one.
fn rank_start(p: &Parts, scans: &Vars<'_>) -> TokenStream {
    if !p.dist {
        return quote!(|__nuda_s, _| ::core::result::Result::Ok(__nuda_s));
    }
    let parts = scans.iter().enumerate().map(|(k, (_, red, op))| {
        let k = syn::Index::from(k);
        match counter(p, red) {
            true => quote!(__nuda_s.#k),
            false => {
                quote!(__nudist.rank_start(#op, __nuda_s.#k, __nuda_t.map(|__nuda_t| __nuda_t.#k))?)
            }
        }
    });
    quote!(|__nuda_s, __nuda_t| ::core::result::Result::Ok((#(#parts,)*)))
}

/// The second launch: the body from each group's prefixes, with the other reductions'
/// partials; then the accumulators.
fn second_launch(
    (scans, others): (&Vars<'_>, &Vars<'_>),
    back: TokenStream,
    start: TokenStream,
) -> TokenStream {
    let (sp, pa) = (idents(scans, "__nuda_sp"), idents(others, "__nuda_pa"));
    let (sra, ora) = (
        scans.iter().map(|(r, ..)| ra(*r)),
        others.iter().map(|(r, ..)| ra(*r)),
    );
    let news = others.iter().zip(&pa).map(|((r, _, op), pa)| {
        let v = rv(*r);
        quote!(let mut #pa = #PRIVATE::Partials::new(#op, &#v, __nuda_sg, __nuda_sl);)
    });
    quote! {
        #(#news)*
        #start
        #( __nuda_l = #sp.push(__nuda_l); )*
        #( __nuda_l = #pa.push(__nuda_l); )*
        let __nuda_ran = __nuda_l.run();
        if __nuda_ran.is_err() {
            #back
        }
        __nuda_ran?;
        #( #sra = #sp.total(); )*
        #( #ora = #pa.fold(#ora)?; )*
    }
}

/// `let mut name = identity;` for each variable of `list`.
fn identities(list: &Vars<'_>) -> Vec<TokenStream> {
    list.iter()
        .map(|(r, red, op)| {
            let (name, v) = (&red.name, rv(*r));
            quote!(let mut #name = #PRIVATE::identity(#op, &#v);)
        })
        .collect()
}

/// The closure combining two tuples of `list`'s partials.
fn tuple_combine(list: &Vars<'_>) -> TokenStream {
    let parts = list.iter().enumerate().map(|(k, (_, _, op))| {
        let k = syn::Index::from(k);
        quote!(#PRIVATE::combine(#op, __nuda_a.#k, __nuda_b.#k))
    });
    quote!(|__nuda_a, __nuda_b| (#(#parts,)*))
}

/// What one native task needs: the chunk's parameters, the first pass's and the second's
/// setup, and the two loops over the chunk.
pub(super) struct Task<'a> {
    /// `[.., __nuda_lo]: [usize; k]`.
    pub params: &'a TokenStream,
    /// Bindings in a first-pass task (no pushed vector yet) and a second-pass one.
    pub setups: [&'a TokenStream; 2],
    /// `for .. { slice }` and `for .. { body }` over the chunk.
    pub loops: [TokenStream; 2],
}

/// The native engine's two passes. Pushed vectors grow, and get their views, between them.
pub(super) fn native(p: &Parts, task: Task<'_>, trips: &TokenStream) -> TokenStream {
    let (scans, others) = (split(p, true), split(p, false));
    let first = native_first(p, &scans, &task, trips);
    let second = native_second(&scans, &others, &task);
    let (views, back) = (pushed_views(p), back(p, &scans));
    // The views borrow the vectors until the closure returns; a failed second pass leaves
    // them as they were.
    quote! {
        #first
        #[allow(clippy::redundant_closure_call)]
        let __nuda_ran = (|| -> #NUDA::Result<()> { #views #second ::core::result::Result::Ok(()) })();
        if __nuda_ran.is_err() {
            #back
        }
        __nuda_ran?;
    }
}

/// The first native pass: each task's scan totals, scanned into the plan; then the pushed
/// vectors grow and the scan accumulators take the totals.
fn native_first(p: &Parts, scans: &Vars<'_>, task: &Task<'_>, trips: &TokenStream) -> TokenStream {
    let (params, setup, slice) = (task.params, task.setups[0], &task.loops[0]);
    let snames = scans.iter().map(|(_, r, _)| &r.name);
    let (sids, scombine) = (identities(scans), tuple_combine(scans));
    let starts = scans.iter().map(|(r, ..)| rv(*r));
    let rank = rank_start(p, scans);
    let ends = scans.iter().enumerate().map(|(k, (r, ..))| {
        let (a, k) = (ra(*r), syn::Index::from(k));
        quote!(#a = __nuda_t.#k;)
    });
    let grows = grows(p, scans, |r| {
        let k = syn::Index::from(scans.iter().position(|(x, ..)| *x == r).unwrap_or(0));
        quote!(__nuda_t.#k)
    });
    quote! {
        #[allow(unused_parens, unused_mut, unused_assignments, clippy::all)]
        let __nuda_plan = #PRIVATE::native_scan_totals(&__nuda_dev, __nuda_local, #trips, __nuda_faults,
            |#params, __nuda_hi: usize| { #setup #(#sids)* #slice (#(#snames,)*) },
            #scombine,
            ((#(#starts,)*), #rank),
        )?;
        if let ::core::option::Option::Some(__nuda_t) = __nuda_plan.total() {
            #grows
            #(#ends)*
        }
    }
}

/// The second native pass: each task's body from its prefix, the other reductions' partials
/// folded into their accumulators.
fn native_second(scans: &Vars<'_>, others: &Vars<'_>, task: &Task<'_>) -> TokenStream {
    let (params, setup, body) = (task.params, task.setups[1], &task.loops[1]);
    let snames = scans.iter().map(|(_, r, _)| &r.name);
    let snames2 = snames.clone();
    let onames = others.iter().map(|(_, r, _)| &r.name);
    let from = (0..scans.len()).map(syn::Index::from);
    let (oids, ocombine) = (identities(others), tuple_combine(others));
    let folds = others.iter().enumerate().map(|(k, (r, _, op))| {
        let (a, k) = (ra(*r), syn::Index::from(k));
        quote!(#a = #PRIVATE::combine(#op, #a, __nuda_p.#k);)
    });
    quote! {
        #[allow(unused_parens, unused_mut, unused_assignments, clippy::all)]
        let __nuda_part = #PRIVATE::native_scan_body(&__nuda_dev, __nuda_faults, &__nuda_plan,
            |#params, __nuda_hi: usize, __nuda_s| {
                #setup
                #( let mut #snames = __nuda_s.#from; )*
                #(#oids)*
                #body
                ((#(#onames,)*), (#(#snames2,)*))
            },
            #ocombine,
        )?;
        if let ::core::option::Option::Some(__nuda_p) = __nuda_part { #(#folds)* }
    }
}

/// Each pushed vector grown to its old length plus its pushes (`total(r)` of its counter).
fn grows(p: &Parts, scans: &Vars<'_>, total: impl Fn(usize) -> TokenStream) -> TokenStream {
    let lines = p.pushes.iter().filter_map(|x| {
        let (r, ..) = scans.iter().find(|(_, red, _)| red.name == x.counter)?;
        let i = p.analysis.captures.iter().position(|c| c.name == x.vec)?;
        let (id, v, t) = (capture_ident(i), rv(*r), total(*r));
        let add = crate::checks::reduce::red_op_tokens(crate::checks::reduce::RedOp::Add);
        let len = quote!(#PRIVATE::push_len(#PRIVATE::reduced(#add, #v, #t)));
        // At the vector's span: pushing to something else is one error, at the vector.
        Some({
            let kernel_at = KERNEL.at(x.vec.span());
            quote_spanned!(x.vec.span()=> #kernel_at::Pushed::grow(#id, #len)?;)
        })
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
            quote!(let #name = #KERNEL::CaptureMut::native_mut(#id)?;)
        })
        .collect();
    quote!(#(#caps)*)
}
