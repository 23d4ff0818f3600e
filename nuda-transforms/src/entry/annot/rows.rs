//! The body of an `annot!(nudist; ..)` loop, as syntax (an entry point's helper, beside
//! `nudist.rs`): every index into an array from outside the body is rebased to the array's
//! first held row, and every write of such an array whose first index is not the outer loop's
//! variable is found (a rank may write only its own rows). Inner `nfor!` and `annot!` nests
//! are walked too: syn's visitors do not look into macro tokens, so each is parsed, walked
//! and written back.

use crate::syntax::nfor::{NforSyntax, RangeSyntax};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::Ident;

/// The name of an array's first held row, in the generated launch.
pub(super) fn base_ident(a: &Ident) -> Ident {
    format_ident!("__nudist_base_{}", a)
}

/// An `nfor!` nest inside the body, directly or under `annot!`s, and the chains around it.
struct Nested {
    chains: Vec<TokenStream>,
    nest: NforSyntax,
}

/// The nest `m` is, if it is `nfor!(..)` or `annot!(chain; ..)` around one.
fn nested(m: &syn::Macro) -> Option<Nested> {
    if m.path.is_ident("nfor") {
        let nest = syn::parse2(m.tokens.clone()).ok()?;
        return Some(Nested {
            chains: Vec::new(),
            nest,
        });
    }
    if !m.path.is_ident("annot") {
        return None;
    }
    let (chain, inner) = split_semi(m.tokens.clone(), m.span()).ok()?;
    let mut n = nested(&inner)?;
    n.chains.insert(0, chain);
    Some(n)
}

