//! Tests of the lane classification, through whole `vector(w)` expansions: bindings, not
//! names, decide what differs between lanes (issue 47), and the messages name what the user
//! wrote.

use quote::quote;

/// The errors of `nuwork!(input)`, one string each; empty if it expands.
fn errors(input: proc_macro2::TokenStream) -> Vec<String> {
    match crate::entry::nuwork::template(input) {
        Ok(_) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

/// The OpenCL C template of `nuwork!(input)`, which must expand.
fn template(input: proc_macro2::TokenStream) -> String {
    let text = input.to_string();
    crate::entry::nuwork::template(input).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn a_lane_local_does_not_hide_a_captured_value_of_its_name() {
    // `s` captured and read in the lanes; a lane local `s` declared later, or in a block.
    let later = quote!(64; annot!(vector(4); nfor!(j in n {
        b[j] = a[j] * s;
        let s = a[j] + 1.0;
        c[j] = s;
    })));
    assert!(errors(later).is_empty());
    let inner = quote!(64; annot!(vector(4); nfor!(j in n {
        { let s = a[j] + 1.0; c[j] = s; }
        b[j] = a[j] * s;
    })));
    assert!(errors(inner).is_empty());
}

#[test]
fn two_bindings_of_one_name_keep_their_own_kinds() {
    let shadow = quote!(64; annot!(vector(8); nfor!(j in n {
        let k = 3;
        b[j] = a[j] * k as f32;
        let k = j + 1;
        c[k] = a[j];
    })));
    assert!(errors(shadow).is_empty());
    let inner_for = quote!(64; annot!(vector(4); nfor!(j in n {
        let k = a[j] * 2.0;
        let mut t = 0.0f32;
        for k in 0..3 { t += k as f32; }
        b[j] = k + t;
    })));
    assert!(errors(inner_for).is_empty());
    let loop_var = quote!(64; annot!(vector(4); nfor!(j in n {
        let mut t = a[j];
        for j in 0..3 { t += j as f32; }
        b[j] = t;
    })));
    assert!(errors(loop_var).is_empty());
}

#[test]
fn an_affine_local_reassigned_under_a_shared_condition_stays_affine() {
    let nest = quote!(64; annot!(vector(4); nfor!(j in 0..n - 1 {
        let mut k = j;
        if c > 0.0 { k = j + 1; }
        b[j] = a[k];
    })));
    assert!(errors(nest).is_empty());
}

#[test]
fn a_value_if_on_a_shared_condition_vectorises() {
    let nest = quote!(64; annot!(vector(4); nfor!(j in n {
        let x = if c > 0.0 { a[j] } else { a[j] * 2.0 };
        let y = if c > 1.0 { 1.0 } else if c > 0.5 { a[j] } else { { let t = a[j]; t * t } };
        b[j] = x + y;
    })));
    let t = template(nest);
    assert!(t.contains("if ("), "{t}");
    // A condition that differs between lanes is still refused.
    let varying = quote!(64; annot!(vector(4); nfor!(j in n {
        b[j] = if a[j] > 0.0 { a[j] } else { 0.0 };
    })));
    let e = errors(varying);
    assert!(e.iter().any(|m| m.contains("chosen per lane")), "{e:?}");
}

#[test]
fn float_methods_with_literal_arguments_take_the_vector_type() {
    for method in [
        quote!(mul_add(u, 0.1)),
        quote!(powf(2.0)),
        quote!(atan2(0.5)),
        quote!(hypot(3.0)),
        quote!(copysign(-1.0)),
    ] {
        let nest =
            quote!(64; annot!(vector(8); nfor!(j in n { let u = b[j]; c[j] = a[j].#method; })));
        let t = template(nest);
        assert!(!t.contains("nu_idx8"), "{method}: {t}");
    }
}

#[test]
fn clamp_vectorises_with_shared_bounds() {
    let nest = quote!(64; annot!(vector(4); nfor!(j in n { c[j] = a[j].clamp(lo, 1.0); })));
    let t = template(nest);
    assert!(t.contains("nu_vclamp_"), "{t}");
    let varying = quote!(64; annot!(vector(4); nfor!(j in n { c[j] = a[j].clamp(0.0, b[j]); })));
    let e = errors(varying);
    assert!(
        e.iter()
            .any(|m| m.contains("bounds that differ between lanes")),
        "{e:?}"
    );
}

#[test]
fn each_refusal_is_reported_once_with_its_own_words() {
    let one = |nest: proc_macro2::TokenStream, words: &str| {
        let text = nest.to_string();
        let e = errors(nest);
        assert_eq!(e.len(), 1, "{text}: {e:?}");
        assert!(e[0].contains(words), "{text}: {}", e[0]);
    };
    // A private array or struct whose parts differ between lanes: the documented message,
    // once, naming it; not the generic one at every use.
    let arr = quote!(64; annot!(vector(4); nfor!(j in n { let t = [a[j], a[j] + 1.0]; b[j] = t[0] + t[1]; })));
    one(
        arr,
        "a struct or array `t` whose parts differ between lanes",
    );
    let st =
        quote!(64; annot!(vector(4); nfor!(j in n { let s = S { x: a[j], y: 1.0 }; b[j] = s.x; })));
    one(st, "a struct or array `s` whose parts differ between lanes");
    // `.rev()` counts down; a step spreads the lanes; neither adds an error at the index.
    let rev = quote!(64; annot!(vector(4); nfor!(j in (0..n).rev() { b[j] = a[j]; })));
    one(rev, "count down (`.rev()`)");
    let step = quote!(64; annot!(vector(4); nfor!(j in (0..n).step_by(2) { b[j] = a[j]; })));
    one(step, "step by more than one");
    let strided = quote!(64; annot!(vector(4); nfor!(j in n { b[j] = a[j * 3 + 1] + a[j]; })));
    one(strided, "the index `(j * 3) + 1` of `a`");
    // The copies a dmine makes of one statement report it once.
    let dmine = quote!(64, 4; annot!(dmine(1, 2), vector(4); nfor!((i, j) in (n, n) { b[(i, j)] = a[(i, j)]; })));
    one(dmine, "step by more than one");
    // A renamed binding is named as written.
    let renamed = quote!(64; annot!(vector(4); nfor!(j in n {
        let k = 1.0f32;
        b[j] = a[j] * k;
        let k = 2 * j;
        c[j] = a[k];
    })));
    let e = errors(renamed);
    assert!(e.iter().all(|m| !m.contains("k_")), "{e:?}");
}
