//! `nuwork!(l1, .., lk; nfor!(..))`: the loop nest becomes an OpenCL kernel over an NDRange
//! of k dimensions, one per outer loop, with a native-engine twin. Loops beyond the k outermost
//! stay sequential inside the kernel.

use crate::capture::{self, Analysis, Context};
use crate::ctxt::Ctxt;
use crate::emit::cl::{ClEmitter, Env};
use crate::emit::glue::{bind_captures, capture_views, companions, fills, push_captures};
use crate::emit::native::{recorded_slots, slot_decls, slot_ident, Mode, RustEmitter};
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

/// One kernel of a `nuwork!`: the main nest or a remainder of the annotations.
struct Kernel {
    /// The mapped loops.
    mapped: Vec<Loop>,
    /// The rest of the nest, run by each work-item.
    body: Block,
}

/// Everything emitted for one `nuwork!`.
struct Parts {
    kernels: Vec<Kernel>,
    analysis: Analysis,
    slots: usize,
    template: String,
    natives: Vec<TokenStream>,
    witnesses: Vec<TokenStream>,
    ranges: Vec<Vec<TokenStream>>,
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
    let span = input.nest.span();
    let tops = crate::annot::apply(cx, &mut lower.slots, nest);
    let mut kernels: Vec<Kernel> = tops
        .into_iter()
        .filter_map(|s| kernel_of(cx, s, k, span))
        .collect();
    if kernels.is_empty() {
        return None;
    }
    let analysis = analyze(cx, &mut kernels);
    let slots = lower.slots;
    let template = templates(cx, &analysis, slots, &kernels);
    let emit = |mode| {
        kernels
            .iter()
            .map(|kern| RustEmitter::new(&analysis, Context::Nuwork, mode).block_inner(&kern.body))
            .collect()
    };
    let (natives, witnesses) = (emit(Mode::Native), emit(Mode::Witness));
    let (ranges, witness_ranges) = mapped_ranges(&analysis, &kernels);
    Some(Parts {
        kernels,
        analysis,
        slots,
        template,
        natives,
        witnesses,
        ranges,
        witness_ranges,
    })
}

/// The host ranges of each kernel's mapped loops, and the witness of all of them.
fn mapped_ranges(analysis: &Analysis, kernels: &[Kernel]) -> (Vec<Vec<TokenStream>>, TokenStream) {
    let ranges = kernels
        .iter()
        .map(|kern| {
            kern.mapped
                .iter()
                .map(|l| host_range(analysis, &l.range))
                .collect()
        })
        .collect();
    let all_mapped: Vec<Loop> = kernels
        .iter()
        .flat_map(|kern| kern.mapped.clone())
        .collect();
    (ranges, witness_ranges(analysis, &all_mapped))
}

/// A top-level statement of the annotated nest as a kernel over its `k` outer loops.
fn kernel_of(cx: &Ctxt, s: Stmt, k: usize, span: proc_macro2::Span) -> Option<Kernel> {
    let Stmt::Nest(n) = s else {
        cx.error(span, "nuwork!: the annotations leave no loop to map here (inline unrolls its loop completely); annotate an inner loop instead");
        return None;
    };
    let n = crate::annot::collapse(*n);
    if n.loops.len() < k {
        let msg = format!("nuwork!: the annotated nest has {} perfectly nested loops before its body splits, but nuwork! maps {k}; give fewer work-group sizes", n.loops.len());
        cx.error(span, msg);
        return None;
    }
    let (mapped, body) = split(n, k);
    check_host_ranges(cx, &mapped);
    Some(Kernel { mapped, body })
}

