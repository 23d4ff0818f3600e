//! `nuwork!(l1, .., lk; nfor!(..))`: the loop nest becomes an OpenCL kernel over an NDRange
//! of k dimensions, one per outer loop, with a native-engine twin. Loops beyond the k outermost
//! stay sequential inside the kernel.
//!
//! `mod.rs` parses and builds (lowering, annotations, capture analysis, the OpenCL C template
//! and the Rust forms); `glue.rs` writes the code that evaluates the ranges on the host,
//! proves checks away, and launches.
//!
//! Stage 7 of the pipeline in `lib.rs` (entry points).

mod glue;
mod reduce;
mod scan;
mod tune;

pub(crate) use glue::unchecked_contract;

use crate::base::ctxt::Ctxt;
use crate::base::ir::*;
use crate::base::paths::NUDA;
use crate::checks::capture::{self, Analysis, Context};
use crate::emit::cl::{ClEmitter, Env, Shared};
use crate::emit::native::{Mode, RustEmitter};
use crate::proof::Proof;
use crate::syntax::annot::lower_nest_macro;
use crate::syntax::Lower;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr as SynExpr, Token};

/// A parsed `nuwork!` input: `#[unchecked]`, `#[independent]`, work-group sizes, then the
/// nest.
#[derive(Clone)]
pub struct NuworkInput {
    /// `#[unchecked]`: bounds checks off, which needs an `unsafe` block around the call.
    pub unchecked: Option<Span>,
    /// `#[independent]`: the user's word that no iteration reads an element another writes,
    /// where the dependence test (`crate::checks::depend`) cannot prove it.
    pub independent: bool,
    /// Work-group size per mapped dimension.
    pub sizes: Vec<SynExpr>,
    /// `nfor!(..)` or `annot!(..)`.
    pub nest: syn::Macro,
}

/// `#[unchecked]` before the sizes of `nuwork!` or `nucall!`: its span, if present.
pub fn parse_unchecked(input: ParseStream, form: &str) -> syn::Result<Option<Span>> {
    let attrs = parse_attrs(input, form, &["unchecked"])?;
    Ok(attrs.iter().find(|a| a.0 == "unchecked").map(|a| a.1))
}

/// The attributes before the sizes, each of `allowed`: their names and spans.
fn parse_attrs(
    input: ParseStream,
    form: &str,
    allowed: &[&str],
) -> syn::Result<Vec<(String, Span)>> {
    if !input.peek(Token![#]) {
        return Ok(Vec::new());
    }
    let attrs = syn::Attribute::parse_outer(input)?;
    let mut out = Vec::new();
    for a in &attrs {
        let name = a
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if !allowed.contains(&name.as_str()) || !matches!(a.meta, syn::Meta::Path(_)) {
            let msg = match allowed {
                [_] => format!("{form}: the only attribute here is `#[unchecked]`, which turns bounds checks off inside an `unsafe` block"),
                _ => format!("{form}: the attributes here are `#[unchecked]`, which turns bounds checks off inside an `unsafe` block, and `#[independent]`, which says no iteration reads an element another writes"),
            };
            return Err(syn::Error::new(a.span(), msg));
        }
        out.push((name, a.path().span()));
    }
    Ok(out)
}

impl Parse for NuworkInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = parse_attrs(input, "nuwork!", &["unchecked", "independent"])?;
        let unchecked = attrs.iter().find(|a| a.0 == "unchecked").map(|a| a.1);
        let independent = attrs.iter().any(|a| a.0 == "independent");
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
        if input.peek(Token![for]) {
            let span = input.parse::<Token![for]>()?.span;
            return Err(syn::Error::new(span, "nuwork!: a `for` loop here would run on the host; write the mapped loops with nfor!, as in `nuwork!(64; nfor!(i in 0..n { .. }))`"));
        }
        let nest: syn::Macro = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "nuwork!: expected `nfor!(..)` or `annot!(..)` after the `;`",
            )
        })?;
        Ok(NuworkInput {
            unchecked,
            independent,
            sizes,
            nest,
        })
    }
}

