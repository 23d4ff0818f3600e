//! `let part = nulocal!(T, dims);` at the top of a `#[nukernel]` body: NUDA's `nulocal`, a
//! work-group-shared array of element type `T` whose dims (`128`, `(16, 17)`, constants or
//! `const` items) are known before the launch. The declaration becomes a capture the glue
//! makes (`nuda::kernel::LocalArray`); the body indexes it as it would an array.

use super::Lower;
use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Ident, Token};

/// A local array a kernel declares.
#[derive(Debug, Clone)]
pub struct LocalDecl {
    /// The array's name in the body.
    pub name: Ident,
    /// The element type, as written.
    pub ty: syn::Type,
    /// One expression per dim, as written; the glue evaluates them in a `const`.
    pub dims: Vec<syn::Expr>,
    /// The declaration.
    pub span: Span,
}

/// `T, dims` inside `nulocal!( .. )`.
struct NulocalSyntax {
    ty: syn::Type,
    dims: Vec<syn::Expr>,
}

impl Parse for NulocalSyntax {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let ty: syn::Type = input.parse()?;
        input.parse::<Token![,]>()?;
        let dims: syn::Expr = input.parse()?;
        let _ = input.parse::<Option<Token![,]>>()?;
        let dims = match dims {
            syn::Expr::Tuple(t) => t.elems.into_iter().collect(),
            syn::Expr::Paren(p) => vec![*p.expr],
            d => vec![d],
        };
        Ok(NulocalSyntax { ty, dims })
    }
}

/// Whether `e` is a `nulocal!( .. )` invocation.
pub fn is_nulocal(e: &syn::Expr) -> Option<&syn::Macro> {
    match e {
        syn::Expr::Macro(m) if m.mac.path.is_ident("nulocal") => Some(&m.mac),
        _ => None,
    }
}

impl Lower<'_> {
    /// Records `let name = nulocal!(..);`; the statement itself lowers to nothing.
    pub(super) fn nulocal(&mut self, l: &syn::Local, mac: &syn::Macro) {
        let span = mac.path.span();
        if !self.allow_locals {
            return self.cx.error(span, "nulocal! declares a work-group array, which only a #[nukernel] body has; nuwork!, #[nucode] and host code cannot declare one");
        }
        if self.depth != 1 {
            return self.cx.error(span, "nulocal! arrays are declared at the top of the #[nukernel] body, not inside a block or loop (OpenCL allocates local memory per kernel)");
        }
        let name = match &l.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
            p => {
                return self.cx.error(
                    p.span(),
                    "nulocal! binds one name: `let part = nulocal!(u32, 64);`",
                )
            }
        };
        let parsed: NulocalSyntax = match syn::parse2(mac.tokens.clone()) {
            Ok(p) => p,
            Err(e) => {
                let msg = format!("nulocal!({}): expected an element type and dims, as in `nulocal!(f32, (16, 17))`", mac.tokens);
                return self.cx.error(e.span(), msg);
            }
        };
        if !(1..=3).contains(&parsed.dims.len()) {
            return self
                .cx
                .error(mac.span(), "nulocal! arrays have 1 to 3 dims");
        }
        if let Some(d) = parsed.dims.iter().find(|d| !constant_looking(d)) {
            let msg = "nulocal! dims are constants known before the launch: integer literals or `const` items (`nulocal!(f32, (TILE, TILE + 1))`); size a work-group's share of a run-time length with a global array instead";
            return self.cx.error(d.span(), msg);
        }
        if self.locals.iter().any(|d| d.name == name) {
            return self
                .cx
                .error(name.span(), format!("nulocal! `{name}` is declared twice"));
        }
        self.locals.push(LocalDecl {
            name,
            ty: parsed.ty,
            dims: parsed.dims,
            span,
        });
    }
}

/// `nulocal!` expanded on its own, outside a `#[nukernel]` body: an error saying where it
/// belongs.
pub fn outside_kernel(input: proc_macro2::TokenStream) -> syn::Result<proc_macro2::TokenStream> {
    let span = input.span();
    Err(syn::Error::new(
        span,
        "nulocal! declares a work-group array, which only a #[nukernel] body has: write \
         `let part = nulocal!(u32, 64);` at the top of a #[nukernel] function",
    ))
}

/// Whether a dim looks constant: literals, and names written as constants (`TILE`, `N2`),
/// combined by operators. A `let` or parameter (`n`) is refused here, with advice; anything
/// else rustc checks in the `const` the glue puts the dims in.
fn constant_looking(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| super::looks_const(&s.ident)),
        syn::Expr::Binary(b) => constant_looking(&b.left) && constant_looking(&b.right),
        syn::Expr::Paren(p) => constant_looking(&p.expr),
        syn::Expr::Cast(c) => constant_looking(&c.expr),
        _ => true,
    }
}
