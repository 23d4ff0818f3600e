//! `tune(a, b, ..)` in a `nuwork!`: a parameter of its annotation chain, or a work-group size,
//! with candidate values. The macro expands the `nuwork!` once per combination, each the
//! ordinary expansion, and the runtime's `TuneSite` picks which one runs (see
//! `nuda_runtime::tune`). The expansion also saves, restores and compares the arrays the
//! kernel writes, which tuning runs need so that in-place kernels see the same inputs.
//!
//! ```text
//! nuwork!(16, 16; annot!(dmine(tune(4, 8), 1), vector(tune(4, 16)); nfor!(..)))
//!   → candidates `16, 16; dmine(4, 1), vector(4)`, `16, 16; dmine(4, 1), vector(16)`,
//!     `16, 16; dmine(8, 1), vector(4)`, `16, 16; dmine(8, 1), vector(16)`
//! ```

use super::NuworkInput;
use crate::base::paths::{KERNEL, NUDA, PRIVATE};
use crate::syntax::annot::{AnnotInput, AnnotSyntax};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Expr;

/// Candidates one `nuwork!` may expand to: beyond this, compile time grows too long.
const MAX_CANDIDATES: usize = 32;

/// Where a tuned parameter sits: a work-group size, or an annotation's argument.
#[derive(Clone, Copy)]
enum Spot {
    Size(usize),
    Arg(usize, usize),
}

/// A `nuwork!` input with its tuned parameters, if it has any.
pub(super) struct Tuned {
    input: NuworkInput,
    annot: Option<AnnotInput>,
    spots: Vec<(Spot, Vec<Expr>, Span)>,
}

