//! `#[nukernel] fn name(params) { body }`: an explicit kernel, as NUDA's `nukernel`. The
//! function becomes a launcher taking a `Call` first; `nucall!` supplies it. Parameters are
//! `&mut` arrays and images (written), `&` arrays and images (read), `NuConst<'_, ..>`
//! (constant memory) and scalars by value.
//!
//! Stage 7 of the pipeline in `lib.rs` (entry points).

use crate::base::ctxt::Ctxt;
use crate::base::paths::{KERNEL, NUDA, PRIVATE};
use crate::checks::capture::{self, Capture, Context};
use crate::emit::cl::{sanitize, ClEmitter, Env, Shared};
use crate::emit::glue::{
    capture_ident, capture_views, companions, fills, proof_inputs, push_captures,
};
use crate::emit::native::{self as native, slot_decls, RustEmitter};
use crate::proof::Proof;
use crate::syntax::local::LocalDecl;
use crate::syntax::Lower;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, Type};

/// How a parameter reaches the kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `&mut T`
    Mut,
    /// `&T`
    Ref,
    /// `T`
    Value,
}

struct Param {
    name: syn::Ident,
    mode: Mode,
}

/// Expands `#[nukernel]`.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(
            attr.span(),
            "#[nukernel] takes no arguments",
        ));
    }
    let f: ItemFn = syn::parse2(item)?;
    let (name, parts) = build(&f)?;
    Ok(glue(&f, &name, &parts))
}

/// The kernel template `#[nukernel]` would embed, for inspection and snapshot tests.
pub fn template(item: TokenStream) -> syn::Result<String> {
    let f: ItemFn = syn::parse2(item)?;
    Ok(build(&f)?.1.template)
}

/// The body lowered and checked: what every later step reads.
struct Front {
    params: Vec<Param>,
    body: crate::base::ir::Block,
    analysis: capture::Analysis,
    locals: Vec<LocalDecl>,
    slots: usize,
}

fn front(cx: &Ctxt, f: &ItemFn) -> Front {
    let params = params(cx, f);
    check_signature(cx, f);
    let mut lower = Lower::new(cx);
    lower.allow_locals = true;
    let mut body = lower.block(&f.block);
    crate::annot::expand_block(cx, &mut lower.slots, &mut body);
    let mut analysis = capture::analyze(cx, &mut body, &[], Context::Kernel);
    analysis.captures = order_captures(cx, &params, analysis.captures);
    let decls = std::mem::take(&mut lower.locals);
    let locals = mark_locals(cx, &params, &mut analysis, decls);
    if analysis.barrier {
        crate::checks::uniform::check_barriers(cx, &analysis, &body);
    }
    let slots = lower.slots;
    Front {
        params,
        body,
        analysis,
        locals,
        slots,
    }
}

/// A kernel's barrier split, for tests: its plan, or why it keeps the coroutine form.
pub fn split(
    item: TokenStream,
) -> syn::Result<Result<crate::checks::barrier_split::Plan, crate::checks::barrier_split::Why>> {
    let f: ItemFn = syn::parse2(item)?;
    let cx = Ctxt::new();
    let front = front(&cx, &f);
    cx.check()?;
    Ok(crate::checks::barrier_split::plan(
        &front.analysis,
        &front.body,
    ))
}

