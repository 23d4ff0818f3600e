//! nuda's procedural macros. Each entry point parses its input, hands it to
//! `nuda-transforms`, and turns errors into `compile_error!` at the user's span.
//! The forms are documented on their re-exports in the `nuda` crate.

use proc_macro::TokenStream;

/// An item macro's output: several `compile_error!` items may stand side by side.
fn finish(r: syn::Result<proc_macro2::TokenStream>) -> TokenStream {
    let out = r.map(nuda_transforms::base::paths::hygienic);
    out.unwrap_or_else(syn::Error::into_compile_error).into()
}

/// An expression macro's output: several `compile_error!`s need a block around them.
fn finish_expr(r: syn::Result<proc_macro2::TokenStream>) -> TokenStream {
    r.map(nuda_transforms::base::paths::hygienic)
        .unwrap_or_else(|e| {
            let errors = e.into_compile_error();
            quote::quote!({ #errors })
        })
        .into()
}

/// Perfectly nested loops on the host: `nfor!((i, j) in (n, m) { .. })`.
#[proc_macro]
pub fn nfor(input: TokenStream) -> TokenStream {
    finish_expr(nuda_transforms::entry::nfor::expand(input.into()))
}

/// Runs a loop nest on the current device: `nuwork!(1, 128; nfor!((i, j) in (n, n) { .. }))`.
#[proc_macro]
pub fn nuwork(input: TokenStream) -> TokenStream {
    finish_expr(nuda_transforms::entry::nuwork::expand(input.into()))
}

/// Launches a `#[nukernel]`: `nucall!(device, [global..], [local..]; kernel(args))`.
#[proc_macro]
pub fn nucall(input: TokenStream) -> TokenStream {
    finish_expr(nuda_transforms::entry::nucall::expand(input.into()))
}

/// An explicit kernel, launched with `nucall!`.
#[proc_macro_attribute]
pub fn nukernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    finish(nuda_transforms::entry::nukernel::expand(
        attr.into(),
        item.into(),
    ))
}

/// A function callable from kernels and, unchanged, from the host.
#[proc_macro_attribute]
pub fn nucode(attr: TokenStream, item: TokenStream) -> TokenStream {
    finish(nuda_transforms::entry::nucode::expand(
        attr.into(),
        item.into(),
    ))
}

/// A struct usable in kernels and as an array element, laid out as in OpenCL C.
#[proc_macro_attribute]
pub fn nustruct(attr: TokenStream, item: TokenStream) -> TokenStream {
    finish(nuda_transforms::entry::nustruct::expand(
        attr.into(),
        item.into(),
    ))
}

/// A work-group-shared array in a `#[nukernel]` body: `let part = nulocal!(u64, 128);`.
/// `#[nukernel]` reads it there; anywhere else it is this compile error.
#[proc_macro]
pub fn nulocal(input: TokenStream) -> TokenStream {
    finish_expr(nuda_transforms::syntax::local::outside_kernel(input.into()))
}

/// Transforms a loop nest at compile time: `annot!(tilem(8, 8), dmine(2, 2); nfor!(..))`.
/// On the host it expands to the transformed loops; inside `nuwork!` and kernels the macro
/// there reads it.
#[proc_macro]
pub fn annot(input: TokenStream) -> TokenStream {
    finish_expr(nuda_transforms::entry::annot::expand(input.into()))
}