/// The candidates of `tune(a, b, ..)`, if `e` is one, or of `name: tune(a, b, ..)` (kept as
/// the tuple `(name, tune(..))`, see `syntax::annot`), each then `(name, a)`.
fn choices(e: &Expr) -> Option<Vec<Expr>> {
    if let Some((name, value)) = named(e) {
        let c = choices(value)?;
        return Some(
            c.into_iter()
                .map(|v| syn::parse_quote!((#name, #v)))
                .collect(),
        );
    }
    let Expr::Call(c) = e else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    p.path
        .is_ident("tune")
        .then(|| c.args.iter().cloned().collect())
}

/// `name: value`, which the annotation syntax keeps as the tuple `(name, value)`.
fn named(e: &Expr) -> Option<(&Expr, &Expr)> {
    match e {
        Expr::Tuple(t) if t.elems.len() == 2 => Some((&t.elems[0], &t.elems[1])),
        _ => None,
    }
}

impl Tuned {
    /// The tuned parameters of `input`; `None` if it has none.
    pub fn of(input: &NuworkInput) -> syn::Result<Option<Tuned>> {
        let mut spots = Vec::new();
        for (k, s) in input.sizes.iter().enumerate() {
            if let Some(c) = choices(s) {
                spots.push((Spot::Size(k), c, s.span()));
            }
        }
        let annot = match input.nest.path.is_ident("annot") {
            true => Some(syn::parse2::<AnnotInput>(input.nest.tokens.clone())?),
            false => None,
        };
        for (a, syn) in annot.iter().flat_map(|a| a.chain.iter().enumerate()) {
            for (k, e) in syn.args.iter().flatten().enumerate() {
                if let Some(c) = choices(e) {
                    spots.push((Spot::Arg(a, k), c, e.span()));
                }
            }
        }
        if spots.is_empty() {
            return Ok(None);
        }
        let t = Tuned {
            input: input.clone(),
            annot,
            spots,
        };
        t.check()?;
        Ok(Some(t))
    }

    fn check(&self) -> syn::Result<()> {
        if let Some((_, c, span)) = self.spots.iter().find(|s| s.1.is_empty()) {
            let _ = c;
            return Err(syn::Error::new(
                *span,
                "nuwork!: tune(..) needs at least one candidate, as in `tune(4, 8)`",
            ));
        }
        let n = self.count();
        if n > MAX_CANDIDATES {
            let msg = format!("nuwork!: these tune(..) parameters make {n} candidates, more than {MAX_CANDIDATES}; give fewer values");
            return Err(syn::Error::new(self.spots[0].2, msg));
        }
        Ok(())
    }

    /// The number of candidates: every combination of the tuned parameters' values.
    fn count(&self) -> usize {
        self.spots.iter().map(|s| s.1.len()).product()
    }

    /// Candidate `k`: the input with each tuned parameter replaced by its value, and its text.
    pub fn candidate(&self, k: usize) -> syn::Result<(NuworkInput, String)> {
        let mut pick = Vec::new();
        let mut rest = k;
        for (_, c, _) in self.spots.iter().rev() {
            pick.push(c[rest % c.len()].clone());
            rest /= c.len();
        }
        pick.reverse();
        let value = |spot: &dyn Fn(Spot) -> bool| {
            self.spots
                .iter()
                .zip(&pick)
                .find(|((s, ..), _)| spot(*s))
                .map(|(_, v)| v.clone())
        };
        let sizes: Vec<Expr> = (self.input.sizes.iter().enumerate())
            .map(|(i, s)| {
                value(&|p| matches!(p, Spot::Size(j) if j == i)).unwrap_or_else(|| s.clone())
            })
            .collect();
        let mut label = text_list(&sizes);
        let mut nest = self.input.nest.clone();
        if let Some(a) = &self.annot {
            let chain: Vec<TokenStream> = (a.chain.iter().enumerate())
                .map(|(ai, syn)| {
                    annotation(syn, &|k| {
                        value(&|p| matches!(p, Spot::Arg(x, y) if x == ai && y == k))
                    })
                })
                .collect();
            label += &format!("; {}", chain_text(&chain));
            let inner = &a.nest;
            nest.tokens = quote!(#(#chain),*; #inner);
        }
        let input = NuworkInput {
            unchecked: self.input.unchecked,
            independent: self.input.independent,
            sizes,
            nest,
        };
        Ok((input, label))
    }

    /// Every candidate's input and text, in order.
    pub fn all(&self) -> syn::Result<Vec<(NuworkInput, String)>> {
        (0..self.count()).map(|k| self.candidate(k)).collect()
    }
}

/// An annotation with its tuned arguments replaced.
fn annotation(a: &AnnotSyntax, value: &dyn Fn(usize) -> Option<Expr>) -> TokenStream {
    let name = &a.name;
    match &a.args {
        None => quote!(#name),
        Some(args) => {
            let args: Vec<TokenStream> = (args.iter().enumerate())
                .map(|(k, e)| {
                    let e = value(k).unwrap_or_else(|| e.clone());
                    match named(&e) {
                        Some((n, v)) => quote!(#n: #v),
                        None => quote!(#e),
                    }
                })
                .collect();
            quote!(#name(#(#args),*))
        }
    }
}

fn text_list(exprs: &[Expr]) -> String {
    exprs
        .iter()
        .map(|e| tidy(&quote!(#e).to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn chain_text(chain: &[TokenStream]) -> String {
    chain
        .iter()
        .map(|t| tidy(&t.to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Token text as people write it: `dmine (4 , 1)` becomes `dmine(4, 1)`.
fn tidy(s: &str) -> String {
    s.replace(" (", "(")
        .replace(" ,", ",")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(" : ", ": ")
}

/// The tuned expansion: a `TuneSite` choosing among `expansions`, with the steps that save,
/// restore and compare the `written` arrays.
pub(super) fn glue(
    labels: &[String],
    expansions: &[TokenStream],
    written: &[syn::Ident],
) -> TokenStream {
    let last = expansions.len() - 1;
    let arms = expansions.iter().enumerate().map(|(k, e)| match k == last {
        // The last arm takes every index, so the match needs no arm that cannot run.
        true => quote!(#PRIVATE::TuneStep::Run(_) => #e,),
        false => quote!(#PRIVATE::TuneStep::Run(#k) => #e,),
    });
    let ks: Vec<usize> = (0..written.len()).collect();
    let names: Vec<String> = written.iter().map(ToString::to_string).collect();
    let ids: Vec<syn::Ident> = (0..written.len())
        .map(|k| quote::format_ident!("__nuda_w{}", k))
        .collect();
    // Method syntax borrows an owned array and reborrows a `&mut` one alike (see `ByMut`).
    let kernel = KERNEL;
    let bind = quote! {#(
        let #ids = {
            #[allow(unused_imports)]
            use #kernel::ByMut as _;
            #written.__nuda_by_mut()
        };
    )*};
    let dims = ids.iter().map(|id| quote!(#PRIVATE::Tunable::dims(&*#id)));
    let step = |body: TokenStream| quote!({ #bind #body ::core::result::Result::Ok(()) });
    let save = step(quote!(#( __nuda_saved.save(#ks, &*#ids)?; )*));
    let restore = step(quote!(#( __nuda_saved.restore(#ks, #ids)?; )*));
    let keep = step(quote!(#( __nuda_saved.keep(#ks, &*#ids)?; )*));
    let check = step(quote!(#( __nuda_saved.check(#ks, #names, &*#ids)?; )*));
    let span = Span::call_site();
    quote_spanned! {span=> {
        static __NUDA_TUNE: #PRIVATE::TuneSite = #PRIVATE::TuneSite::new(
            ::core::concat!(::core::file!(), ":", ::core::line!(), ":", ::core::column!()),
            &[#(#labels),*],
        );
        let mut __nuda_saved = #PRIVATE::Saved::default();
        // The written arrays' dims key the stored winner: each problem size tunes its own.
        let __nuda_dims: ::std::vec::Vec<::std::vec::Vec<usize>> = {
            #bind
            ::std::vec![#(#dims),*]
        };
        __NUDA_TUNE.run(&__nuda_dims, &mut |__nuda_step: #PRIVATE::TuneStep| -> #NUDA::Result<()> {
            match __nuda_step {
                #(#arms)*
                #PRIVATE::TuneStep::Save => #save,
                #PRIVATE::TuneStep::Restore => #restore,
                #PRIVATE::TuneStep::Keep => #keep,
                #PRIVATE::TuneStep::Check => #check,
            }
        })
    }}
}
