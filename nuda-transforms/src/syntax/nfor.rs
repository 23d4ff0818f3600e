//! Parsing `nfor!` headers: `i in n`, `(i, j) in (a..b, c <> d :/ 2)` and the Rust range forms,
//! into variables, ranges and a body, still as `syn` syntax.
//!
//! A range is `e` (meaning `0..e`), `a..b`, `a..=b` or NUDA's `a <> b` (inclusive), each with an
//! optional step written `:/ c` or `.step_by(c)`. `<>` and `:/` are not Rust operators, so
//! ranges are split on them token by token before `syn` parses the pieces.

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

/// A parsed `nfor!` input.
pub struct NforSyntax {
    /// Loop variables, outermost first.
    pub vars: Vec<Ident>,
    /// One range per variable.
    pub ranges: Vec<RangeSyntax>,
    /// The loop body.
    pub body: syn::Block,
}

/// One range, before lowering.
pub struct RangeSyntax {
    /// First value; `None` means 0.
    pub start: Option<Expr>,
    /// Bound.
    pub end: Expr,
    /// Whether the bound is included.
    pub inclusive: bool,
    /// Step, if written.
    pub step: Option<Expr>,
    /// `.rev()`: the values last first.
    pub rev: bool,
    /// The whole range's span.
    pub span: Span,
}

impl Parse for NforSyntax {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let vars = parse_vars(input)?;
        input.parse::<Token![in]>()?;
        let ranges_tokens = take_until_brace(input)?;
        let body: syn::Block = input.parse()?;
        if !input.is_empty() {
            return Err(input.error("nfor!: unexpected tokens after the loop body"));
        }
        let ranges = split_ranges(ranges_tokens, vars.len())?;
        Ok(NforSyntax { vars, ranges, body })
    }
}

fn parse_vars(input: ParseStream) -> syn::Result<Vec<Ident>> {
    if input.peek(syn::token::Paren) {
        let inner;
        syn::parenthesized!(inner in input);
        let list = inner.parse_terminated(Ident::parse, Token![,])?;
        if list.is_empty() {
            return Err(inner.error("nfor!: expected loop variables, as in `(i, j) in (n, m)`"));
        }
        return Ok(list.into_iter().collect());
    }
    let var: Ident = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            "nfor!: expected a loop variable or `(i, j, ..)`, as in `nfor!(i in n { .. })`",
        )
    })?;
    Ok(vec![var])
}

/// The tokens before the body's `{ .. }` group.
fn take_until_brace(input: ParseStream) -> syn::Result<TokenStream> {
    let mut out = TokenStream::new();
    while !input.is_empty() {
        if input.peek(syn::token::Brace) && !out.is_empty() {
            return Ok(out);
        }
        let tt: TokenTree = input.parse()?;
        out.extend([tt]);
    }
    Err(input.error("nfor!: expected the loop body `{ .. }` after the ranges"))
}

/// Splits the ranges part into one range per variable.
fn split_ranges(tokens: TokenStream, vars: usize) -> syn::Result<Vec<RangeSyntax>> {
    let span = tokens.span();
    if vars == 1 {
        // `(i) in (a <> b)`: a one-element tuple of ranges.
        let mut iter = tokens.clone().into_iter();
        if let (Some(TokenTree::Group(g)), None) = (iter.next(), iter.next()) {
            if g.delimiter() == Delimiter::Parenthesis {
                return Ok(vec![range(g.stream())?]);
            }
        }
        return Ok(vec![range(tokens)?]);
    }
    let mut iter = tokens.into_iter();
    let group = match (iter.next(), iter.next()) {
        (Some(TokenTree::Group(g)), None) if g.delimiter() == Delimiter::Parenthesis => g,
        _ => {
            let msg = format!(
                "nfor!: {vars} loop variables need {vars} ranges in parentheses, as in `(n, 0..m)`"
            );
            return Err(syn::Error::new(span, msg));
        }
    };
    let parts = split_top(group.stream(), ',');
    if parts.len() != vars {
        let msg = format!("nfor!: {vars} loop variables but {} ranges", parts.len());
        return Err(syn::Error::new(group.span(), msg));
    }
    parts.into_iter().map(range).collect()
}

