//! Which nests the dependence test refuses: a read that another iteration's write may
//! reach, unless an affine test proves the two never meet.

use super::check;
use crate::ctxt::Ctxt;
use crate::syntax::Lower;
use quote::quote;

/// The errors of the nest written as `nfor!(..)` or `annot!(..)`, mapped on `mapped` loops.
fn errors(nest: proc_macro2::TokenStream, mapped: usize) -> Vec<String> {
    let mac: syn::Macro = syn::parse2(nest).expect("a macro call");
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    let nest = crate::syntax::annot::lower_nest_macro(&mut lower, &mac, "nuwork!");
    check(&cx, &nest.expect("a nest"), mapped);
    match cx.check() {
        Ok(()) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn a_neighbour_read_is_refused_naming_the_write_and_the_read() {
    let e = errors(quote!(nfor!(i in 0..n - 1 { a[i] = a[i + 1]; })), 1);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("`a[i + 1]`") && e[0].contains("`a[i]`"),
        "{}",
        e[0]
    );
    assert!(e[0].contains("#[independent]"), "{}", e[0]);
    let cases = [
        quote!(nfor!(i in 1..n { a[i] = a[i - 1] * 2.0; })),
        quote!(nfor!(i in n { a[i] = a[n - 1 - i]; })),
        quote!(nfor!((i, j) in (n, n) { a[(i, j)] = a[(j, i)]; })),
        quote!(nfor!(i in n { let j = i + 1; let v = a[j]; a[i] = v; })),
        quote!(nfor!(i in n { a[i] = a[idx[i]]; })),
        quote!(nfor!(i in n { a[2 * i] = a[i]; })),
        quote!(nfor!(i in n { nfor!(k in m { a[i] += a[k]; }); })),
        quote!(nfor!(i in n { let mut k = i; k += 1; a[i] = a[k]; })),
        quote!(nfor!(i in n { a[i % 4] = a[i]; })),
    ];
    for nest in cases {
        let text = nest.to_string();
        assert!(!errors(nest, 1).is_empty(), "must be refused: {text}");
    }
}

#[test]
fn provably_separate_elements_compile() {
    let cases = [
        // The same element of each iteration.
        quote!(nfor!(i in n { a[i] = a[i] * 2.0 + b[i + 1]; })),
        quote!(nfor!(i in n { a[i] += 1.0; })),
        quote!(nfor!(i in n { a[idx[i]] = a[idx[i]] + 1.0; })),
        // Even writes, odd reads (the GCD test).
        quote!(nfor!(i in n { a[2 * i] = a[2 * i + 1]; })),
        // The second half read, the first written (bounds: Banerjee).
        quote!(nfor!(i in n { a[i] = a[i + n]; })),
        quote!(nfor!(i in 0..n { a[i + n] = 2.0 * a[i]; })),
        // Rows of their own; a serial inner loop carries its own dependence.
        quote!(nfor!(i in n { nfor!(j in 1..m { a[(i, j)] = a[(i, j - 1)] + 1.0; }); })),
        quote!(nfor!(i in n { for j in 1..m { a[(i, j)] += a[(i, j - 1)]; } })),
        // A loop the nest does not map is serial in each work-item.
        quote!(nfor!((i, j) in (n, m) { a[(i, j)] = a[(i, j - 1)]; })),
        // Gauss–Seidel over an anti-diagonal: every read is of another diagonal.
        quote!(nfor!(i in lo <> hi {
            let j = w - 2 * i;
            a[(i, j)] = (a[(i - 1, j)] + a[(i, j + 1)] + a[(i + 1, j)] + a[(i, j - 1)]
                + a[(i - 1, j - 1)] + a[(i + 1, j + 1)] + a[(i - 1, j + 1)] + a[(i + 1, j - 1)]
                + a[(i, j)]) / 9.0;
        })),
        // Stepped ranges: writes at multiples of 3, reads one past.
        quote!(nfor!(i in (0..n).step_by(3) { a[i] = a[i + 1]; })),
    ];
    for nest in cases {
        let text = nest.to_string();
        let e = errors(nest, 1);
        assert!(e.is_empty(), "must compile: {text}: {e:?}");
    }
}

#[test]
fn annotations_make_every_loop_parallel() {
    let nest = quote!(annot!(permut(2, 1); nfor!((i, j) in (n, m) { a[(i, j)] = a[(i, j - 1)]; })));
    assert_eq!(errors(nest, 1).len(), 1);
}

#[test]
fn private_arrays_belong_to_their_iteration() {
    let nest = quote!(nfor!(i in n { let mut t = [0.0f32; 64]; t[i] = 1.0; o[i] = t[0] + t[i]; }));
    assert!(errors(nest, 1).is_empty());
}
