//! Parsing `annot!(a1(..), a2, ..; nfor!(..))`: the chain, checked for names and arities, and
//! the nest it applies to.

use super::Lower;
use crate::base::ir::{Annot, AnnotKind, Nest};
use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

/// One annotation as written.
pub struct AnnotSyntax {
    /// Its name.
    pub name: Ident,
    /// Its parameters; `None` when written without parentheses (`inline`).
    pub args: Option<Punctuated<Expr, Token![,]>>,
}

/// A parsed `annot!` input.
pub struct AnnotInput {
    /// The chain, left to right.
    pub chain: Vec<AnnotSyntax>,
    /// The annotated `nfor!` (or a nested `annot!`).
    pub nest: syn::Macro,
}

impl Parse for AnnotSyntax {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        let args = if input.peek(syn::token::Paren) {
            let inner;
            syn::parenthesized!(inner in input);
            Some(inner.parse_terminated(arg, Token![,])?)
        } else {
            None
        };
        Ok(AnnotSyntax { name, args })
    }
}

/// One parameter: an expression, or `name: size` (`stage(a, b, k: 16)`), kept as the tuple
/// `(name, size)`, which no other parameter can be.
fn arg(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(Ident) && input.peek2(Token![:]) && !input.peek2(Token![::]) {
        let name: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let size: Expr = input.parse()?;
        return Ok(syn::parse_quote_spanned!(name.span()=> (#name, #size)));
    }
    input.parse()
}

impl Parse for AnnotInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut chain = Vec::new();
        loop {
            chain.push(input.parse::<AnnotSyntax>()?);
            if input.peek(Token![;]) {
                break;
            }
            input.parse::<Token![,]>().map_err(|e| {
                syn::Error::new(e.span(), "annot!: expected `,` between annotations or `;` before the loop nest, as in `annot!(tilem(8, 8), dmine(2, 2); nfor!(..))`")
            })?;
        }
        input.parse::<Token![;]>()?;
        Ok(AnnotInput {
            chain,
            nest: input.parse()?,
        })
    }
}

/// Edit distance, for suggesting the annotation a misspelt name meant.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The annotation named `name`, or an error suggesting the nearest one.
pub fn kind(name: &Ident) -> syn::Result<AnnotKind> {
    let text = name.to_string();
    if let Some((_, k)) = AnnotKind::ALL.iter().find(|(n, _)| *n == text) {
        return Ok(*k);
    }
    if text == NUDIST {
        let msg = "annot!: nudist belongs on an `annot!` around a `nuwork!`, alone, as in `annot!(nudist; nuwork!(16; nfor!(..)))`: it splits the launch over MPI ranks";
        return Err(syn::Error::new(name.span(), msg));
    }
    if text == NUDEVS {
        let msg = "annot!: nudevs belongs on a host loop, alone: its iterations run as host threads on separate devices, which a kernel cannot start";
        return Err(syn::Error::new(name.span(), msg));
    }
    let mut all: Vec<&str> = AnnotKind::ALL.iter().map(|(n, _)| *n).collect();
    all.extend([NUDEVS, NUDIST]);
    let nearest = all
        .iter()
        .copied()
        .min_by_key(|n| distance(&text, n))
        .unwrap_or("tile");
    Err(syn::Error::new(
        name.span(),
        format!(
            "annot!: unknown annotation `{text}`; did you mean `{nearest}`? (annotations: {})",
            all.join(", ")
        ),
    ))
}

/// Lowers a parsed chain onto the lowered nest: the nest's own chain (from a nested `annot!`)
/// runs first, as it is written innermost.
pub fn attach(lower: &mut Lower<'_>, input: &AnnotInput, mut nest: Nest) -> Nest {
    for a in &input.chain {
        match kind(&a.name) {
            Ok(k) => {
                let args = a.args.iter().flatten().map(|e| lower.expr(e)).collect();
                nest.annots.push(Annot {
                    kind: k,
                    args,
                    span: span_of(a),
                });
            }
            Err(e) => lower.cx.push(e),
        }
    }
    nest
}

fn span_of(a: &AnnotSyntax) -> Span {
    a.args.as_ref().map_or(a.name.span(), |args| {
        a.name.span().join(args.span()).unwrap_or(a.name.span())
    })
}

/// The `nudevs` annotation, which `annot!` on host code expands (`entry/annot/nudevs.rs`).
pub const NUDEVS: &str = "nudevs";

/// The `nudist` annotation, which `annot!` around a `nuwork!` expands
/// (`entry/annot/nudist.rs`).
pub const NUDIST: &str = "nudist";

/// Lowers an `annot!( .. )` invocation: the nest, with the chain attached.
pub fn lower_annot(lower: &mut Lower<'_>, mac: &syn::Macro) -> Option<Nest> {
    let input: AnnotInput = match syn::parse2(mac.tokens.clone()) {
        Ok(i) => i,
        Err(e) => {
            lower.cx.push(e);
            return None;
        }
    };
    let nest = lower_nest_macro(lower, &input.nest, "annot!")?;
    Some(attach(lower, &input, nest))
}

/// Lowers the nest macro of a `nuwork!` or `annot!`: `nfor!(..)` or a nested `annot!(..)`.
pub fn lower_nest_macro(lower: &mut Lower<'_>, mac: &syn::Macro, form: &str) -> Option<Nest> {
    match mac.path.get_ident().map(|i| i.to_string()).as_deref() {
        Some("nfor") => lower.nest_tokens(mac.tokens.clone(), mac.span()),
        Some("annot") => lower_annot(lower, mac),
        _ => {
            lower.cx.error(
                mac.path.span(),
                format!("{form}: expected `nfor!(..)` or `annot!(..)` after the `;`"),
            );
            None
        }
    }
}