/// Capture analysis of every kernel, merged: all kernels take the same parameters.
fn analyze(cx: &Ctxt, kernels: &mut [Kernel]) -> Analysis {
    let mut merged = Analysis::default();
    for kern in kernels.iter_mut() {
        let bound: Vec<syn::Ident> = kern.mapped.iter().map(|l| l.var.clone()).collect();
        let a = capture::analyze(cx, &mut kern.body, &bound, Context::Nuwork);
        for c in a.captures {
            match merged.captures.iter_mut().find(|m| m.name == c.name) {
                Some(m) => m.written |= c.written,
                None => merged.captures.push(c),
            }
        }
        for p in a.calls {
            let text = quote!(#p).to_string();
            if !merged.calls.iter().any(|q| quote!(#q).to_string() == text) {
                merged.calls.push(p);
            }
        }
    }
    merged
}

/// The kernel name of kernel `i` of `n`.
fn kernel_name(i: usize, n: usize) -> String {
    if n == 1 {
        "nuwork".into()
    } else {
        format!("nuwork_{i}")
    }
}

fn templates(cx: &Ctxt, analysis: &Analysis, slots: usize, kernels: &[Kernel]) -> String {
    let n = kernels.len();
    let texts: Vec<String> = kernels
        .iter()
        .enumerate()
        .map(|(i, kern)| {
            let env = Env {
                analysis,
                capture_base: slots,
                context: Context::Nuwork,
            };
            ClEmitter::new(cx, env).nuwork_kernel(&kernel_name(i, n), &kern.mapped, &kern.body)
        })
        .collect();
    texts.join("\n")
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
        annots: Vec::new(),
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
    let mut em = RustEmitter::new(analysis, Context::Nucode, Mode::Native);
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
    let mut em = RustEmitter::new(analysis, Context::Nucode, Mode::Witness);
    let parts = mapped.iter().map(|l| {
        let r = &l.range;
        let (a, b) = (em.expr(&r.start), em.expr(&r.end));
        let s = r.step.as_ref().map(|s| em.expr(s));
        quote!(let _ = (#a, #b, #s);)
    });
    quote!(#(#parts)*)
}

/// Per kernel: its ranges on the host, its witness block, its native run, its launch.
struct KernelGlue {
    ranges: TokenStream,
    witness: TokenStream,
    native: TokenStream,
    launch: TokenStream,
}

fn kernel_glue(p: &Parts, i: usize) -> KernelGlue {
    let kern = &p.kernels[i];
    let k = kern.mapped.len();
    let rnames: Vec<syn::Ident> = (0..k)
        .map(|d| format_ident!("__nuda_r{}_{}", i, d))
        .collect();
    let gnames: Vec<syn::Ident> = (0..k).map(|d| format_ident!("__nuda_g{}", d)).collect();
    let vars: Vec<&syn::Ident> = kern.mapped.iter().map(|l| &l.var).collect();
    let host = &p.ranges[i];
    let ranges = quote!(#( #[allow(unused_parens)] let #rnames = #host; )*);
    let records = kern.mapped.iter().zip(&rnames).map(|(l, r)| {
        let (v, s) = (&l.var, slot_ident(l.slot));
        quote!(let #v = #r.first(); #s = ::core::option::Option::Some(#v);)
    });
    let body = &p.witnesses[i];
    let witness = quote!({ #(#records)* #body });
    let native_body = &p.natives[i];
    // Generated code, with the user's spans: annotations leave expressions such as `0 * 3`
    // that rustc and clippy would otherwise flag in the user's crate.
    let native = quote! {
        #[allow(unused_parens, clippy::all)]
        let __nuda_body = |[#(#gnames),*]: [usize; #k]| {
            #( let #vars = #rnames.at(#gnames); )*
            #native_body
        };
        ::nuda::__private::native_nuwork(&__nuda_dev, __nuda_local, [#(#rnames.trips()),*], __nuda_body)?;
    };
    let name = kernel_name(i, p.kernels.len());
    let pushes = push_captures(&p.analysis.captures);
    let launch = quote! {
        let mut __nuda_l = ::nuda::Launch::new(__nuda_src, #name).on(&__nuda_dev).global([#(#rnames.trips()),*]).local(__nuda_local);
        #( __nuda_l = #rnames.push(__nuda_l); )*
        #pushes
        __nuda_l.run()?;
    };
    KernelGlue {
        ranges,
        witness,
        native,
        launch,
    }
}

/// The type slots the witnesses record, over every kernel and the range witnesses.
fn recorded(parts: &[KernelGlue], p: &Parts) -> std::collections::BTreeSet<usize> {
    let mut recorded = std::collections::BTreeSet::new();
    for w in parts.iter().map(|g| &g.witness).chain([&p.witness_ranges]) {
        recorded_slots(w, &mut recorded);
    }
    recorded
}

fn glue(input: &NuworkInput, p: &Parts) -> TokenStream {
    let sizes = input
        .sizes
        .iter()
        .map(|s| quote_spanned!(s.span()=> ::nuda::__private::group_size(#s)?));
    let parts: Vec<KernelGlue> = (0..p.kernels.len()).map(|i| kernel_glue(p, i)).collect();
    let (ranges, witnesses) = (
        parts.iter().map(|g| &g.ranges),
        parts.iter().map(|g| &g.witness),
    );
    let (natives, launches) = (
        parts.iter().map(|g| &g.native),
        parts.iter().map(|g| &g.launch),
    );
    let caps = &p.analysis.captures;
    let (bind, wviews, nviews) = (
        bind_captures(caps),
        capture_views(caps, true),
        capture_views(caps, false),
    );
    let recorded = recorded(&parts, p);
    let (decls, fills) = (slot_decls(&recorded), fills(p.slots, &recorded, caps));
    let calls = companions(&p.analysis.calls);
    let (template, wranges) = (&p.template, &p.witness_ranges);
    quote! {
        (|| -> ::nuda::Result<()> {
            let __nuda_local = [#(#sizes),*];
            #(#ranges)*
            #bind
            #decls
            {
                #[allow(unused, unreachable_code, clippy::all)]
                let __nuda_witness = || {
                    #wranges
                    #wviews
                    #(#witnesses)*
                };
            }
            let __nuda_dev = ::nuda::current_device()?;
            if __nuda_dev.is_native() {
                #nviews
                #(#natives)*
            } else {
                static __NUDA_KERNEL: ::nuda::__private::Template =
                    ::nuda::__private::Template::new(concat!("/* nuwork! at ", file!(), ":", line!(), " */\n", #template), "nuwork");
                let __nuda_src = ::nuda::__private::instantiate(&__NUDA_KERNEL, &#fills, #calls);
                #(#launches)*
            }
            ::core::result::Result::Ok(())
        })()
    }
}
