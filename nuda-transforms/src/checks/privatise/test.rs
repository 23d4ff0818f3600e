//! Which arrays of a `nuwork!` body are privatised, on bodies as users write them, and the
//! kernel form that follows.

use super::arrays;
use crate::base::ctxt::Ctxt;
use crate::syntax::Lower;
use quote::quote;

/// The privatised arrays among `names` of `body`, with their flush operations.
fn of(body: proc_macro2::TokenStream, names: &[&str]) -> Vec<(String, &'static str)> {
    let block: syn::Block = syn::parse2(quote!({ #body })).expect("a block");
    let cx = Ctxt::new();
    let b = Lower::new(&cx).block(&block);
    cx.check().expect("the body lowers");
    let names: Vec<syn::Ident> = names
        .iter()
        .map(|n| syn::Ident::new(n, proc_macro2::Span::call_site()))
        .collect();
    arrays(&names, &[&b])
        .into_iter()
        .map(|p| (p.name.to_string(), p.flush))
        .collect()
}

#[test]
fn dropped_atomics_of_one_family_are_privatised() {
    let hist = quote! { h.atomic_add((v[i] % 256) as usize, 1u32); };
    assert_eq!(of(hist, &["h"]), [("h".into(), "add")]);
    // Under a branch and a loop, with `sub` (an `add` of the negation) and `len()`.
    let nested = quote! {
        if v[i] > 3 { h.atomic_sub(v[i] as usize % h.len(), 2); }
        for k in 0..4 { h.atomic_add((i + k) % h.len(), 1); }
    };
    assert_eq!(of(nested, &["h"]), [("h".into(), "add")]);
    let bits = quote! { m.atomic_or(i / 32, 1u32 << (i % 32)); x.atomic_xor(0, v[i]); };
    assert_eq!(
        of(bits, &["m", "x"]),
        [("m".into(), "or"), ("x".into(), "xor")]
    );
    let two_d = quote! { h.atomic_add((v[i] % 16, w[i] % 16), 1); };
    assert_eq!(of(two_d, &["h"]), [("h".into(), "add")]);
    // `let _ = ..` drops the value as a statement does.
    let wild = quote! { let _ = h.atomic_add(v[i] as usize, 1u32); };
    assert_eq!(of(wild, &["h"]), [("h".into(), "add")]);
}

#[test]
fn anything_else_is_not() {
    let cases = [
        // The old value is used.
        quote! { let old = h.atomic_add(0, 1); b[i] = old; },
        quote! { b[i] = h.atomic_add(0, 1); },
        // Read or written as an array too.
        quote! { h.atomic_add(v[i], 1); b[i] = h[i]; },
        quote! { h.atomic_add(v[i], 1); h[i] = 0; },
        // Two families, whose order matters.
        quote! { h.atomic_add(v[i], 1); h.atomic_or(v[i], 1); },
        // Operations whose identity is not zero, or whose result is the last writer's.
        quote! { h.atomic_max(v[i], 1); },
        quote! { h.atomic_min(v[i], 1); },
        quote! { h.atomic_and(v[i], 1); },
        quote! { h.atomic_xchg(v[i], 1); },
        // No atomic at all.
        quote! { b[i] = h.len(); },
    ];
    for body in cases {
        let text = body.to_string();
        assert_eq!(of(body, &["h"]), [], "{text}");
    }
}

/// The `nuwork!` template of `input`, its dialect marks as OpenCL C.
fn template(input: proc_macro2::TokenStream) -> String {
    let t = crate::entry::nuwork::template(input).expect("the nuwork! expands");
    nuda_abi::dialect::to_opencl(&t)
}

#[test]
fn a_histogram_kernel_counts_in_local_memory_first() {
    let t = template(quote!(256; nfor!(i in n { h.atomic_add((v[i] % 256) as usize, 1u32); })));
    assert!(t.contains("uint nu_pv0, local "), "{t}");
    assert!(t.contains("nu_latomic_add_"), "{t}");
    assert!(t.contains("if (nu_x != 0) nu_atomic_add_"), "{t}");
    // GPUs' loops twice: once with the flag a constant the compiler folds (AMD's compilers
    // keep a branch on a flag they cannot see between every load and the next), once not.
    let gpu = t.split("#else").nth(1).unwrap_or_default();
    assert!(gpu.contains("if (nu_pv0) {\n"), "{t}");
    assert!(gpu.contains("const uint nu_pv0 = 1u;"), "{t}");
    assert_eq!(gpu.matches("nu_left0 / 4 >=").count(), 2, "{t}");
    // Scans keep their own kernels; so does a read of the bins.
    let scan = template(
        quote!(256; nfor!(i in n { h.atomic_add(v[i] as usize, 1u32); s += v[i]; b[i] = s; })),
    );
    assert!(!scan.contains("nu_pv0"), "{scan}");
    let read =
        template(quote!(#[independent] 256; nfor!(i in n { h.atomic_add(i, 1u32); b[i] = h[i]; })));
    assert!(!read.contains("nu_pv0"), "{read}");
}
