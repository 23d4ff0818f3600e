//! `annot!(nudist; nuwork!(..))`: a `nuwork!` over MPI ranks (the runtime's `dist` module).
//! At compile time, as every annotation: the outer mapped loop's range becomes this rank's
//! rows (`__nudist.clip`, on the host), and every index into an array from outside the body
//! takes the array's first row away from its first coordinate, so a distributed array's
//! global index becomes one into its local block (other arrays' first row is 0: every rank
//! holds them whole). The `nuwork!` itself is expanded in its distributed form
//! (`nuwork::expand_dist`), whose reductions, scans and flags combine across ranks.
//!
//! An index outside the rank's rows and halo wraps below 0 or passes the local array's end,
//! so the launch's own bounds check reports it; `DistLaunch::finish` makes it global again.

use super::rows::{base_ident, range_tokens, split_semi, Rebase};
use crate::base::paths::{KERNEL, NUDA, PRIVATE};
use crate::entry::nuwork::DistTraits;
use crate::syntax::annot::{AnnotInput, NUDIST};
use crate::syntax::nfor::{NforSyntax, RangeSyntax};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::Ident;

/// Whether the chain asks for `nudist`.
pub fn wanted(input: &AnnotInput) -> bool {
    input.chain.iter().any(|a| a.name == NUDIST)
}

