//! `annot!(nudevs; nfor!(d in ndev { .. }))`: NUDA's loop over devices. Each iteration runs in
//! its own host thread with device `d` as that thread's current device, so the `nuwork!`s
//! inside run there. The body is ordinary host Rust, not the kernel subset, and is not
//! transformed; `?` inside it propagates a `nuda::Error` out of its iteration, and the whole
//! loop evaluates to `nuda::Result<()>` once every iteration has finished.

use super::parse::AnnotInput;
use crate::emit::host;
use crate::syntax::nfor::NforSyntax;
use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;

/// The name, as written in a chain.
pub const NAME: &str = "nudevs";

/// Whether the chain asks for `nudevs`.
pub fn wanted(input: &AnnotInput) -> bool {
    input.chain.iter().any(|a| a.name == NAME)
}

/// Expands a `nudevs` loop into a call of `nuda::nudevs`.
pub fn expand(input: &AnnotInput) -> syn::Result<TokenStream> {
    check_chain(input)?;
    let nest = &input.nest;
    if !nest.path.is_ident("nfor") {
        let msg = "annot!: nudevs applies to an `nfor!` loop over device indices, as in `annot!(nudevs; nfor!(d in ndev { .. }))`";
        return Err(syn::Error::new(nest.path.span(), msg));
    }
    let n: NforSyntax = syn::parse2(nest.tokens.clone())?;
    if n.vars.len() != 1 {
        let msg = "annot!: nudevs takes a loop with one variable, the device index, as in `nfor!(d in ndev { .. })`";
        return Err(syn::Error::new(n.vars[1].span(), msg));
    }
    let (var, body, span) = (&n.vars[0], &n.body, nest.span());
    let range = host::range(&n.ranges[0]);
    Ok(quote_spanned! {span=>
        ::nuda::nudevs(#range, |#var| -> ::nuda::Result<()> {
            let () = #body;
            ::core::result::Result::Ok(())
        })
    })
}

/// `nudevs` stands alone: its iterations are threads, which no other annotation can rewrite.
fn check_chain(input: &AnnotInput) -> syn::Result<()> {
    for a in &input.chain {
        if a.args.is_some() && a.name == NAME {
            let msg = "annot!: nudevs takes no parameters: the loop's values are the devices";
            return Err(syn::Error::new(a.name.span(), msg));
        }
        if input.chain.len() > 1 {
            let msg = "annot!: nudevs cannot be combined with other annotations: its iterations run as host threads on separate devices; annotate the loops inside it instead";
            return Err(syn::Error::new(a.name.span(), msg));
        }
    }
    Ok(())
}