fn build(f: &ItemFn) -> syn::Result<(String, Parts)> {
    let cx = Ctxt::new();
    let Front {
        params,
        body,
        analysis,
        locals,
        slots,
    } = front(&cx, f);
    let name = sanitize(&f.sig.ident.to_string());
    let shared = Shared::new();
    let env = Env {
        analysis: &analysis,
        capture_base: slots,
        context: Context::Kernel,
        shared: &shared,
        threads: None,
    };
    let zeroed = crate::checks::zeroing::zeroed(&body, &locals);
    let kernel = ClEmitter::new(&cx, env).kernel(&name, &body, &zeroed);
    let zeroing = zeroing(&zeroed, &analysis.captures);
    let template = shared.helpers_text() + &kernel;
    let emitter = |mode| {
        RustEmitter::new(&analysis, Context::Kernel, mode)
            .with_sites(&shared.sites, quote!(__NUDA_SITES))
    };
    let split = analysis
        .barrier
        .then(|| crate::checks::barrier_split::plan(&analysis, &body));
    let native = match &split {
        Some(Ok(plan)) => emitter(native::Mode::Native).phased(plan),
        _ => emitter(native::Mode::Native).body(&body),
    };
    let witness = emitter(native::Mode::Witness).block_inner(&body);
    let form = match &split {
        None => "plain".to_string(),
        Some(Ok(_)) => "split".to_string(),
        Some(Err(why)) => format!("coroutines: {why}"),
    };
    let mut proof = Proof::new(&analysis, &shared.sites, Context::Kernel);
    proof.kernel(&body);
    let proof = proof.tokens();
    cx.check()?;
    // A `nulocal!` array is the group's own already.
    let mut copies = crate::checks::privatise::arrays(&analysis.atomic, &[&body]);
    copies.retain(|c| !locals.iter().any(|d| d.name == c.name));
    let parts = Parts {
        params,
        locals,
        captures: analysis.captures.clone(),
        barrier: analysis.barrier,
        form,
        slots,
        template,
        sites: shared.sites.table(),
        proof,
        native,
        witness,
        guards: crate::emit::glue::hygiene_guards(&[&body]),
        calls: analysis.calls,
        lets: crate::emit::private::lets(&body),
        zeroing,
        quoted: crate::emit::glue::quoted(f.sig.span(), &f.sig.to_token_stream()),
        copies,
    };
    Ok((name, parts))
}

fn params(cx: &Ctxt, f: &ItemFn) -> Vec<Param> {
    let mut out = Vec::new();
    for arg in &f.sig.inputs {
        let FnArg::Typed(pt) = arg else {
            cx.error(arg.span(), "#[nukernel] functions take no `self`");
            continue;
        };
        let Pat::Ident(pi) = &*pt.pat else {
            cx.error(
                pt.pat.span(),
                "#[nukernel] parameters are plain names, as in `a: &NuArray1<f32>`",
            );
            continue;
        };
        let mode = match &*pt.ty {
            Type::Reference(r) if r.mutability.is_some() => Mode::Mut,
            Type::Reference(_) => Mode::Ref,
            _ => Mode::Value,
        };
        out.push(Param {
            name: pi.ident.clone(),
            mode,
        });
    }
    out
}

fn check_signature(cx: &Ctxt, f: &ItemFn) {
    let sig = &f.sig;
    for g in &sig.generics.params {
        if !matches!(g, syn::GenericParam::Type(_)) {
            cx.error(g.span(), "#[nukernel] functions are generic over types only, as in `fn k<T: nuda::Element>(a: &mut NuArray1<T>)`; lifetimes and const parameters are not supported");
        }
    }
    if sig.asyncness.is_some() || sig.unsafety.is_some() || sig.constness.is_some() {
        cx.error(sig.span(), "#[nukernel] functions are plain `fn`s");
    }
    if let syn::ReturnType::Type(_, t) = &sig.output {
        cx.error(
            t.span(),
            "#[nukernel] functions return nothing; kernels write their results into arrays",
        );
    }
}

/// The `nulocal!` arrays the body uses: captures the glue makes, always written (a local
/// array lives only in the kernel, so reading one the kernel never writes is its business).
fn mark_locals(
    cx: &Ctxt,
    params: &[Param],
    analysis: &mut capture::Analysis,
    decls: Vec<LocalDecl>,
) -> Vec<LocalDecl> {
    let mut used = Vec::new();
    for d in decls {
        if params.iter().any(|p| p.name == d.name) {
            cx.error(
                d.name.span(),
                format!("nulocal! `{}` has the name of a parameter", d.name),
            );
            continue;
        }
        let Some(c) = analysis.captures.iter_mut().find(|c| c.name == d.name) else {
            continue;
        };
        c.written = true;
        analysis.locals.push(d.name.clone());
        used.push(d);
    }
    used
}

/// Parameters first, in declared order, then free names (constants) the body uses.
fn order_captures(cx: &Ctxt, params: &[Param], found: Vec<Capture>) -> Vec<Capture> {
    let mut out: Vec<Capture> = params
        .iter()
        .map(|p| {
            let used = found.iter().find(|c| c.name == p.name);
            if let (Some(c), Mode::Ref | Mode::Value) = (used, p.mode) {
                if c.written {
                    cx.error(c.span, format!("`{}` is a read-only parameter; declare it `&mut` to write it (a NuConst is read-only constant memory)", p.name));
                }
            }
            Capture::new(&p.name, p.mode == Mode::Mut)
        })
        .collect();
    out.extend(
        found
            .into_iter()
            .filter(|c| !params.iter().any(|p| p.name == c.name)),
    );
    out
}

