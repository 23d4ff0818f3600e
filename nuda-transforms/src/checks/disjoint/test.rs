//! Which arrays take plain stores: those every iteration touches only at its own elements.

use super::plain_store_arrays;
use crate::base::ctxt::Ctxt;
use crate::syntax::Lower;
use quote::quote;

/// The plain-store arrays of a nest written as `nfor!(..)` or `annot!(..)`.
fn arrays(nest: proc_macro2::TokenStream) -> Vec<String> {
    let mac: syn::Macro = syn::parse2(nest).expect("a macro call");
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    let nest = crate::syntax::annot::lower_nest_macro(&mut lower, &mac, "nuwork!");
    cx.check().expect("the nest lowers");
    plain_store_arrays(&nest.expect("a nest"))
}

#[test]
fn own_elements_take_plain_stores() {
    let saxpy = quote!(nfor!(i in n { z[i] = a * x[i] + y[i]; }));
    assert_eq!(arrays(saxpy), ["z"]);
    let gemm = quote!(annot!(dmine(4, 4); nfor!((i, j) in (n, n) {
        let mut s = 0.0;
        nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
        c[(i, j)] = s;
    })));
    assert_eq!(arrays(gemm), ["c"]);
    // A read of the written array at the same element, a compound assignment, a row per
    // iteration (the other component is free), and `dims()`.
    let rows = quote!(nfor!(i in n {
        let (_, m) = out.dims();
        nfor!(k in m { out[(i, k)] += out[(i, k)] * 2; });
    }));
    assert_eq!(arrays(rows), ["out"]);
}

#[test]
fn shared_elements_keep_atomic_stores() {
    let cases = [
        // Neighbours: iteration i writes what iteration i + 1 reads or writes.
        quote!(nfor!(i in n { z[i] = z[i + 1]; })),
        quote!(nfor!(i in n { z[i] = 1; z[i + 1] = 2; })),
        // A computed index, which need not be injective.
        quote!(nfor!(i in n { z[i / 2] = 1; })),
        quote!(nfor!(i in n { z[i as u8 as usize] = 1; })),
        // A loop variable missing from the index: every j writes row i's one element.
        quote!(nfor!((i, j) in (n, m) { z[i] = j; })),
        // The positions differ between accesses (a transpose in place).
        quote!(nfor!((i, j) in (n, n) { z[(i, j)] = z[(j, i)]; })),
        // The loop variable rebound: `i` no longer names the iteration.
        quote!(nfor!(i in n { let i = 0; z[i] = 1; })),
        quote!(nfor!(i in n { nfor!(i in 4 { z[i] = 1; }); })),
    ];
    for nest in cases {
        let text = nest.to_string();
        assert_eq!(arrays(nest), Vec::<String>::new(), "{text}");
    }
}