/// One kernel of a `nuwork!`: the main nest or a remainder of the annotations.
struct Kernel {
    /// The mapped loops.
    mapped: Vec<Loop>,
    /// The rest of the nest, run by each work-item.
    body: Block,
    /// With scan variables: the body's slice that computes only their contributions.
    slice: Option<Block>,
    /// A staged nest's tile sizes: the mapped loops count work-groups of this size.
    group: Option<Vec<usize>>,
}

/// Everything emitted for one `nuwork!`.
struct Parts {
    kernels: Vec<Kernel>,
    analysis: Analysis,
    slots: usize,
    template: String,
    shared: Shared,
    natives: Vec<TokenStream>,
    /// Per kernel, the native form of its scan slice (empty without scans).
    native_slices: Vec<TokenStream>,
    witnesses: Vec<TokenStream>,
    /// The launch-time proof program (`static __NUDA_PROOF: ..`).
    proof: TokenStream,
    /// The arrays the native engine may store to with plain stores (`disjoint`).
    plain: Vec<String>,
    /// The `NuVec`s the body pushes to, with their counters.
    pushes: Vec<crate::checks::reduce::push::Push>,
    /// Variables set by the flag idiom (`crate::checks::reduce::flag`).
    flags: Vec<crate::checks::reduce::flag::Flag>,
    /// Pairs of arrays that would race as one array (`crate::checks::depend::alias_pairs`): the
    /// launch checks that they are not.
    aliases: Vec<(String, String)>,
    /// The scan variables whose slots the dependence test took as each iteration's own:
    /// the witness checks they are wide enough not to wrap.
    slot_counters: Vec<String>,
    /// Inside `annot!(nudist; ..)`: reductions, scans and flags combine over the ranks of
    /// the launch `__nudist` (`entry/annot/nudist.rs`).
    dist: bool,
}

/// Expands `nuwork!`.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: NuworkInput = syn::parse2(input)?;
    if let Some(t) = tune::Tuned::of(&input)? {
        return expand_tuned(&t);
    }
    Ok(expand_one(&input)?.0)
}

/// What `annot!(nudist; ..)` needs of its `nuwork!` to split the rows into phases
/// (`dist/phase.rs` in the runtime): whether the result depends on the rows' order through
/// a scan or a push, and each reduction variable with its operator, whose type decides at
/// run time whether it regroups exactly.
#[derive(Default)]
pub struct DistTraits {
    /// A scan or a push: the rows must run in one launch, in order.
    pub ordered: bool,
    /// The reduction variables (not the flag idiom's), with their operators' tokens.
    pub reductions: Vec<(syn::Ident, TokenStream)>,
}