/// Expands a `nudist` launch.
pub fn expand(input: &AnnotInput) -> syn::Result<TokenStream> {
    check_chain(input)?;
    let nest = &input.nest;
    if !nest.path.is_ident("nuwork") {
        let msg = "annot!: nudist applies to a `nuwork!`, as in `annot!(nudist; nuwork!(16, 16; nfor!((i, j) in (n, m) { .. })))`";
        return Err(syn::Error::new(nest.path.span(), msg));
    }
    let (head, inner) = split_semi(nest.tokens.clone(), nest.span())?;
    let mut found = Found::default();
    let inner = rewrite_nest(&inner, &mut found)?;
    let written = super::nudevs::written_by(&syn::parse_quote!(nuwork!(#head; #inner)));
    let (expansion, traits) = crate::entry::nuwork::expand_dist(quote!(#head; #inner))?;
    let plan = plan(&traits);
    Ok(assemble(&found, &written, expansion, plan, nest.span()))
}

/// What the rewrite found: the outer range, the arrays indexed from outside the body, and
/// per array the first write whose first index is not the outer loop's variable.
#[derive(Default)]
struct Found {
    range: Option<RangeSyntax>,
    arrays: Vec<Ident>,
    strays: std::collections::HashMap<String, String>,
    reach: std::collections::HashMap<String, Option<usize>>,
}

/// The launch's phase plan (`dist/phase.rs` in the runtime): whether its reductions regroup
/// exactly, so that its rows may be split around an exchange in flight.
fn plan(traits: &DistTraits) -> TokenStream {
    let exact = traits.reductions.iter().map(|(name, op)| {
        let kernel_at = KERNEL.at(name.span());
        quote!(&& #PRIVATE::dist::exact(#op, &#kernel_at::reduction_var(#name)))
    });
    let ordered = traits.ordered;
    quote!(#PRIVATE::dist::Plan::new(!#ordered #(#exact)*))
}

/// The launch: per phase, the views of the arrays, the clipped range, the `nuwork!`, the
/// error's rank.
fn assemble(
    found: &Found,
    written: &[Ident],
    expansion: TokenStream,
    plan: TokenStream,
    span: Span,
) -> TokenStream {
    let views = found.arrays.iter().map(|a| {
        let (base, text) = (base_ident(a), a.to_string());
        match written.contains(a) {
            true => {
                let stray = match found.strays.get(&text) {
                    Some(w) => quote!(::core::option::Option::Some(#w)),
                    None => quote!(::core::option::Option::None),
                };
                quote_spanned!(a.span()=> let (#a, #base) = #a.__nuda_dist_mut(&__nudist, #text, #stray);)
            }
            false => {
                let view = format_ident!("__nudist_view_{}", a);
                let reach = match found.reach.get(&text).copied().flatten() {
                    Some(c) => quote!(::core::option::Option::Some(#c)),
                    None => quote!(::core::option::Option::None),
                };
                quote_spanned!(a.span()=> let (#view, #base) = #a.__nuda_dist_ref(&__nudist, #text, #reach); let #a = &*#view;)
            }
        }
    });
    let clip = found.range.as_ref().map(|r| {
        let start = r.start.as_ref().map_or_else(|| quote_spanned!(r.span=> 0), |s| quote!(#s));
        let (end, incl) = (&r.end, r.inclusive);
        let step = match &r.step {
            Some(s) => quote!(::core::option::Option::Some((#s) as i128)),
            None => quote!(::core::option::Option::None),
        };
        quote_spanned!(r.span=> let (__nudist_lo, __nudist_hi) = __nudist.clip(#start, #end, #incl, #step)?;)
    });
    // Phases after the first run the same nest over other rows (`dist/phase.rs`).
    quote_spanned! {span=>
        (|| -> #NUDA::Result<()> {
            #[allow(unused_imports)]
            use #NUDA::__private::dist::{DistMut as _, DistRef as _};
            let __nudist_plan = #plan;
            while let ::core::option::Option::Some(__nudist) = __nudist_plan.next(concat!(file!(), ":", line!())) {
                #(#views)*
                #clip
                if __nudist.idle() {
                    continue;
                }
                let __nudist_done: #NUDA::Result<()> = #expansion;
                __nudist.finish(__nudist_done)?;
            }
            ::core::result::Result::Ok(())
        })()
    }
}

/// `nudist` stands alone in its chain and takes no parameters.
fn check_chain(input: &AnnotInput) -> syn::Result<()> {
    for a in &input.chain {
        if a.args.is_some() && a.name == NUDIST {
            let msg = "annot!: nudist takes no parameters: the distributed arrays say how the rows are split";
            return Err(syn::Error::new(a.name.span(), msg));
        }
        if input.chain.len() > 1 {
            let msg = "annot!: nudist cannot be combined with other annotations in one chain; annotate the loops inside the nuwork! instead, as in `annot!(nudist; nuwork!(16; annot!(dmine(2); nfor!(..))))`";
            return Err(syn::Error::new(a.name.span(), msg));
        }
    }
    Ok(())
}

/// The nest with its outer range replaced and its indices rebased, through `annot!`s.
fn rewrite_nest(m: &syn::Macro, found: &mut Found) -> syn::Result<TokenStream> {
    if m.path.is_ident("annot") {
        let (chain, inner) = split_semi(m.tokens.clone(), m.span())?;
        let inner = rewrite_nest(&inner, found)?;
        return Ok(quote_spanned!(m.span()=> annot!(#chain; #inner)));
    }
    if !m.path.is_ident("nfor") {
        return Err(syn::Error::new(
            m.path.span(),
            "annot!: nudist expects the nuwork!'s loops as `nfor!(..)` or `annot!(..; nfor!(..))`",
        ));
    }
    let mut n: NforSyntax = syn::parse2(m.tokens.clone())?;
    let outer = n.ranges.remove(0);
    if outer.rev {
        return Err(syn::Error::new(outer.span, "annot!: nudist splits the outer loop into blocks of rows in order; remove `.rev()` from it"));
    }
    // A step known negative here; one that is negative at run time is the launch's `Err`.
    if let Some(
        s @ syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            ..
        }),
    ) = &outer.step
    {
        return Err(syn::Error::new(s.span(), "annot!: nudist splits the outer loop into blocks of rows in order, counting up; step by a positive value and reverse the index instead"));
    }
    let step = outer.step.as_ref().map(|s| quote!(.step_by((#s) as usize)));
    let first = match step {
        Some(step) => quote_spanned!(outer.span=> (__nudist_lo..=__nudist_hi)#step),
        None => quote_spanned!(outer.span=> __nudist_lo..=__nudist_hi),
    };
    let ranges: Vec<TokenStream> = std::iter::once(first)
        .chain(n.ranges.iter().map(range_tokens))
        .collect();
    let mut rebase = Rebase::new(&n);
    rebase.visit_block_mut(&mut n.body);
    found.arrays = rebase.arrays;
    found.strays = rebase.strays;
    found.reach = rebase.reach;
    found.range = Some(outer);
    let (vars, body) = (&n.vars, &n.body);
    Ok(match &vars[..] {
        [one] => quote_spanned!(m.span()=> nfor!(#one in #(#ranges)* #body)),
        _ => quote_spanned!(m.span()=> nfor!((#(#vars),*) in (#(#ranges),*) #body)),
    })
}
