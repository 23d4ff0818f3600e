//! `nfor!`: compact, perfectly nested loops that run on the host as plain Rust loops around
//! the body as the user wrote it, which may use anything Rust allows (it never runs on a
//! device). An entry point: the syntax goes straight to Rust, with no IR in between.
//!
//! Stage 7 of the pipeline in `lib.rs` (entry points).

use crate::base::paths::PRIVATE;
use crate::syntax::nfor::{NforSyntax, RangeSyntax};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

/// Expands `nfor!(vars in ranges { body })`.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let n: NforSyntax = syn::parse2(input)?;
    Ok(nfor(&n))
}

/// The loops of an `nfor!` on the host.
pub fn nfor(n: &NforSyntax) -> TokenStream {
    let body = &n.body;
    let mut out = quote!(#body);
    for (var, r) in n.vars.iter().zip(&n.ranges).rev() {
        let it = range(r);
        out = quote!(for #var in #it #out);
        out = quote!({ #out });
    }
    out
}

/// `e` without the parentheses a NUDA range may need (`(m - 1) <> 0`), which would draw an
/// `unused_parens` warning once the bound is a function's argument.
fn bare(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => bare(&p.expr),
        other => other,
    }
}

/// A range with Rust's semantics: `a..b`, `a..=b`, or nuda's stepped range.
pub fn range(r: &RangeSyntax) -> TokenStream {
    let start = r
        .start
        .as_ref()
        .map(bare)
        .map_or_else(|| quote_spanned!(r.span=> 0), |s| quote!(#s));
    let end = bare(&r.end);
    let rev = r.rev;
    match (&r.step, r.inclusive, rev) {
        // No parentheses: `for i in (0..n)` draws an unused_parens warning in the user's crate.
        (None, false, false) => quote_spanned!(r.span=> #start..#end),
        (None, true, false) => quote_spanned!(r.span=> #start..=#end),
        (None, false, true) => quote_spanned!(r.span=> (#start..#end).rev()),
        (None, true, true) => quote_spanned!(r.span=> (#start..=#end).rev()),
        (Some(s), incl, rev) => {
            let s = bare(s);
            quote_spanned!(r.span=> #PRIVATE::steps(#start, #end, #s, #incl, #rev))
        }
    }
}
