//! `nuwork!(l1, .., lk; nfor!(..))`: the loop nest becomes an OpenCL kernel over an NDRange
//! of k dimensions, one per outer loop, with a native-engine twin. Loops beyond the k outermost
//! stay sequential inside the kernel.

use crate::capture::{self, Analysis, Context};
use crate::ctxt::Ctxt;
use crate::emit::cl::{ClEmitter, Env};
use crate::emit::glue::{bind_captures, capture_views, companions, fills, push_captures};
use crate::emit::native::{slot_decls, slot_ident, RustEmitter};
use crate::ir::*;
use crate::syntax::Lower;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr as SynExpr, Token};

/// A parsed `nuwork!` input: work-group sizes, then the nest.
pub struct NuworkInput {
    /// Work-group size per mapped dimension.
    pub sizes: Vec<SynExpr>,
    /// `nfor!(..)` or `annot!(..)`.
    pub nest: syn::Macro,
}

impl Parse for NuworkInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut sizes = Vec::new();
        loop {
            sizes.push(input.parse::<SynExpr>()?);
            if input.peek(Token![;]) {
                break;
            }
            input.parse::<Token![,]>().map_err(|e| {
                syn::Error::new(e.span(), "nuwork!: expected `,` between work-group sizes or `;` before the loop nest, as in `nuwork!(1, 128; nfor!(..))`")
            })?;
        }
        input.parse::<Token![;]>()?;
        let nest: syn::Macro = input.parse()?;
        Ok(NuworkInput { sizes, nest })
    }
}

/// Lowers the nest macro of a `nuwork!` or `annot!`.
pub fn lower_nest_macro(lower: &mut Lower<'_>, mac: &syn::Macro, form: &str) -> Option<Nest> {
    match mac.path.get_ident().map(|i| i.to_string()).as_deref() {
        Some("nfor") => lower.nest_tokens(mac.tokens.clone(), mac.span()),
        Some("annot") => crate::annot::lower_annot(lower, mac),
        _ => {
            lower.cx.error(
                mac.path.span(),
                format!("{form}: expected `nfor!(..)` or `annot!(..)` after the `;`"),
            );
            None
        }
    }
}

/// Everything emitted for one `nuwork!`.
struct Parts {
    mapped: Vec<Loop>,
    analysis: Analysis,
    slots: usize,
    template: String,
    native: TokenStream,
    witness: TokenStream,
    ranges: Vec<TokenStream>,
    /// The mapped ranges in the witness, so their literals get types too.
    witness_ranges: TokenStream,
}

/// Expands `nuwork!`.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: NuworkInput = syn::parse2(input)?;
    let cx = Ctxt::new();
    let parts = build(&cx, &input);
    cx.check()?;
    Ok(parts.map(|p| glue(&input, &p)).unwrap_or_default())
}

/// The kernel template `nuwork!` would embed, for inspection and snapshot tests.
pub fn template(input: TokenStream) -> syn::Result<String> {
    let input: NuworkInput = syn::parse2(input)?;
    let cx = Ctxt::new();
    let parts = build(&cx, &input);
    cx.check()?;
    Ok(parts.map(|p| p.template).unwrap_or_default())
}

fn build(cx: &Ctxt, input: &NuworkInput) -> Option<Parts> {
    let mut lower = Lower::new(cx);
    let nest = lower_nest_macro(&mut lower, &input.nest, "nuwork!")?;
    let k = input.sizes.len();
    if k > 3 || k > nest.loops.len() {
        let msg = format!("nuwork!: {k} work-group sizes for a nest of {} loops; give 1 to 3 sizes, at most one per loop", nest.loops.len());
        cx.error(input.sizes[k.min(input.sizes.len()) - 1].span(), msg);
        return None;
    }
    let (mapped, mut body) = split(nest, k);
    let bound: Vec<syn::Ident> = mapped.iter().map(|l| l.var.clone()).collect();
    check_host_ranges(cx, &mapped);
    let analysis = capture::analyze(cx, &mut body, &bound, Context::Nuwork);
    let slots = lower.slots;
    let env = Env {
        analysis: &analysis,
        capture_base: slots,
        context: Context::Nuwork,
    };
    let template = ClEmitter::new(cx, env).nuwork_kernel(&mapped, &body);
    let native = RustEmitter::new(&analysis, Context::Nuwork, false).block_inner(&body);
    let witness = RustEmitter::new(&analysis, Context::Nuwork, true).block_inner(&body);
    let ranges = mapped
        .iter()
        .map(|l| host_range(&analysis, &l.range))
        .collect();
    let witness_ranges = witness_ranges(&analysis, &mapped);
    Some(Parts {
        mapped,
        analysis,
        slots,
        template,
        native,
        witness,
        ranges,
        witness_ranges,
    })
}

/// The k outermost loops, and the body with the other loops left as a sequential nest.
fn split(nest: Nest, k: usize) -> (Vec<Loop>, Block) {
    let mut loops = nest.loops;
    let rest = loops.split_off(k);
    if rest.is_empty() {
        return (loops, nest.body);
    }
    let inner = Nest {
        loops: rest,
        body: nest.body,
        span: nest.span,
    };
    (
        loops,
        Block {
            stmts: vec![Stmt::Nest(Box::new(inner))],
            tail: None,
        },
    )
}

