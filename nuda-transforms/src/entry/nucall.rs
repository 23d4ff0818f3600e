//! `nucall!(device, [global..], [local..]; kernel(args))`: launches a `#[nukernel]` on device
//! `device` (an index into `nuda::devices()`), as NUDA's `nucall`.
//!
//! Stage 7 of the pipeline in `lib.rs` (entry points).

use crate::base::paths::PRIVATE;
use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr, ExprCall, Token};

struct NucallInput {
    unchecked: Option<proc_macro2::Span>,
    device: Expr,
    global: Expr,
    local: Expr,
    call: ExprCall,
}

fn sizes(input: ParseStream, what: &str) -> syn::Result<Expr> {
    let e: Expr = input.parse()?;
    match &e {
        Expr::Array(a) if (1..=3).contains(&a.elems.len()) => Ok(e),
        Expr::Array(a) => Err(syn::Error::new(
            a.span(),
            format!("nucall!: give 1 to 3 {what} sizes, as in `[n, n]`"),
        )),
        _ => Err(syn::Error::new(
            e.span(),
            format!("nucall!: the {what} size is an array `[..]` of 1 to 3 sizes"),
        )),
    }
}

impl Parse for NucallInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let unchecked = crate::entry::nuwork::parse_unchecked(input, "nucall!")?;
        let device: Expr = input.parse()?;
        input.parse::<Token![,]>()?;
        let global = sizes(input, "global")?;
        input.parse::<Token![,]>()?;
        let local = sizes(input, "local")?;
        input.parse::<Token![;]>().map_err(|e| syn::Error::new(e.span(), "nucall!: expected `;` before the kernel call, as in `nucall!(0, [n], [64]; k(&mut a))`"))?;
        let call = match input.parse::<Expr>()? {
            Expr::Call(c) => c,
            other => return Err(syn::Error::new(other.span(), "nucall!: expected a call of a #[nukernel] function, as in `array_by_2(&mut b, &a)`")),
        };
        Ok(NucallInput {
            unchecked,
            device,
            global,
            local,
            call,
        })
    }
}

fn len(e: &Expr) -> usize {
    match e {
        Expr::Array(a) => a.elems.len(),
        _ => 0,
    }
}

/// Expands `nucall!`.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let NucallInput {
        unchecked,
        device,
        global,
        local,
        call,
    } = syn::parse2(input)?;
    if len(&global) != len(&local) {
        return Err(syn::Error::new(
            local.span(),
            format!(
                "nucall!: {} global sizes but {} local sizes; give one local size per dimension",
                len(&global),
                len(&local)
            ),
        ));
    }
    let args = call.args.iter();
    let launcher = launcher(&call.func)?;
    let contract = crate::entry::nuwork::unchecked_contract(unchecked);
    // Inside the caller's `unsafe` block, which the contract above makes rustc require.
    let mark = unchecked.map(|_| quote::quote!(.unchecked()));
    Ok(quote_spanned! {call.span()=>
        {
            #contract
            #launcher(#PRIVATE::Call::new(#device, &#global, &#local)#mark, #(#args),*)
        }
    })
}

/// `path::to::kernel::<T>::__nuda_launch`: the launcher `#[nukernel]` makes beside the name
/// (see `nukernel::glue`).
fn launcher(func: &Expr) -> syn::Result<syn::ExprPath> {
    let Expr::Path(p) = func else {
        return Err(syn::Error::new(
            func.span(),
            "nucall!: call a #[nukernel] function by its name, as in `nucall!(0, [n], [64]; scale(&mut a))`",
        ));
    };
    let mut p = p.clone();
    let at = p
        .path
        .segments
        .last()
        .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
    p.path
        .segments
        .push(syn::PathSegment::from(syn::Ident::new("__nuda_launch", at)));
    Ok(p)
}
