//! The paths generated code names, spelled once: the runtime's macro support is reached as
//! [`PRIVATE`] (`::nuda::__private`) in every `quote!`, so moving it is a one-line change.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// `::nuda::__private`, for `quote!(#PRIVATE::name(..))`.
pub const PRIVATE: Private = Private;

/// The path of the runtime's macro support; see [`PRIVATE`].
#[derive(Debug, Clone, Copy)]
pub struct Private;

impl Private {
    /// The path at `span`: a call whose type errors should point at the user's code (the
    /// call's own span is where rustc reports an unmet bound of its result type).
    pub fn at(self, span: proc_macro2::Span) -> TokenStream {
        self.to_token_stream()
            .into_iter()
            .map(|mut t| {
                t.set_span(span);
                t
            })
            .collect()
    }
}

impl ToTokens for Private {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(quote!(::nuda::__private));
    }
}