/// The tokens inside the macro of `n`, as written back after a rewrite.
fn rebuilt(n: &Nested) -> TokenStream {
    let (vars, body) = (&n.nest.vars, &n.nest.body);
    let ranges: Vec<TokenStream> = n.nest.ranges.iter().map(range_tokens).collect();
    let mut out = match &vars[..] {
        [one] => quote!(#one in #(#ranges)* #body),
        _ => quote!((#(#vars),*) in (#(#ranges),*) #body),
    };
    // `annot!(c1; annot!(c2; nfor!(..)))`: the innermost chain holds the `nfor!`, each
    // outer one the `annot!` inside it.
    for (k, chain) in n.chains.iter().rev().enumerate() {
        out = match k {
            0 => quote!(#chain; nfor!(#out)),
            _ => quote!(#chain; annot!(#out)),
        };
    }
    out
}

/// A range written back in `nfor!` syntax.
pub(super) fn range_tokens(r: &RangeSyntax) -> TokenStream {
    let end = &r.end;
    let mut out = match (&r.start, r.inclusive) {
        (Some(s), true) => quote!((#s)..=(#end)),
        (Some(s), false) => quote!((#s)..(#end)),
        (None, true) => quote!(0..=(#end)),
        (None, false) => end.to_token_stream(),
    };
    if let Some(s) = &r.step {
        out = quote!((#out).step_by(#s));
    }
    if r.rev {
        out = quote!((#out).rev());
    }
    out
}

/// The expressions of a range.
fn range_exprs(r: &mut RangeSyntax) -> Vec<&mut syn::Expr> {
    let mut out: Vec<&mut syn::Expr> = r.start.iter_mut().collect();
    out.push(&mut r.end);
    out.extend(r.step.iter_mut());
    out
}

/// Every name a pattern or loop in the body binds, inner nests included.
#[derive(Default)]
pub(super) struct Names(pub HashSet<String>);

impl<'ast> Visit<'ast> for Names {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if let Some(mut n) = nested(m) {
            self.0.extend(n.nest.vars.iter().map(ToString::to_string));
            for r in &mut n.nest.ranges {
                range_exprs(r).into_iter().for_each(|e| self.visit_expr(e));
            }
            self.visit_block(&n.nest.body);
        }
    }
}

/// Rebases the first index of every array the body does not bind, and records the arrays
/// and their stray writes.
pub(super) struct Rebase {
    bound: HashSet<String>,
    /// The outer loop's variable, unless the body binds its name again.
    outer: Option<String>,
    pub arrays: Vec<Ident>,
    /// Per array, the first write whose first index is not `outer`.
    pub strays: HashMap<String, String>,
    /// Per array, how far from the outer variable's row its indices reach: `c` of
    /// `a[i + c]` and `a[i - c]` at most, or `None` where a first index has another form.
    pub reach: HashMap<String, Option<usize>>,
}

impl Rebase {
    pub fn new(n: &NforSyntax) -> Self {
        let mut names = Names::default();
        names.visit_block(&n.body);
        let outer = n.vars[0].to_string();
        let outer = (!names.0.contains(&outer)).then_some(outer);
        names.0.extend(n.vars.iter().map(ToString::to_string));
        Rebase {
            bound: names.0,
            outer,
            arrays: Vec::new(),
            strays: HashMap::new(),
            reach: HashMap::new(),
        }
    }

    /// The array an index expression reads from outside the body, if it does.
    fn outside(&self, e: &syn::Expr) -> Option<Ident> {
        let syn::Expr::Path(p) = e else {
            return None;
        };
        // A constant (`TABLE[k]`) is the same on every rank, and `let (TABLE, ..)` would be a
        // pattern, not a binding.
        let local =
            |n: &&Ident| self.bound.contains(&n.to_string()) || crate::syntax::looks_const(n);
        p.path.get_ident().filter(|n| !local(n)).cloned()
    }

    /// Records a write of `array` at first index `first` (the index as written: `text`).
    fn write(&mut self, array: &Ident, first: &syn::Expr, text: String) {
        let own = matches!((first_ident(first), &self.outer), (Some(v), Some(o)) if v == *o);
        if !own {
            self.strays.entry(array.to_string()).or_insert(text);
        }
    }

    /// A write through `target` (`a[..] = ..`, `a[..] op= ..`).
    fn store(&mut self, target: &syn::Expr) {
        let syn::Expr::Index(ix) = target else {
            return;
        };
        let Some(array) = self.outside(&ix.expr) else {
            return;
        };
        let text = tidy(&quote!(#ix).to_string());
        self.write(&array, first_of(&ix.index), text);
    }
}

impl Rebase {
    /// `index` into `array` from its first held row: its first coordinate less the row.
    fn rebase(&mut self, array: &Ident, index: &mut syn::Expr) {
        let base = base_ident(array);
        let first = match index {
            syn::Expr::Tuple(t) if !t.elems.is_empty() => &mut t.elems[0],
            other => other,
        };
        let span = first.span();
        let old = first.clone();
        let c = self.outer.as_deref().and_then(|o| offset(&old, o));
        let r = self.reach.entry(array.to_string()).or_insert(Some(0));
        *r = r.zip(c).map(|(r, c)| r.max(c));
        *first = syn::parse_quote_spanned!(span=> ((#old) - #base));
        if !self.arrays.contains(array) {
            self.arrays.push(array.clone());
        }
    }
}

/// `c` where `e` is `outer`, `outer + c`, `c + outer` or `outer - c` with a literal `c`.
fn offset(e: &syn::Expr, outer: &str) -> Option<usize> {
    let literal = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse().ok(),
        _ => None,
    };
    match e {
        syn::Expr::Paren(p) => offset(&p.expr, outer),
        syn::Expr::Path(_) => (first_ident(e).as_deref() == Some(outer)).then_some(0),
        syn::Expr::Binary(b) => {
            let var = |e: &syn::Expr| offset(e, outer) == Some(0);
            match b.op {
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) if var(&b.left) => literal(&b.right),
                syn::BinOp::Add(_) if var(&b.right) => literal(&b.left),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The first coordinate of an index: `i` of `(i, j)`.
fn first_of(index: &syn::Expr) -> &syn::Expr {
    match index {
        syn::Expr::Tuple(t) if !t.elems.is_empty() => &t.elems[0],
        other => other,
    }
}

/// The variable an expression is, through parentheses.
fn first_ident(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        syn::Expr::Paren(p) => first_ident(&p.expr),
        _ => None,
    }
}

/// Token text as a user writes it: `b[(i + 1, j)]`, not `b [(i + 1 , j)]`.
fn tidy(text: &str) -> String {
    text.replace(" [", "[")
        .replace(" ,", ",")
        .replace("( ", "(")
        .replace(" )", ")")
}

impl VisitMut for Rebase {
    fn visit_expr_assign_mut(&mut self, e: &mut syn::ExprAssign) {
        self.store(&e.left);
        syn::visit_mut::visit_expr_assign_mut(self, e);
    }

    fn visit_expr_binary_mut(&mut self, e: &mut syn::ExprBinary) {
        if compound(&e.op) {
            self.store(&e.left);
        }
        syn::visit_mut::visit_expr_binary_mut(self, e);
    }

    /// `a.atomic_add(i, v)`: a write of `a` at `i`, whose index is rebased as `a[i]`'s is.
    fn visit_expr_method_call_mut(&mut self, e: &mut syn::ExprMethodCall) {
        // The write as written, before its index is rewritten.
        let atomic = e.method.to_string().starts_with("atomic_");
        let array = self
            .outside(&e.receiver)
            .filter(|_| atomic && !e.args.is_empty());
        if let (Some(a), Some(i)) = (&array, e.args.first()) {
            let text = tidy(&format!("{}.{}({}, ..)", quote!(#a), e.method, quote!(#i)));
            self.write(a, first_of(i), text);
        }
        syn::visit_mut::visit_expr_method_call_mut(self, e);
        if let (Some(a), Some(i)) = (&array, e.args.first_mut()) {
            self.rebase(a, i);
        }
    }

    fn visit_expr_index_mut(&mut self, e: &mut syn::ExprIndex) {
        syn::visit_mut::visit_expr_index_mut(self, e);
        if let Some(name) = self.outside(&e.expr) {
            self.rebase(&name, &mut e.index);
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let Some(mut n) = nested(m) else {
            return;
        };
        for r in &mut n.nest.ranges {
            range_exprs(r)
                .into_iter()
                .for_each(|e| self.visit_expr_mut(e));
        }
        self.visit_block_mut(&mut n.nest.body);
        m.tokens = rebuilt(&n);
    }
}

/// Whether `op` is a compound assignment (`+=`, ..).
fn compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// The tokens before and after the first top-level `;`.
pub(super) fn split_semi(
    tokens: TokenStream,
    span: Span,
) -> syn::Result<(TokenStream, syn::Macro)> {
    let list: Vec<TokenTree> = tokens.into_iter().collect();
    let Some(k) = list
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
    else {
        return Err(syn::Error::new(
            span,
            "annot!: nudist expects `nuwork!(sizes; nfor!(..))`",
        ));
    };
    let head = list[..k].iter().cloned().collect();
    let rest: TokenStream = list[k + 1..].iter().cloned().collect();
    Ok((head, syn::parse2(rest)?))
}