/// Expands the `nuwork!` of `annot!(nudist; ..)`: the same launch, whose reductions, scans
/// and flags combine over the ranks, and which ends in the ranks' collective check.
pub fn expand_dist(input: TokenStream) -> syn::Result<(TokenStream, DistTraits)> {
    let input: NuworkInput = syn::parse2(input)?;
    if tune::Tuned::of(&input)?.is_some() {
        let msg = "annot!: nudist with tune(..) is not supported yet: each rank would choose its own variant; tune the nuwork! on one rank first and write the chosen chain";
        return Err(syn::Error::new(input.nest.span(), msg));
    }
    let cx = Ctxt::new();
    let parts = build(&cx, &input, true);
    cx.check()?;
    let Some(p) = parts else {
        let ok = quote!(::core::result::Result::<(), #NUDA::Error>::Ok(()));
        return Ok((ok, DistTraits::default()));
    };
    let reds = &p.analysis.reductions;
    // The flag idiom's variables live inside the expansion, and are flags: exact.
    let flag = |r: &&crate::checks::reduce::Reduction| p.flags.iter().any(|f| f.flag == r.name);
    let ordered = !p.pushes.is_empty() || reds.iter().any(|r| r.scan.is_some());
    // An ordered launch runs whole whatever its reductions (push counters among them).
    let reductions = (reds.iter().filter(|r| !ordered && !flag(r)))
        .map(|r| (r.name.clone(), crate::checks::reduce::red_op_tokens(r.op)))
        .collect();
    let traits = DistTraits {
        ordered,
        reductions,
    };
    Ok((glue::glue(&input, &p), traits))
}

/// One expansion, and the arrays it writes (for tuning); an error if it has reduction
/// variables or pushes and `tuned`.
fn expand_one(input: &NuworkInput) -> syn::Result<(TokenStream, Vec<syn::Ident>, bool)> {
    let cx = Ctxt::new();
    let parts = build(&cx, input, false);
    cx.check()?;
    let Some(p) = parts else {
        return Ok((TokenStream::new(), Vec::new(), false));
    };
    let written = p.analysis.captures.iter().filter(|c| c.written);
    let written = written.map(|c| c.name.clone()).collect();
    let reduces = !p.analysis.reductions.is_empty() || !p.pushes.is_empty();
    Ok((glue::glue(input, &p), written, reduces))
}

/// The start of the error a staged chain gives when the work-group sizes are not its tiles'.
const GROUP_MISMATCH: &str = "nuwork!: stage makes each tile one work-group, so the work-group sizes must be the tilem sizes (over the dmine factors and the vector width after stage)";

/// Every candidate of a tuned `nuwork!`, and the `TuneSite` choosing among them. A staged
/// chain's candidates whose tiles do not make the work-group sizes are left out (tuning
/// `tilem`, `dmine` and `vector` of a staged chain together keeps the combinations that fit);
/// if none is left, the first one's error stands.
fn expand_tuned(t: &tune::Tuned) -> syn::Result<TokenStream> {
    let (mut labels, mut expansions, mut written) = (Vec::new(), Vec::new(), Vec::new());
    let mut misfit = None;
    for (input, label) in t.all()? {
        let (e, w, reduces) = match expand_one(&input) {
            Err(e) if e.to_string().starts_with(GROUP_MISMATCH) => {
                misfit.get_or_insert(e);
                continue;
            }
            r => r?,
        };
        if reduces {
            let msg = "nuwork!: tune(..) on a nuwork! with reduction variables or pushes is not supported yet: tuning reruns the kernel, which would combine them again; tune a kernel that only writes arrays";
            return Err(syn::Error::new(input.nest.span(), msg));
        }
        labels.push(label);
        expansions.push(e);
        written = w;
    }
    match misfit {
        Some(e) if expansions.is_empty() => Err(e),
        _ => Ok(tune::glue(&labels, &expansions, &written)),
    }
}

/// The kernel template `nuwork!` would embed, for inspection and snapshot tests.
pub fn template(input: TokenStream) -> syn::Result<String> {
    let input: NuworkInput = syn::parse2(input)?;
    let cx = Ctxt::new();
    let parts = build(&cx, &input, false);
    cx.check()?;
    Ok(parts.map(|p| p.template).unwrap_or_default())
}

/// The nest's parts; `dist` inside `annot!(nudist; ..)`.
fn build(cx: &Ctxt, input: &NuworkInput, dist: bool) -> Option<Parts> {
    let mut lower = Lower::new(cx);
    let mut nest = lower_nest_macro(&mut lower, &input.nest, "nuwork!")?;
    let pushes = crate::checks::reduce::push::rewrite(cx, &mut nest.body, &mut lower.slots);
    let loop_vars: Vec<syn::Ident> = nest.loops.iter().map(|l| l.var.clone()).collect();
    let flags = crate::checks::reduce::flag::rewrite(&mut nest.body, &loop_vars);
    let k = input.sizes.len();
    if k > 3 || k > nest.loops.len() {
        let msg = format!("nuwork!: {k} work-group sizes for a nest of {} loops; give 1 to 3 sizes, at most one per loop", nest.loops.len());
        cx.error(input.sizes[k.min(input.sizes.len()) - 1].span(), msg);
        return None;
    }
    let span = input.nest.span();
    // After an error in the body, its stand-ins (`false` for an unsupported index) would
    // only add confusing errors.
    let (mut aliases, mut slot_counters) = (Vec::new(), Vec::new());
    if !input.independent && !cx.has_errors() {
        slot_counters = crate::checks::depend::check(cx, &nest, k);
        aliases = crate::checks::depend::alias_pairs(&nest, k);
    }
    // Decided on the nest as written: annotations only redistribute its iterations.
    let plain = crate::checks::disjoint::plain_store_arrays(&nest);
    let annotated = !nest.annots.is_empty();
    let tops = crate::annot::apply(cx, &mut lower.slots, nest, false);
    let mut kernels: Vec<Kernel> = tops
        .into_iter()
        .filter_map(|s| kernel_of(cx, s, k, span))
        .collect();
    if kernels.is_empty() {
        return None;
    }
    check_groups(cx, input, &kernels)?;
    let mut analysis = analyze(cx, &mut kernels);
    if kernels.iter().any(|k| k.group.is_some()) && !analysis.reductions.is_empty() {
        cx.error(span, "nuwork!: stage(..) with reduction variables is not supported yet; reduce into an array, one element per work-item");
        return None;
    }
    if !slice_scans(cx, &analysis, &mut kernels, annotated) {
        return None;
    }
    analysis.privatised = privatised(&analysis, &kernels, dist);
    let form = crate::checks::reduce::ScanForm::of(dist, &pushes);
    let threads = literal_threads(input);
    let mut parts = assemble(
        cx,
        (kernels, form, threads),
        analysis,
        lower.slots,
        plain,
        pushes,
    );
    parts.dist = dist;
    parts.flags = flags;
    parts.aliases = aliases;
    parts.slot_counters = slot_counters;
    Some(parts)
}

/// The emitted forms of the analysed kernels: OpenCL C, native and witness Rust, the proof.
fn assemble(
    cx: &Ctxt,
    (kernels, form, threads): (Vec<Kernel>, crate::checks::reduce::ScanForm, Option<usize>),
    analysis: Analysis,
    slots: usize,
    plain: Vec<String>,
    pushes: Vec<crate::checks::reduce::push::Push>,
) -> Parts {
    let shared = Shared::new();
    let template = templates(cx, &analysis, slots, (&kernels, form, threads), &shared);
    let emit = |mode, block: &dyn Fn(&Kernel) -> Option<&Block>| {
        kernels
            .iter()
            .map(|kern| match block(kern) {
                Some(b) => RustEmitter::new(&analysis, Context::Nuwork, mode)
                    .with_sites(&shared.sites, quote!(__NUDA_SITES))
                    .body(b),
                None => TokenStream::new(),
            })
            .collect()
    };
    let natives = emit(Mode::Native, &|k| Some(&k.body));
    let witnesses = emit(Mode::Witness, &|k| Some(&k.body));
    let native_slices = emit(Mode::Native, &|k| k.slice.as_ref());
    let mut proof = Proof::new(&analysis, &shared.sites, Context::Nuwork);
    for (i, kern) in kernels.iter().enumerate() {
        proof.nuwork_kernel(i, &kern.mapped, &kern.body);
    }
    let proof = proof.tokens();
    Parts {
        kernels,
        analysis,
        slots,
        template,
        shared,
        natives,
        native_slices,
        witnesses,
        proof,
        plain,
        pushes,
        flags: Vec::new(),
        aliases: Vec::new(),
        slot_counters: Vec::new(),
        dist: false,
    }
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
    let staged = crate::emit::cl::staged_body(&body);
    // The work-items of a group: the tile, over the dmine factors after stage.
    let group = staged.map(|n| {
        let dims = crate::base::ir::staging::group_dims(n);
        dims.iter().map(|d| d.1).collect()
    });
    Some(Kernel {
        mapped,
        body,
        slice: None,
        group,
    })
}

/// A staged kernel's work-groups are its tiles: `nuwork!` maps one loop per tile dimension,
/// with the tile size as the work-group size.
fn check_groups(cx: &Ctxt, input: &NuworkInput, kernels: &[Kernel]) -> Option<()> {
    for kern in kernels {
        let Some(tiles) = &kern.group else { continue };
        let sizes: Vec<Option<usize>> = input.sizes.iter().map(literal_size).collect();
        let wanted: Vec<Option<usize>> = tiles.iter().map(|&t| Some(t)).collect();
        if sizes != wanted {
            let list: Vec<String> = tiles.iter().map(usize::to_string).collect();
            let msg = format!("{GROUP_MISMATCH}, `{}`", list.join(", "));
            cx.error(input.sizes[0].span(), msg);
            return None;
        }
    }
    Some(())
}

/// The work-items of each launch's group, where every size is an integer literal and the
/// group fits any CUDA or HIP device (1,024): every launch of a `nuwork!` passes its sizes as
/// written (a scan's launches their product), so its kernels may declare that bound
/// (`NU_BOUNDS`), and a device compiler (HIP's) budgets registers for it, not for 1,024.
fn literal_threads(input: &NuworkInput) -> Option<usize> {
    let sizes: Option<Vec<usize>> = input.sizes.iter().map(literal_size).collect();
    let t = sizes?.iter().try_fold(1usize, |t, &s| t.checked_mul(s))?;
    (1..=1024).contains(&t).then_some(t)
}

/// A work-group size written as an integer literal.
fn literal_size(e: &SynExpr) -> Option<usize> {
    match e {
        SynExpr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
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
        for r in a.reductions {
            if let Err(msg) =
                crate::checks::reduce::record(&mut merged.reductions, &r.name, r.op, r.span)
            {
                cx.error(r.span, msg);
            }
            let m = merged.reductions.iter_mut().find(|m| m.name == r.name);
            if let (Some(m), Some(read)) = (m, r.scan) {
                m.scan.get_or_insert(read);
            }
        }
        for name in a.atomic {
            if !merged.atomic.contains(&name) {
                merged.atomic.push(name);
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

/// With scan variables: the one kernel's slice, or `false` after an error. Scans run the
/// iterations in the order of the loops as written, which annotations on the nest change.
fn slice_scans(cx: &Ctxt, analysis: &Analysis, kernels: &mut [Kernel], annotated: bool) -> bool {
    let scans: Vec<&crate::checks::reduce::Reduction> = analysis
        .reductions
        .iter()
        .filter(|r| r.scan.is_some())
        .collect();
    let Some(first) = scans.first() else {
        return true;
    };
    if annotated || kernels.len() != 1 {
        let msg = format!("nuwork!: `{}` is read in the body, which makes it a scan variable, and a scan follows the loops' order; annotations on the mapped nest reorder its iterations, so annotate inner loops only, or split the scan into a nuwork! of its own", first.name);
        cx.error(first.scan.unwrap_or(first.span), msg);
        return false;
    }
    let kern = &mut kernels[0];
    kern.slice = crate::checks::reduce::slice(cx, &kern.body, &scans, &analysis.reductions);
    kern.slice.is_some()
}

/// The arrays whose atomics the kernels gather per work-group (`crate::checks::privatise`): in the
/// grid-stride form of reductions, which scans, staged tiles and `nudist` launches (whose
/// glue passes no copies) do not take.
fn privatised(
    a: &Analysis,
    kernels: &[Kernel],
    dist: bool,
) -> Vec<crate::checks::privatise::Privatised> {
    let scans = a.reductions.iter().any(|r| r.scan.is_some());
    if dist || scans || kernels.iter().any(|k| k.group.is_some()) {
        return Vec::new();
    }
    let bodies: Vec<&Block> = kernels.iter().map(|k| &k.body).collect();
    crate::checks::privatise::arrays(&a.atomic, &bodies)
}

/// The kernel name of kernel `i` of `n`.
fn kernel_name(i: usize, n: usize) -> String {
    if n == 1 {
        "nuwork".into()
    } else {
        format!("nuwork_{i}")
    }
}

/// The program: the access helpers every kernel shares, then the kernels.
fn templates(
    cx: &Ctxt,
    analysis: &Analysis,
    slots: usize,
    (kernels, form, threads): (&[Kernel], crate::checks::reduce::ScanForm, Option<usize>),
    shared: &Shared,
) -> String {
    let n = kernels.len();
    let texts: Vec<String> = kernels
        .iter()
        .enumerate()
        .map(|(i, kern)| {
            let env = Env {
                analysis,
                capture_base: slots,
                context: Context::Nuwork,
                shared,
                threads,
            };
            let slice = kern.slice.as_ref().map(|s| (s, form));
            ClEmitter::new(cx, env).nuwork_kernel(
                &kernel_name(i, n),
                &kern.mapped,
                &kern.body,
                slice,
            )
        })
        .collect();
    shared.helpers_text() + &texts.join("\n")
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
        lanes: None,
        stage: None,
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
