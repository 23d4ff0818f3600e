//! Which `nulocal!` arrays a kernel's first phase writes whole, so that zeroing them is
//! skipped where the group covers them.

use super::covers;
use crate::base::ctxt::Ctxt;
use crate::syntax::Lower;
use quote::quote;

/// The covers of `locals` in a `#[nukernel]` body.
fn of(body: proc_macro2::TokenStream, locals: &[&str]) -> Vec<Option<Vec<u32>>> {
    let block: syn::Block = syn::parse2(quote!({ #body })).expect("a block");
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    lower.allow_locals = true;
    let b = lower.block(&block);
    cx.check().expect("the body lowers");
    let names: Vec<syn::Ident> = locals
        .iter()
        .map(|n| syn::Ident::new(n, proc_macro2::Span::call_site()))
        .collect();
    covers(&b, &names)
}

#[test]
fn a_store_at_the_local_ids_before_the_barrier_covers() {
    let one = quote! {
        let mut t = nulocal!(f32, 64);
        t[local_id(0)] = a[global_id(0)];
        barrier();
        b[global_id(0)] = t[63 - local_id(0)];
    };
    assert_eq!(of(one, &["t"]), [Some(vec![0])]);
    let two = quote! {
        let mut tile = nulocal!(f32, (16, 17));
        let (lx, ly) = (local_id(0), local_id(1));
        let ty = local_id(1);
        let tx = local_id(0);
        let g = global_id(0);
        tile[(ty, tx)] = a[g];
        barrier();
        b[g] = tile[(tx, ty)];
    };
    assert_eq!(of(two, &["tile"]), [Some(vec![1, 0])]);
}

#[test]
fn anything_else_is_zeroed() {
    let cases = [
        // Read before the barrier.
        quote! { let mut t = nulocal!(u32, 64); t[local_id(0)] = 1; let x = t[0]; barrier(); },
        // Read first, in the stored value.
        quote! { let mut t = nulocal!(u32, 64); t[local_id(0)] = t[0] + 1; barrier(); },
        // Conditional store.
        quote! { let mut t = nulocal!(u32, 64); if global_id(0) < n { t[local_id(0)] = 1; } barrier(); },
        // A store elsewhere.
        quote! { let mut t = nulocal!(u32, 64); t[local_id(0) / 2] = 1; barrier(); },
        // The same id twice.
        quote! { let mut t = nulocal!(u32, (8, 8)); t[(local_id(0), local_id(0))] = 1; barrier(); },
        // A return before the store.
        quote! { let mut t = nulocal!(u32, 64); if n == 0 { return; } t[local_id(0)] = 1; barrier(); },
        // A rebound alias.
        quote! { let mut t = nulocal!(u32, 64); let mut x = local_id(0); x = 0; t[x] = 1; barrier(); },
        // Never stored before a barrier.
        quote! { let mut t = nulocal!(u32, 64); barrier(); t[local_id(0)] = 1; },
        // An atomic first.
        quote! { let mut t = nulocal!(u32, 64); t.atomic_add(local_id(0), 1); barrier(); },
    ];
    for body in cases {
        let text = body.to_string();
        assert_eq!(of(body, &["t"]), [None], "{text}");
    }
}
