//! `nfor!`: compact, perfectly nested loops that run on the host as plain Rust loops.

use crate::emit::host;
use crate::syntax::nfor::NforSyntax;
use proc_macro2::TokenStream;

/// Expands `nfor!(vars in ranges { body })`.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let n: NforSyntax = syn::parse2(input)?;
    Ok(host::nfor(&n))
}