/// Mapped ranges are evaluated on the host before the launch: they may not use the nest's own
/// loop variables, nor work-item builtins.
fn check_host_ranges(cx: &Ctxt, mapped: &[Loop]) {
    let vars: Vec<syn::Ident> = mapped.iter().map(|l| l.var.clone()).collect();
    for l in mapped {
        let mut scratch = Analysis::default();
        for e in [&l.range.start, &l.range.end]
            .into_iter()
            .chain(l.range.step.as_ref())
        {
            capture::analyze_expr(cx, &mut e.clone(), &[], Context::Nuwork, &mut scratch);
        }
        if let Some(v) = scratch.captures.iter().find(|c| vars.contains(&c.name)) {
            cx.error(v.span, format!("nuwork!: the range of a mapped loop is computed on the host, before any iteration runs, so it cannot use the loop variable `{}`", v.name));
        }
    }
}

/// `LoopRange::new(start, end, step, inclusive)?`, evaluated on the host.
fn host_range(analysis: &Analysis, r: &Range) -> TokenStream {
    let mut em = RustEmitter::new(analysis, Context::Nucode, false);
    let (a, b) = (em.expr(&r.start), em.expr(&r.end));
    let step = r.step.as_ref().map_or_else(
        || quote!(::core::option::Option::None),
        |s| {
            let s = em.expr(s);
            quote!(::core::option::Option::Some(#s))
        },
    );
    let incl = r.inclusive;
    quote_spanned!(r.span=> ::nuda::__private::LoopRange::new(#a, #b, #step, #incl)?)
}

/// `let _ = (start, end, step);` per mapped loop, recorded for the witness.
fn witness_ranges(analysis: &Analysis, mapped: &[Loop]) -> TokenStream {
    let mut em = RustEmitter::new(analysis, Context::Nucode, true);
    let parts = mapped.iter().map(|l| {
        let r = &l.range;
        let (a, b) = (em.expr(&r.start), em.expr(&r.end));
        let s = r.step.as_ref().map(|s| em.expr(s));
        quote!(let _ = (#a, #b, #s);)
    });
    quote!(#(#parts)*)
}

fn glue(input: &NuworkInput, p: &Parts) -> TokenStream {
    let sizes = input
        .sizes
        .iter()
        .map(|s| quote_spanned!(s.span()=> ::nuda::__private::group_size(#s)?));
    let rnames: Vec<syn::Ident> = (0..p.mapped.len())
        .map(|d| format_ident!("__nuda_r{}", d))
        .collect();
    let gnames: Vec<syn::Ident> = (0..p.mapped.len())
        .map(|d| format_ident!("__nuda_g{}", d))
        .collect();
    let vars: Vec<&syn::Ident> = p.mapped.iter().map(|l| &l.var).collect();
    let witness_loops = p.mapped.iter().zip(&rnames).map(|(l, r)| {
        let (v, s) = (&l.var, slot_ident(l.slot));
        quote!(let #v = #r.first(); #s = ::core::option::Option::Some(#v);)
    });
    let ranges = &p.ranges;
    let caps = &p.analysis.captures;
    let (bind, wviews, nviews) = (
        bind_captures(caps),
        capture_views(caps, true),
        capture_views(caps, false),
    );
    let (decls, fills, pushes) = (
        slot_decls(p.slots),
        fills(p.slots, caps),
        push_captures(caps),
    );
    let calls = companions(&p.analysis.calls);
    let (native, witness, template, wranges) =
        (&p.native, &p.witness, &p.template, &p.witness_ranges);
    let k = p.mapped.len();
    quote! {
        (|| -> ::nuda::Result<()> {
            let __nuda_local = [#(#sizes),*];
            #( #[allow(unused_parens)] let #rnames = #ranges; )*
            #bind
            #decls
            {
                #[allow(unused, unreachable_code, clippy::all)]
                let __nuda_witness = || {
                    #wranges
                    #wviews
                    #(#witness_loops)*
                    #witness
                };
            }
            let __nuda_dev = ::nuda::current_device()?;
            let __nuda_trips = [#(#rnames.trips()),*];
            let __nuda_timing = if __nuda_dev.is_native() {
                #nviews
                #[allow(unused_parens)]
                let __nuda_body = |[#(#gnames),*]: [usize; #k]| {
                    #( let #vars = #rnames.at(#gnames); )*
                    #native
                };
                ::nuda::__private::native_nuwork(&__nuda_dev, __nuda_local, __nuda_trips, __nuda_body)
            } else {
                static __NUDA_KERNEL: ::nuda::__private::Template =
                    ::nuda::__private::Template::new(concat!("/* nuwork! at ", file!(), ":", line!(), " */\n", #template), "nuwork");
                let __nuda_src = ::nuda::__private::instantiate(&__NUDA_KERNEL, &#fills, #calls);
                let mut __nuda_l = ::nuda::Launch::new(__nuda_src, "nuwork").on(&__nuda_dev).global(__nuda_trips).local(__nuda_local);
                #( __nuda_l = #rnames.push(__nuda_l); )*
                #pushes
                __nuda_l.run()
            };
            __nuda_timing.map(drop)
        })()
    }
}