/// Splits a token stream at top-level occurrences of `sep`, dropping an empty last part.
fn split_top(tokens: TokenStream, sep: char) -> Vec<TokenStream> {
    let mut parts = vec![TokenStream::new()];
    for tt in tokens {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == sep => parts.push(TokenStream::new()),
            _ => parts
                .last_mut()
                .unwrap_or(&mut TokenStream::new())
                .extend([tt]),
        }
    }
    if parts.last().is_some_and(|p| p.is_empty()) && parts.len() > 1 {
        parts.pop();
    }
    parts
}

/// Finds a two-character NUDA operator (`<>` or `:/`) at the top level: the tokens before it
/// and after it.
fn split_op(
    tokens: TokenStream,
    first: char,
    second: char,
) -> Option<(TokenStream, TokenStream, Span)> {
    let list: Vec<TokenTree> = tokens.into_iter().collect();
    for k in 0..list.len().saturating_sub(1) {
        let (TokenTree::Punct(a), TokenTree::Punct(b)) = (&list[k], &list[k + 1]) else {
            continue;
        };
        // `::` also starts with ':', but is one joint two-character token.
        let is_path = first == ':'
            && k > 0
            && matches!(&list[k - 1], TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == Spacing::Joint);
        if a.as_char() == first && b.as_char() == second && !is_path {
            let before = list[..k].iter().cloned().collect();
            let after = list[k + 2..].iter().cloned().collect();
            return Some((before, after, a.span()));
        }
    }
    None
}

/// Parses one range.
fn range(tokens: TokenStream) -> syn::Result<RangeSyntax> {
    let span = tokens.span();
    if tokens.is_empty() {
        return Err(syn::Error::new(
            span,
            "nfor!: empty range; write `n`, `a..b`, `a..=b` or `a <> b`",
        ));
    }
    let (body, step) = match split_op(tokens.clone(), ':', '/') {
        Some((before, after, _)) => (before, Some(syn::parse2::<Expr>(after)?)),
        None => (tokens, None),
    };
    if let Some((a, b, _)) = split_op(body.clone(), '<', '>') {
        let start = Some(syn::parse2::<Expr>(a)?);
        let end = syn::parse2::<Expr>(b)?;
        return Ok(RangeSyntax {
            start,
            end,
            inclusive: true,
            step,
            rev: false,
            span,
        });
    }
    let expr: Expr = syn::parse2(body)?;
    rust_range(expr, step, span)
}

/// `a..b`, `a..=b`, `(a..b).step_by(c)`, or any other expression `e` meaning `0..e`.
fn rust_range(expr: Expr, step: Option<Expr>, span: Span) -> syn::Result<RangeSyntax> {
    match expr {
        Expr::Range(r) => {
            let Some(end) = r.end else {
                return Err(syn::Error::new(
                    span,
                    "nfor!: a range needs an end, as in `a..b`",
                ));
            };
            let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
            Ok(RangeSyntax {
                start: r.start.map(|s| *s),
                end: *end,
                inclusive,
                step,
                rev: false,
                span,
            })
        }
        Expr::Paren(p) => rust_range(*p.expr, step, span),
        Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            if step.is_some() {
                return Err(syn::Error::new(
                    span,
                    "nfor!: a range takes one step, `:/ c` or `.step_by(c)`",
                ));
            }
            let step = m.args.into_iter().next();
            rust_range(*m.receiver, step, span)
        }
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
            reversed(*m.receiver, step, span)
        }
        e => Ok(RangeSyntax {
            start: None,
            end: e,
            inclusive: false,
            step,
            rev: false,
            span,
        }),
    }
}

/// `(a..b).rev()`, `(a..=b).rev()` and `(a..b).step_by(c).rev()`: the forward range's values,
/// last first. A step after `.rev()` would count from the end, which `<>` ranges write as a
/// negative step.
fn reversed(inner: Expr, step: Option<Expr>, span: Span) -> syn::Result<RangeSyntax> {
    if step.is_some() {
        return Err(syn::Error::new(span, "nfor!: a step after `.rev()` counts from the end; write `(a..b).step_by(c).rev()` for the forward values last first, or `b <> a :/ -c` to count down from `b`"));
    }
    let mut r = rust_range(inner, None, span)?;
    if r.rev {
        return Err(syn::Error::new(
            span,
            "nfor!: `.rev().rev()` is the range itself; drop both",
        ));
    }
    r.rev = true;
    Ok(r)
}
