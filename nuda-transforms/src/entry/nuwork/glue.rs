//! The code `nuwork!` expands to: the mapped ranges evaluated on the host, the captures bound,
//! the type witness, the check sites, and then either the native engine's run or the OpenCL
//! launch of each kernel (the main nest, then the annotations' remainders).

use super::{kernel_name, NuworkInput, Parts};
use crate::base::ir::*;
use crate::base::paths::{KERNEL, NUDA, PRIVATE};
use crate::checks::capture::Context;
use crate::checks::sites::{SiteKind, Sites};
use crate::emit::glue::{
    bind_captures, capture_views, companions, fills, hoist_views, hygiene_guards, proof_inputs,
    push_captures,
};
use crate::emit::native::{recorded_slots, slot_decls, slot_ident, Mode, RustEmitter};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// `LoopRange::new(start, end, step, inclusive, rev, site)?`, evaluated on the host; a
/// stepped range names its site in `ranges` (a zero step is an error before the launch).
fn host_range(p: &Parts, r: &Range, ranges: &Sites) -> TokenStream {
    let mut em = RustEmitter::new(&p.analysis, Context::Nucode, Mode::Range)
        .with_sites(ranges, quote!(__NUDA_RANGES));
    let (a, b) = (em.expr(&r.start), em.expr(&r.end));
    let step = r.step.as_ref().map_or_else(
        || quote!(::core::option::Option::None::<i32>),
        |s| {
            let s = em.expr(s);
            quote!(::core::option::Option::Some(#s))
        },
    );
    let k = ranges.intern(SiteKind::Step, "", 0, r.span);
    let (incl, rev) = (r.inclusive, r.rev);
    quote_spanned!(r.span=> #PRIVATE::LoopRange::new(#a, #b, #step, #incl, #rev, &__NUDA_RANGES[#k])?)
}

/// `let _ = (start, end, step);` per mapped loop, recorded for the witness.
fn witness_ranges(p: &Parts) -> TokenStream {
    let mut em = RustEmitter::new(&p.analysis, Context::Nucode, Mode::Witness);
    let parts = p.kernels.iter().flat_map(|k| &k.mapped).map(|l| {
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

fn kernel_glue(p: &Parts, i: usize, range_sites: &Sites) -> KernelGlue {
    let kern = &p.kernels[i];
    let k = kern.mapped.len();
    let rnames: Vec<syn::Ident> = (0..k)
        .map(|d| format_ident!("__nuda_r{}_{}", i, d))
        .collect();
    let vars: Vec<&syn::Ident> = kern.mapped.iter().map(|l| &l.var).collect();
    let host: Vec<TokenStream> = kern
        .mapped
        .iter()
        .map(|l| host_range(p, &l.range, range_sites))
        .collect();
    let ranges = quote!(#( #[allow(unused_parens)] let #rnames = #host; )*);
    let records = kern.mapped.iter().zip(&rnames).map(|(l, r)| {
        let (v, s) = (&l.var, slot_ident(l.slot));
        quote!(let #v = #r.first(); #s = #KERNEL::TypeSlot::of(&#v);)
    });
    let body = &p.witnesses[i];
    let witness = quote!({ #(#records)* #body });
    let native = native_glue(p, i, &rnames, &vars);
    let launch = launch_glue(p, i, &rnames);
    KernelGlue {
        ranges,
        witness,
        native,
        launch,
    }
}

/// The OpenCL launch (or launches) of kernel `i`, whose ranges are `rnames`.
fn launch_glue(p: &Parts, i: usize, rnames: &[syn::Ident]) -> TokenStream {
    let name = kernel_name(i, p.kernels.len());
    let pushes = push_captures(&p.analysis.captures);
    let trips = cl_global(p, i, rnames);
    let start = |kernel: &str, global: TokenStream, local: TokenStream| {
        quote! {
            let mut __nuda_l = #NUDA::Launch::new(__nuda_src, #kernel).on(&__nuda_dev)
                .global(#global).local(#local).index_type(__nuda_variant.index_type());
            #( __nuda_l = #rnames.push(__nuda_l); )*
            #pushes
        }
    };
    let reds = &p.analysis.reductions;
    let local = quote!(__nuda_local);
    if reds.iter().any(|r| r.scan.is_some()) {
        super::scan::launch(p, &trips, &start, &name)
    } else if !reds.is_empty() || !p.analysis.privatised.is_empty() {
        super::reduce::launch(p, &trips, &start(&name, quote!(__nuda_global), local))
    } else {
        let start = start(&name, trips, local);
        quote!(#start __nuda_l.run()?;)
    }
}

/// The NDRange of kernel `i`'s OpenCL launch (without reductions or scans, whose grids the
/// runtime caps), whose ranges are `rnames`.
fn cl_global(p: &Parts, i: usize, rnames: &[syn::Ident]) -> TokenStream {
    match &p.kernels[i].group {
        // A work-group per tile: the mapped loops count the groups.
        // (Each product in a block: clippy reads a bare `x * y` in an array literal whose
        // spans are all the macro's as a missing comma.)
        Some(tiles) => quote!([#({ #rnames.trips() * #tiles }),*]),
        None => quote!([#(#rnames.trips()),*]),
    }
}

/// The native run of kernel `i`: a closure over one chunk of the last mapped dimension (the
/// runtime hands each rayon task a chunk), so the loop over it is plain Rust that LLVM can
/// optimise as a whole. The views, ranges and checker are copied into locals first: behind
/// the closure's references LLVM would reload them after every store through a view.
/// Each element runs in a closure of its own, where a top-level `continue` is a `return`.
fn native_glue(p: &Parts, i: usize, rnames: &[syn::Ident], vars: &[&syn::Ident]) -> TokenStream {
    let k = rnames.len();
    let gnames: Vec<syn::Ident> = (0..k).map(|d| format_ident!("__nuda_g{}", d)).collect();
    let (outer, last) = (&gnames[..k - 1], &gnames[k - 1]);
    let element = |block: &TokenStream| {
        quote! {
            #PRIVATE::inlined(#[inline(always)] || {
                // A scan's first pass runs only the contributions, which may not read every
                // loop variable the body does (issue 27, item 11).
                #( #[allow(unused_variables)] let #vars = #rnames.at(#gnames); )*
                #block
            })();
        }
    };
    let trips = quote!([#(#rnames.trips()),*]);
    let params = quote!([#(#outer,)* __nuda_lo]: [usize; #k]);
    let setup = task_setup(p, rnames, &p.analysis.captures);
    if p.analysis.reductions.iter().any(|r| r.scan.is_some()) {
        // The first pass never stores to a pushed vector, which has no view yet.
        let first = task_setup(p, rnames, &unpushed(p));
        let loops = [&p.native_slices[i], &p.natives[i]]
            .map(&element)
            .map(|e| quote!(for #last in __nuda_lo..__nuda_hi { #e }));
        let setups = [&first, &setup];
        let task = super::scan::Task {
            params: &params,
            setups,
            loops,
        };
        return super::scan::native(p, task, &trips);
    }
    let element = element(&p.natives[i]);
    let (copies, flushes) = native_copies(p);
    let (chunk, run) = match p.analysis.reductions.is_empty() {
        false => (
            super::reduce::native_chunk(p, last, &element),
            super::reduce::native_run(p, &trips),
        ),
        true => (quote!(for #last in __nuda_lo..__nuda_hi { #element }), {
            let global = cl_global(p, i, rnames);
            quote!(#PRIVATE::native_nuwork(&__nuda_dev, __nuda_local, #global, #trips, __nuda_faults, __nuda_body)?;)
        }),
    };
    // Generated code, with the user's spans: annotations leave expressions such as `0 * 3`
    // that rustc and clippy would otherwise flag in the user's crate.
    quote! {
        #[allow(unused_parens, unused_mut, unused_assignments, clippy::all)]
        let __nuda_body = #PRIVATE::inlined(#[inline(always)] |#params, __nuda_hi: usize| {
            #setup
            #copies
            let __nuda_out = { #chunk };
            #flushes
            __nuda_out
        });
        #run
    }
}

/// Each privatised array's copy for a native segment (`NativeCopy`), after the views are
/// hoisted: the array's name then means what the copy says its atomics update. And the
/// flushes into the arrays, for the segment's end.
fn native_copies(p: &Parts) -> (TokenStream, TokenStream) {
    let (mut copies, mut flushes) = (TokenStream::new(), TokenStream::new());
    for (k, x) in p.analysis.privatised.iter().enumerate() {
        let (name, copy) = (&x.name, format_ident!("__nuda_pc{}", k));
        let op = x.atomic_op();
        copies.extend(quote! {
            let #copy = #PRIVATE::NativeCopy::new(&#name, #op, __nuda_hi - __nuda_lo);
            #[allow(unused_variables)]
            let #name = #copy.view();
        });
        // Flushed when dropped, at the segment's end, unwinding included.
        flushes.extend(quote!(::core::mem::drop(#copy);));
    }
    (copies, flushes)
}

/// A native task's bindings: the fault checker, the views of `captures` and the ranges, as
/// locals.
fn task_setup(
    p: &Parts,
    rnames: &[syn::Ident],
    captures: &[crate::checks::capture::Capture],
) -> TokenStream {
    let hoists = hoist_views(captures, &p.plain);
    let hoist = quote!(#PRIVATE::hoist);
    quote! {
        let __nuda_fault = __nuda_fault;
        #hoists
        #( let #rnames = #hoist(&#rnames); )*
    }
}

/// The captures but the vectors the body pushes to.
fn unpushed(p: &Parts) -> Vec<crate::checks::capture::Capture> {
    let pushed = |c: &&crate::checks::capture::Capture| p.pushes.iter().any(|x| x.vec == c.name);
    p.analysis
        .captures
        .iter()
        .filter(|c| !pushed(c))
        .cloned()
        .collect()
}

/// The type slots the witnesses record, over every kernel and the range witnesses.
fn recorded(parts: &[KernelGlue], wranges: &TokenStream) -> std::collections::BTreeSet<usize> {
    let mut recorded = std::collections::BTreeSet::new();
    for w in parts.iter().map(|g| &g.witness).chain([wranges]) {
        recorded_slots(w, &mut recorded);
    }
    recorded
}

/// `#[unchecked]`: a call of an `unsafe fn`, so rustc asks for the `unsafe` block.
pub(crate) fn unchecked_contract(unchecked: Option<proc_macro2::Span>) -> TokenStream {
    match unchecked {
        Some(span) => {
            let nuda_at = NUDA.at(span);
            quote_spanned!(span=> let () = #nuda_at::skip_bounds_checks();)
        }
        None => TokenStream::new(),
    }
}

pub(super) fn glue(input: &NuworkInput, p: &Parts) -> TokenStream {
    let range_sites = Sites::new();
    let parts: Vec<KernelGlue> = (0..p.kernels.len())
        .map(|i| kernel_glue(p, i, &range_sites))
        .collect();
    let setup = setup(input, p, &parts, &range_sites);
    let quoted = crate::emit::glue::quoted_macro(&input.nest);
    let (prove, run) = (prove(input, p, &parts), engines(p, &parts, &quoted));
    let launch = quote! {
        #setup
        let __nuda_dev = #NUDA::current_device()?;
        #prove
        #run
    };
    if p.analysis.reductions.is_empty() {
        let run = quote!((|| -> #NUDA::Result<()> { #launch ::core::result::Result::Ok(()) })());
        if p.dist {
            // The ranks' collective check: an error on any rank stops them all.
            return quote!(__nudist.end(#run, #PRIVATE::dist::Payload::new()).map(::core::mem::drop));
        }
        return run;
    }
    let around = super::reduce::around(p, launch);
    let counters = p.pushes.iter().map(|x| {
        let (vec, counter) = (&x.vec, &x.counter);
        let len = {
            let kernel_at = KERNEL.at(vec.span());
            quote_spanned!(vec.span()=> #kernel_at::Pushed::pushed_len(&#vec))
        };
        let ty = if x.bound.is_some() {
            quote!(u32)
        } else {
            quote!(usize)
        };
        quote!(let mut #counter: #ty = #PRIVATE::push_start(#len);)
    });
    // The flag idiom: the value is set once, after the launch, if any iteration set it.
    let (flags, vars, values) = (
        p.flags.iter().map(|f| &f.flag),
        p.flags.iter().map(|f| &f.var),
        p.flags.iter().map(|f| &f.value),
    );
    let flag_reads = p.flags.iter().map(|f| &f.flag);
    quote!({
        #(#counters)*
        #( let mut #flags = false; )*
        let __nuda_done: #NUDA::Result<()> = #around;
        #( if #flag_reads { #vars = #values; } )*
        __nuda_done
    })
}

/// The statics, the fault recorder, the ranges on the host, the captures and the witness.
fn setup(input: &NuworkInput, p: &Parts, parts: &[KernelGlue], range_sites: &Sites) -> TokenStream {
    let sizes = input
        .sizes
        .iter()
        .map(|s| quote_spanned!(s.span()=> #PRIVATE::group_size(#s)?));
    let (ranges, witnesses) = (
        parts.iter().map(|g| &g.ranges),
        parts.iter().map(|g| &g.witness),
    );
    let caps = &p.analysis.captures;
    let (bind, wviews) = (bind_captures(caps), capture_views(caps, true));
    let wranges = witness_ranges(p);
    let bodies: Vec<&Block> = p.kernels.iter().map(|k| &k.body).collect();
    let guards = hygiene_guards(&bodies);
    let decls = slot_decls(&recorded(parts, &wranges));
    let calls = crate::emit::native::call_decls(p.analysis.calls.len());
    let decls = quote!(#decls #calls);
    let (sites, range_table, proof) = (p.shared.sites.table(), range_sites.table(), &p.proof);
    let contract = unchecked_contract(input.unchecked);
    let push_checks = push_guards(p);
    let alias_checks = alias_checks(p);
    let (reds, wreds) = (super::reduce::setup(p), super::reduce::witness(p));
    // Read after the body, as the loop's next iteration would: no "never read" warnings.
    let wreads = p.analysis.reductions.iter().map(|r| &r.name);
    // A counted slot's counter wide enough not to wrap (`depend`), before the reads.
    let counters = p.analysis.reductions.iter().map(|r| &r.name);
    let counters = counters.filter(|n| p.slot_counters.contains(&n.to_string()));
    let kernel = KERNEL;
    let wreads = quote! {
        #( #kernel::slot_counter(&#counters); )*
        #( ::core::mem::drop(#wreads); )*
    };
    quote! {
        #contract
        static __NUDA_SITES: #sites;
        static __NUDA_RANGES: #range_table;
        static __NUDA_PROOF: #proof;
        let __nuda_faults = &#PRIVATE::Faults::new();
        let __nuda_fault = #PRIVATE::Checker::<false>::new(__nuda_faults);
        let __nuda_local = [#(#sizes),*];
        #(#ranges)*
        // A fault in a range expression (a division by zero, say) ends the launch here.
        __nuda_faults.check("nuwork!", || "the host, before the launch".into())?;
        #push_checks
        #bind
        #alias_checks
        #reds
        #decls
        {
            #[allow(unused, unreachable_code, clippy::all)]
            let __nuda_witness = || {
                #guards
                #wviews
                // After the views: a range that reads an array the body writes
                // (`nfor!(k in a.len() { a[k] *= 2; })`) reads the witness's view of it.
                #wranges
                #wreds
                #(#witnesses)*
                #wreads
            };
        }
    }
}

/// The check that no two captures the dependence test paired are one array (`NuShared`
/// copies), after the captures are bound.
fn alias_checks(p: &Parts) -> TokenStream {
    let caps = &p.analysis.captures;
    let address = |name: &str| {
        let (i, c) = caps.iter().enumerate().find(|(_, c)| c.name == name)?;
        let id = crate::emit::glue::capture_ident(i);
        Some(match c.written {
            true => quote!(#KERNEL::CaptureMut::shared_array_mut(&*#id)),
            false => quote!(#KERNEL::Capture::shared_array(#id)),
        })
    };
    let pairs: Vec<TokenStream> = p
        .aliases
        .iter()
        .filter_map(|(a, b)| {
            let (x, y) = (address(a)?, address(b)?);
            Some(quote!((#x, #y, #a, #b)))
        })
        .collect();
    if pairs.is_empty() {
        return TokenStream::new();
    }
    quote!(#PRIVATE::distinct(concat!("nuwork! at ", file!(), ":", line!()), &[#(#pairs),*])?;)
}

/// Each 32-bit push counter checked against the vector's length and the iterations.
fn push_guards(p: &Parts) -> TokenStream {
    let k = p.kernels.first().map_or(0, |kern| kern.mapped.len());
    let trips = (0..k).map(|d| format_ident!("__nuda_r0_{}", d));
    let trips = quote!([#(#trips.trips()),*]);
    let lines = p.pushes.iter().filter_map(|x| {
        let (vec, bound, name) = (&x.vec, x.bound?, x.vec.to_string());
        let len = {
            let kernel_at = KERNEL.at(vec.span());
            quote_spanned!(vec.span()=> #kernel_at::Pushed::pushed_len(&#vec))
        };
        Some(quote!(#PRIVATE::push_guard(#name, #len, #trips, #bound)?;))
    });
    quote!(#(#lines)*)
}

/// The launch-time proof over this launch's values: `__nuda_variant`.
fn prove(input: &NuworkInput, p: &Parts, parts: &[KernelGlue]) -> TokenStream {
    let caps = &p.analysis.captures;
    let recorded = recorded(parts, &witness_ranges(p));
    let (fills, calls) = (
        fills(p.slots, &recorded, (caps, true), &super::reduce::fills(p)),
        companions(&p.analysis.calls),
    );
    let (inputs, unchecked) = (proof_inputs(caps), input.unchecked.is_some());
    let private = p
        .kernels
        .iter()
        .map(|k| crate::emit::private::table(&crate::emit::private::lets(&k.body), &recorded));
    let captured = crate::emit::private::captured(caps);
    let mapped = (0..p.kernels.len()).map(|i| {
        let r = (0..p.kernels[i].mapped.len()).map(|d| format_ident!("__nuda_r{}_{}", i, d));
        quote!(&[#(#r.proof()),*])
    });
    quote! {
        let __nuda_fills = #fills;
        let __nuda_calls: &[&'static #PRIVATE::Nucode] = #calls;
        let __nuda_variant = #PRIVATE::prove(&__NUDA_PROOF, &__NUDA_SITES, &#PRIVATE::Inputs {
            fills: &__nuda_fills,
            captures: &#inputs,
            mapped: &[#(#mapped),*],
            work: ::core::option::Option::None,
            calls: __nuda_calls,
            unchecked: #unchecked || #PRIVATE::unchecked_here(),
        })?;
        #PRIVATE::check_private(&__nuda_dev, "nuwork!", &[#(#private),*], #captured, __nuda_calls,
            __nuda_local.iter().product())?;
    }
}

/// The native engine's run (trusted where the proof left no bounds check) or the OpenCL
/// launches.
fn engines(p: &Parts, parts: &[KernelGlue], quoted: &str) -> TokenStream {
    // A vector the body pushes to gets its view between the scan's passes, once it has grown.
    let pushed: Vec<&syn::Ident> = p.pushes.iter().map(|x| &x.vec).collect();
    let nviews = crate::emit::glue::capture_views_but(&p.analysis.captures, &pushed, false);
    let natives: Vec<&TokenStream> = parts.iter().map(|g| &g.native).collect();
    let launches = parts.iter().map(|g| &g.launch);
    let template = &p.template;
    // NVRTC compiles the native engine's launches too under NUDA_CUDA_CHECK.
    let check = quote! {
        // SAFETY: this call site's own template, its witness's fills and calls, and the
        // variant the proof gave for this launch: `instantiate`'s contract.
        unsafe { #PRIVATE::check_native(&__NUDA_KERNEL, &__nuda_fills, __nuda_calls, &__nuda_variant) }?;
    };
    quote! {
        static __NUDA_KERNEL: #PRIVATE::Template = #PRIVATE::Template::new(
            concat!("/* nuwork! at ", file!(), ":", line!(), " */\n", #template), "nuwork!",
            concat!(file!(), ":", line!(), ": ", #quoted), &__NUDA_SITES);
        #PRIVATE::dispatch(&__nuda_dev, |__nuda_form| { match __nuda_form {
            #PRIVATE::Form::Native if __nuda_variant.trusts_bounds(&__NUDA_SITES) => {
                #check
                // The launch-time proof (or the caller's `unsafe` opt-out) cleared every bounds
                // site of this kernel, which is `Checker::trusting`'s contract.
                let __nuda_fault = unsafe { #PRIVATE::Checker::trusting(__nuda_faults) };
                #nviews
                #(#natives)*
            }
            #PRIVATE::Form::Native => {
                #check
                #nviews
                #(#natives)*
            }
            // Every other form starts from the OpenCL C source.
            _ => {
                // SAFETY: this call site's own template, its witness's fills and calls, and
                // the variant the proof gave for this launch: `instantiate`'s contract.
                let __nuda_src = unsafe { #PRIVATE::instantiate(&__NUDA_KERNEL, &__nuda_fills, __nuda_calls, &__nuda_variant) };
                #(#launches)*
            }
        } ::core::result::Result::Ok(()) })?;
    }
}