struct Parts {
    params: Vec<Param>,
    /// The `nulocal!` arrays the body uses.
    locals: Vec<LocalDecl>,
    captures: Vec<Capture>,
    barrier: bool,
    /// The native form: "plain", "split" (at its barriers, `barrier_split`) or "coroutines: why".
    form: String,
    slots: usize,
    template: String,
    /// The check sites' static table (the type and value after `static __NUDA_SITES:`).
    sites: TokenStream,
    /// The launch-time proof program.
    proof: TokenStream,
    native: TokenStream,
    witness: TokenStream,
    /// The witness's hygiene guards (`emit::glue::hygiene_guards`).
    guards: TokenStream,
    calls: Vec<syn::Path>,
    /// The body's `let`s, whose sizes the launch checks.
    lets: Vec<crate::emit::private::PrivateLet>,
    /// `__nuda_variant.zero = ..;`: which `nulocal!` arrays the launch zeroes.
    zeroing: TokenStream,
    /// The user's signature line, which a failed build quotes.
    quoted: String,
    /// The arrays the native engine counts into per-worker copies (`crate::checks::privatise`).
    copies: Vec<crate::checks::privatise::Privatised>,
}

/// `let __nuda_c<i> = ..;` for parameters (by mode), `nulocal!` arrays (made here) and
/// extra captures (by reference).
fn bind(p: &Parts) -> TokenStream {
    let binds = p.captures.iter().enumerate().map(|(i, c)| {
        let (id, name) = (capture_ident(i), &c.name);
        if let Some(d) = p.locals.iter().find(|d| d.name == *name) {
            return local_array(i, d);
        }
        match p.params.iter().find(|q| q.name == *name).map(|q| q.mode) {
            Some(Mode::Mut) => quote!(let #id = &mut *#name;),
            Some(Mode::Ref) => quote!(let #id = #name;),
            Some(Mode::Value) | None => quote_spanned!(c.span=> let #id = &#name;),
        }
    });
    quote!(#(#binds)*)
}

/// Capture `i`, the `nulocal!` array `d`: its dims in a `const` (so rustc refuses dims that
/// are not constants, at their span), then the array.
fn local_array(i: usize, d: &LocalDecl) -> TokenStream {
    let (id, ty, dims) = (capture_ident(i), &d.ty, &d.dims);
    let (konst, array) = (
        format_ident!("__NUDA_LOCAL{}", i),
        format_ident!("__nuda_local{}", i),
    );
    let shape = match dims.len() {
        1 => quote!(usize),
        2 => quote!((usize, usize)),
        _ => quote!((usize, usize, usize)),
    };
    let value = match dims.as_slice() {
        [one] => quote_spanned!(one.span()=> #one),
        many => quote!((#(#many),*)),
    };
    quote_spanned! {d.span=>
        const #konst: #shape = #value;
        let mut #array = #KERNEL::LocalArray::<#ty, #shape>::new(#konst);
        let #id = &mut #array;
    }
}

/// Each `nulocal!` array's view for the current work-group, at the top of a work-item's body
/// (or a split group's): plain loads and stores, which LLVM may vectorise.
fn local_views(p: &Parts) -> TokenStream {
    let names = p.locals.iter().map(|d| &d.name);
    // SAFETY (of the generated code): the view lives in the body's closure, which runs on the
    // group's thread for that group only and hands the view to nothing that outlives it or
    // crosses to another thread: `LocalGroup::view_plain`'s contract.
    quote!(#(let #names = unsafe { #names.view_plain(__nuda_w) };)*)
}

/// The native engine's launch of the body: a closure per work-group where it is split at its
/// barriers, a coroutine per work-item where it calls `barrier()` but keeps its shape.
fn run_native(name: &str, p: &Parts) -> TokenStream {
    let (copies, views, flushes) = native_copies(p);
    let run = run_native_body(name, p, &views);
    quote!({ #copies let __nuda_r = { #run }; #flushes __nuda_r })
}

/// Each privatised array's per-worker copies (the runtime's `NativeCopies`), made before the
/// launch; the views a group's atomics update, at the top of the body, under the array's
/// name; and the flushes into the arrays after the launch (whatever it returns, so that an
/// `Err` leaves the array as the plain atomics would).
fn native_copies(p: &Parts) -> (TokenStream, TokenStream, TokenStream) {
    let mut out = (TokenStream::new(), TokenStream::new(), TokenStream::new());
    for (k, x) in p.copies.iter().enumerate() {
        let (name, copy) = (&x.name, format_ident!("__nuda_pk{}", k));
        let op = x.atomic_op();
        out.0
            .extend(quote!(let #copy = #PRIVATE::NativeCopies::new(&#name, #op);));
        // SAFETY (of the generated code): the view stays in the body's closure, on the
        // thread that runs it (`NativeCopies::view_plain`'s contract).
        out.1
            .extend(quote!(let #name = unsafe { #copy.view_plain() };));
        out.2.extend(quote!(#copy.flush();));
    }
    out
}

/// Each parameter but the privatised copies, copied into a local
/// of the same name at the top of a split group's body: LLVM then keeps a view's pointer and
/// length in registers across the group's loops instead of reloading them after every store.
fn hoisted(p: &Parts) -> TokenStream {
    // Captured parameters only: another capture may be a constant, which a `let` cannot
    // shadow.
    let own = |q: &&Param| {
        p.captures.iter().any(|c| c.name == q.name) && !p.copies.iter().any(|x| x.name == q.name)
    };
    let lets = (p.params.iter().filter(own)).map(|q| {
        let name = &q.name;
        quote!(let #name = #PRIVATE::hoist(&#name);)
    });
    quote!(#(#lets)*)
}

/// The launch of `run_native`, with `views` at the top of the body.
fn run_native_body(name: &str, p: &Parts, views: &TokenStream) -> TokenStream {
    let native = &p.native;
    let locals = local_views(p);
    let locals = quote!(#views #locals);
    let label = format!("#[nukernel] {name}");
    if p.form == "split" {
        let hoisted = hoisted(p);
        quote! {
            #[allow(unused_parens, unused_variables, unused_mut, unused_labels, unreachable_code, clippy::all)]
            let __nuda_body = #PRIVATE::inlined(#[inline(always)] |__nuda_g: &#PRIVATE::Group| {
                let __nuda_fault = __nuda_fault;
                let __nuda_n = __nuda_g.len();
                let __nuda_w = &__nuda_g.first();
                #hoisted
                #locals
                #native
            });
            __nuda_call.run_native_phased(#label, __nuda_faults, __nuda_body)
        }
    } else if p.barrier {
        quote! {
            #[allow(unused_parens, unused_variables, clippy::all)]
            let __nuda_body = |__nuda_w: &#NUDA::WorkItem, __nuda_b: &#NUDA::GroupBarrier| { let __nuda_fault = __nuda_fault; #locals #native };
            __nuda_call.run_native_barrier(#label, __nuda_faults, __nuda_body)
        }
    } else {
        quote! {
            #[allow(unused_parens, unused_variables, clippy::all)]
            let __nuda_body = #PRIVATE::inlined(#[inline(always)] |__nuda_w: &#NUDA::WorkItem| { let __nuda_fault = __nuda_fault; #locals #native });
            __nuda_call.run_native(#label, __nuda_faults, __nuda_body)
        }
    }
}

/// The kernel's three items. `nucall!` calls the launcher, `name::__nuda_launch(call, ..)`,
/// an associated function of a hidden struct of the kernel's name (the type namespace, so
/// that `use path::name;` brings it along). The function of that name, in the value
/// namespace, only turns a direct call `name(..)` into an error that says to use `nucall!`.
fn glue(f: &ItemFn, name: &str, p: &Parts) -> TokenStream {
    let (vis, ident) = (&f.vis, &f.sig.ident);
    let generics = &f.sig.generics;
    let (_, ty_generics, where_c) = generics.split_for_impl();
    let cfgs: Vec<&syn::Attribute> = f
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .collect();
    let params: Vec<&syn::Ident> = generics.type_params().map(|t| &t.ident).collect();
    let launcher = launcher(f, name, p);
    let stub = direct_call(f);
    let form = &p.form;
    quote_spanned! {ident.span()=>
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident <#(#params),*> {
            __nuda: ::core::marker::PhantomData<fn() -> (#(#params,)*)>,
        }
        #(#cfgs)*
        impl #generics #ident #ty_generics #where_c {
            /// How the native engine runs the kernel: "plain", "split" or "coroutines: why".
            #[doc(hidden)]
            pub const __NUDA_NATIVE_FORM: &'static str = #form;
            #launcher
        }
        #stub
    }
}

/// `__nuda_variant.zero = ..;` for the `nulocal!` arrays `zeroed`, whose dims are the
/// `__NUDA_LOCAL<i>` constants of their captures (see `local_array`).
fn zeroing(zeroed: &[crate::checks::zeroing::Zeroed], captures: &[Capture]) -> TokenStream {
    if zeroed.is_empty() {
        return TokenStream::new();
    }
    let covers = zeroed.iter().map(|z| match &z.cover {
        Some(ids) => quote!(::core::option::Option::Some(&[#(#ids),*][..])),
        None => quote!(::core::option::Option::None),
    });
    let dims = zeroed.iter().map(|z| {
        let i = captures.iter().position(|c| c.name == z.name).unwrap_or(0);
        let konst = format_ident!("__NUDA_LOCAL{}", i);
        quote!(&#NUDA::Shape::to_vec(#konst)[..])
    });
    quote!(__nuda_variant.zero = __nuda_call.zeroing(&[#(#covers),*], &[#(#dims),*])?;)
}

/// The launcher `nucall!` calls: the `Call`, then the kernel's own parameters.
fn launcher(f: &ItemFn, name: &str, p: &Parts) -> TokenStream {
    let (vis, inputs) = (&f.vis, &f.sig.inputs);
    // The user's lint levels hold for the code of the kernel's body.
    let lints = f.attrs.iter().filter(|a| {
        ["allow", "warn", "deny", "forbid", "expect"]
            .iter()
            .any(|l| a.path().is_ident(l))
    });
    let mut recorded = std::collections::BTreeSet::new();
    native::recorded_slots(&p.witness, &mut recorded);
    let (setup, run) = (setup(p, &recorded), engines(name, p));
    let (fills, calls) = (
        fills(p.slots, &recorded, (&p.captures, false), &[]),
        companions(&p.calls),
    );
    let (proof_in, zeroing) = (proof_inputs(&p.captures), &p.zeroing);
    let private = crate::emit::private::table(&p.lets, &recorded);
    let captured = crate::emit::private::captured(&p.captures);
    let label = format!("#[nukernel] {name}");
    quote! {
        #(#lints)*
        #[doc(hidden)]
        #[allow(dead_code)]
        #[must_use = "a kernel launch returns a Result that reports launch errors"]
        #vis fn __nuda_launch(__nuda_call: #PRIVATE::Call, #inputs) -> #NUDA::Result<()> {
            #setup
            let __nuda_dev = __nuda_call.device()?;
            let __nuda_fills = #fills;
            let __nuda_calls: &[&'static #PRIVATE::Nucode] = #calls;
            #[allow(unused_mut)]
            let mut __nuda_variant = __nuda_call.prove(&__NUDA_PROOF, &__NUDA_SITES, &__nuda_fills, &#proof_in, __nuda_calls, &__nuda_dev)?;
            #zeroing
            #PRIVATE::check_private(&__nuda_dev, #label, &[#private], #captured, __nuda_calls, __nuda_call.group_size()?)?;
            let __nuda_timing = #run;
            __nuda_timing.map(drop)
        }
    }
}

/// `fn name(..)` with the kernel's parameters, its first replaced by a type that nothing
/// is: a direct call fails to compile with `Nucall`'s message, which names `nucall!`,
/// at the call, where rustc would otherwise ask for a missing hidden argument.
fn direct_call(f: &ItemFn) -> TokenStream {
    let (attrs, vis, ident) = (&f.attrs, &f.vis, &f.sig.ident);
    let generics = &f.sig.generics;
    let (params, where_c) = (&generics.params, &generics.where_clause);
    let mut inputs: Vec<FnArg> = f.sig.inputs.iter().cloned().collect();
    let span = ident.span();
    let never = {
        let kernel_at = KERNEL.at(span);
        quote_spanned!(span=> #kernel_at)
    };
    let (bound, first) = match inputs.first_mut() {
        Some(FnArg::Typed(pt)) => {
            let ty = &pt.ty;
            let bound = quote_spanned!(span=> __NudaLaunch: #never::Nucall<fn(#ty)>);
            *pt.ty = syn::parse_quote_spanned!(span=> __NudaLaunch);
            let Pat::Ident(pi) = &*pt.pat else {
                return TokenStream::new();
            };
            (bound, pi.ident.clone())
        }
        _ => return TokenStream::new(),
    };
    let sep = (!params.is_empty()).then(|| quote!(,));
    quote_spanned! {span=>
        #(#attrs)*
        #[allow(dead_code, unreachable_code, unused_variables, unused_mut, clippy::all)]
        #vis fn #ident <#params #sep #bound> (#(#inputs),*) -> #NUDA::Result<()> #where_c {
            match #never::Nucall::never(#first) {}
        }
    }
}

/// The statics, the fault recorder, the parameters bound, and the type witness.
fn setup(p: &Parts, recorded: &std::collections::BTreeSet<usize>) -> TokenStream {
    let (binds, wviews, decls) = (bind(p), capture_views(&p.captures, true), {
        let (slots, calls) = (slot_decls(recorded), native::call_decls(p.calls.len()));
        quote!(#slots #calls)
    });
    let (witness, sites, proof, guards) = (&p.witness, &p.sites, &p.proof, &p.guards);
    let locals = local_views(p);
    quote! {
        static __NUDA_SITES: #sites;
        static __NUDA_PROOF: #proof;
        let __nuda_faults = &#PRIVATE::Faults::new();
        let __nuda_fault = #PRIVATE::Checker::<false>::new(__nuda_faults);
        #binds
        #decls
        {
            #[allow(unused, unreachable_code, clippy::all)]
            let __nuda_witness = || {
                let __nuda_w = #PRIVATE::witness_item();
                let __nuda_b = #PRIVATE::witness_barrier();
                #guards
                #wviews
                #locals
                #witness
            };
        }
    }
}

/// The native run (trusted where the proof left no bounds check) or the OpenCL launch.
fn engines(name: &str, p: &Parts) -> TokenStream {
    let nviews = capture_views(&p.captures, false);
    let (run_native, pushes) = (run_native(name, p), push_captures(&p.captures));
    let (template, label) = (&p.template, format!("#[nukernel] {name}"));
    let quoted = &p.quoted;
    // NVRTC compiles the native engine's launches too under NUDA_CUDA_CHECK.
    let check = quote! {
        // SAFETY: this call site's own template, its witness's fills and calls, and the
        // variant the proof gave for this launch: `instantiate`'s contract.
        unsafe { #PRIVATE::check_native(&__NUDA_KERNEL, &__nuda_fills, __nuda_calls, &__nuda_variant) }?;
    };
    // A block: the engines are the value of the launch.
    quote! {{
        static __NUDA_KERNEL: #PRIVATE::Template = #PRIVATE::Template::new(
            concat!("/* #[nukernel] ", #name, " at ", file!(), ":", line!(), " */\n", #template), #label,
            concat!(file!(), ":", line!(), ": ", #quoted), &__NUDA_SITES);
        #PRIVATE::dispatch(&__nuda_dev, |__nuda_form| match __nuda_form {
            #PRIVATE::Form::Native if __nuda_variant.trusts_bounds(&__NUDA_SITES) => {
                #check
                // The launch-time proof (or the caller's `unsafe` opt-out) cleared every bounds
                // site of this kernel, which is `Checker::trusting`'s contract.
                let __nuda_fault = unsafe { #PRIVATE::Checker::trusting(__nuda_faults) };
                #nviews
                #run_native
            }
            #PRIVATE::Form::Native => {
                #check
                #nviews
                #run_native
            }
            // Every other form starts from the OpenCL C source.
            _ => {
                // SAFETY: this call site's own template, its witness's fills and calls, and
                // the variant the proof gave for this launch: `instantiate`'s contract.
                let __nuda_src = unsafe { #PRIVATE::instantiate(&__NUDA_KERNEL, &__nuda_fills, __nuda_calls, &__nuda_variant) };
                let mut __nuda_l = __nuda_call.launch(__nuda_src, #name, &__nuda_dev)?.index_type(__nuda_variant.index_type());
                #pushes
                __nuda_l.run()
            }
        })
    }}
}
