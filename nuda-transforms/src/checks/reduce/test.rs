//! Which updates make a reduction variable, and the errors for every other use.

use quote::quote;

/// The nest's error, or `None` if it compiles.
fn error(nest: proc_macro2::TokenStream) -> Option<String> {
    crate::entry::nuwork::template(nest)
        .err()
        .map(|e| e.to_string())
}

#[test]
fn every_form_is_a_reduction() {
    let ok = [
        quote!(64; nfor!(i in n { s += a[i]; })),
        quote!(64; nfor!(i in n { s -= a[i]; s += 1; })),
        quote!(64; nfor!(i in n { p *= a[i]; })),
        quote!(64; nfor!(i in n { b |= a[i]; c &= a[i]; x ^= a[i]; })),
        quote!(64; nfor!(i in n { hi = hi.max(a[i]); lo = lo.min(a[i]); })),
        quote!(64; nfor!(i in n { if a[i] > 0 { s += 1; } else { t += 2; } })),
        quote!(8, 8; nfor!((i, j) in (n, m) { for k in 0..3 { s += a[(i, j)] * k; } })),
        quote!(8, 8; annot!(dmine(2, 2); nfor!((i, j) in (n, m) { s += a[(i, j)]; }))),
        quote!(64; nfor!(i in n { let mut s = 0; s = a[i] * 2; b[i] = s; })),
    ];
    for nest in ok {
        assert_eq!(error(nest.clone()), None, "{nest}");
    }
}

#[test]
fn other_assignments_name_the_forms() {
    let e = error(quote!(64; nfor!(i in n { s = a[i]; }))).unwrap();
    assert!(e.contains("`s` is captured from outside the loop"), "{e}");
    assert!(e.contains("`s = s.max(e)`"), "{e}");
    let e = error(quote!(64; nfor!(i in n { s /= a[i]; }))).unwrap();
    assert!(
        e.contains("can only be a reduction or scan variable"),
        "{e}"
    );
    let e = error(quote!(64; nfor!(i in n { s = a[i].max(s); }))).unwrap();
    assert!(e.contains("neither a scan nor a reduction"), "{e}");
}

#[test]
fn a_read_makes_a_scan_unless_the_contribution_depends_on_it() {
    for nest in [
        quote!(64; nfor!(i in n { s += a[i]; b[i] = s; })),
        quote!(64; nfor!(i in n { b[i] = s; s += a[i]; })),
        quote!(64; nfor!(i in n { if a[i] > 0 { continue; } s = s.max(a[i]); b[i] = s; })),
        quote!(8, 8; nfor!((i, j) in (n, m) { let t = s * 2; s += a[(i, j)]; b[(i, j)] = t; })),
    ] {
        assert_eq!(error(nest.clone()), None, "{nest}");
    }
    for nest in [
        quote!(64; nfor!(i in n { s += s; })),
        quote!(64; nfor!(i in n { s = s.max(s + a[i]); })),
        quote!(64; nfor!(i in n { if s > 3 { s += a[i]; } })),
        quote!(64; nfor!(i in n { let t = s; s += t; })),
        quote!(64; nfor!(i in n { let old = c.atomic_add(0, 1u32); s += old; b[i] = s; })),
    ] {
        let e = error(nest.clone()).unwrap_or_default();
        assert!(e.contains("`s`") || e.contains("`old`"), "{nest}: {e}");
    }
    let e = error(quote!(64; nfor!(i in n { s = s * a[i] + 1; }))).unwrap();
    assert!(e.contains("neither a scan nor a reduction"), "{e}");
}

#[test]
fn scans_need_the_loops_order() {
    let e = error(quote!(4; annot!(dmine(2); nfor!(i in n { s += a[i]; b[i] = s; })))).unwrap();
    assert!(e.contains("reorder"), "{e}");
    // Annotations on inner loops keep the mapped order.
    let inner = quote!(4; nfor!(i in n { annot!(unroll(2); nfor!(k in 4usize { s += a[i] * k; })); b[i] = s; }));
    assert_eq!(error(inner), None);
}

#[test]
fn one_operator_per_variable() {
    let e = error(quote!(64; nfor!(i in n { s += a[i]; s = s.max(a[i]); }))).unwrap();
    assert!(e.contains("cannot also be updated with `.max(..)`"), "{e}");
    // `-=` is a sum of negated contributions: it mixes with `+=`.
    assert_eq!(
        error(quote!(64; nfor!(i in n { s += a[i]; s -= 1; }))),
        None
    );
}

#[test]
fn kernels_keep_their_assignment_errors() {
    let e = crate::entry::nukernel::template(quote!(
        fn k(out: &mut NuArray1<f32>, s: f32) {
            s += 1.0;
            out[0] = s;
        }
    ))
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("kernel parameter passed by value"), "{e}");
}
