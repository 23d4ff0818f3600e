//! The paths generated code names, spelled once: the runtime's macro support is reached as
//! [`PRIVATE`] (`::nuda::__private`) in every `quote!`, so moving it is a one-line change.
//!
//! Stage 1 of the pipeline in `lib.rs` (the base).

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
        spanned(self.to_token_stream(), span)
    }
}

/// `tokens`, each at `span`.
fn spanned(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect()
}

impl ToTokens for Private {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(quote!(::nuda::__private));
    }
}

/// Gives every generated name (`__nuda_fault`, `__NUDA_SITES`, ..) the call site's hygiene,
/// keeping its location. The expanders take many spans from the user's tokens, so that errors
/// point there; but a name spanned by a token that a `macro_rules!` wrapper wrote gets that
/// macro's hygiene, and no longer meets the same name spanned elsewhere (`cannot find value
/// __nuda_fault in this scope`). The user's own names keep their spans and so their
/// hygiene, which the type witness's guards rely on.
pub fn hygienic(ts: TokenStream) -> TokenStream {
    use proc_macro2::{Group, Span, TokenTree};
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(mut id) => {
                let name = id.to_string();
                if name.starts_with("__nuda") || name.starts_with("__NUDA") {
                    id.set_span(Span::call_site().located_at(id.span()));
                }
                TokenTree::Ident(id)
            }
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), hygienic(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}

/// `::nuda`, the facade's root, for `quote!(#NUDA::Result<..>)`.
pub const NUDA: Root = Root("");

/// `::nuda::kernel`, the runtime's kernel support that generated code names, for
/// `quote!(#KERNEL::Capture)`.
pub const KERNEL: Root = Root("kernel");

/// A path under the facade `::nuda`: the crate's root, or one of its modules.
#[derive(Debug, Clone, Copy)]
pub struct Root(&'static str);

impl Root {
    /// The path at `span`, as [`Private::at`]: inside `quote_spanned!`, where rustc reports
    /// what goes wrong with the path's item at the user's code.
    pub fn at(self, span: proc_macro2::Span) -> TokenStream {
        spanned(self.to_token_stream(), span)
    }
}

impl ToTokens for Root {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(quote!(::nuda));
        if !self.0.is_empty() {
            let module = proc_macro2::Ident::new(self.0, proc_macro2::Span::call_site());
            tokens.extend(quote!(::#module));
        }
    }
}
