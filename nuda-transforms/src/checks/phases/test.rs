//! The stretches between a kernel's top-level barriers, and which arrays each updates
//! atomically.

use super::Phases;
use crate::base::ctxt::Ctxt;
use crate::syntax::Lower;
use quote::quote;

/// The phases of a `#[nukernel]` body.
fn of(body: proc_macro2::TokenStream) -> (Phases, usize) {
    let block: syn::Block = syn::parse2(quote!({ #body })).expect("a block");
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    lower.allow_locals = true;
    let b = lower.block(&block);
    cx.check().expect("the body lowers");
    (Phases::new(&b), b.stmts.len())
}

/// A sub-histogram: the merge's reads come after the barrier that ends the counting.
#[test]
fn reads_after_the_counting_barrier_are_quiet() {
    let (p, n) = of(quote! {
        let part = nulocal!(u32, 256);
        let l = local_id(0);
        part[l] = 0;
        barrier();
        part.atomic_add((v[global_id(0)] % 256) as usize, 1u32);
        barrier();
        if part[l] != 0 {
            hist.atomic_add(l, part[l]);
        }
    });
    assert!(p.quiet(2, "part"), "the zeroing stretch has no atomic");
    assert!(!p.quiet(4, "part"), "the counting stretch has one");
    assert!(p.quiet(6, "part"), "the merge's stretch has none on part");
    assert!(!p.quiet(6, "hist"), "but one on hist");
    assert!(p.quiet(n, "part"), "the tail is in the last stretch");
}

/// A read beside an atomic between the same barriers stays atomic, and so does one in a
/// stretch whose barrier is nested in a loop (the loop's body is one stretch with the rest).
#[test]
fn a_read_beside_an_atomic_or_a_nested_barrier_is_not_quiet() {
    let (p, _) = of(quote! {
        let part = nulocal!(u32, 64);
        let l = local_id(0);
        part.atomic_add(l, 1u32);
        out[global_id(0)] = part[63 - l];
    });
    assert!(!p.quiet(3, "part"));
    let (p, _) = of(quote! {
        let part = nulocal!(u32, 64);
        let l = local_id(0);
        let mut s = 32usize;
        while s > 0 {
            if l < s {
                part.atomic_add(l, part[l + s]);
            }
            barrier();
            s /= 2;
        }
        out[global_id(0)] = part[l];
    });
    assert!(!p.quiet(3, "part"), "the loop's atomic");
    assert!(!p.quiet(4, "part"), "no top-level barrier after the loop");
}
