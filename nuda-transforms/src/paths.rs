//! The paths generated code names, spelled once: the runtime's macro support is reached as
//! [`PRIVATE`] (`::nuda::__private`) in every `quote!`, so moving it is a one-line change.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// `::nuda::__private`, for `quote!(#PRIVATE::name(..))`.
pub const PRIVATE: Private = Private;

/// The path of the runtime's macro support; see [`PRIVATE`].
#[derive(Debug, Clone, Copy)]
pub struct Private;

impl ToTokens for Private {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(quote!(::nuda::__private));
    }
}
