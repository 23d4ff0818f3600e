//! The native form of `vector(w)` nests: lanes side by side where the body allows, the plain
//! lane loop where it does not.

use quote::quote;

fn native(body: proc_macro2::TokenStream) -> String {
    crate::nuwork::expand(body)
        .expect("the nuwork! compiles")
        .to_string()
}

/// nbody's shape: varying locals become arrays, the uniform loads of the inner loop are
/// read once per iteration, before the lanes.
#[test]
fn an_nbody_nest_runs_its_lanes_side_by_side() {
    let code = native(quote!(64; annot!(vector(16); nfor!(i in n {
        let xi = px[i];
        let mut ax = 0.0f32;
        nfor!(j in n {
            let dx = px[j] - xi;
            ax += dx * m[j];
        });
        vx[i] = ax;
    }))));
    assert!(
        code.contains(":: core :: array :: from_fn :: < _ , 16usize , _ >"),
        "{code}"
    );
    assert!(
        code.contains("let __nuda_h0 ="),
        "no uniform load lifted: {code}"
    );
    assert!(code.contains("ax [__nuda_l] ="), "{code}");
}

/// A varying `let` without a value is outside the turned form: the nest keeps its lane loop.
#[test]
fn a_let_without_a_value_keeps_the_plain_lane_loop() {
    let code = native(quote!(64; annot!(vector(4); nfor!(i in n {
        let t: f32;
        t = a[i];
        b[i] = t * 2.0;
    }))));
    assert!(!code.contains("from_fn"), "{code}");
    assert!(!code.contains("[__nuda_l]"), "{code}");
}

/// Nothing is lifted out of a branch, where a load could fault that the plain loop never
/// runs: the condition is read once for all lanes, `c[0]` stays behind it.
#[test]
fn nothing_is_lifted_out_of_a_branch() {
    let code = native(quote!(64; annot!(vector(4); nfor!(i in n {
        let v = a[i] * if k > 0 { c[0] } else { 1.0f32 };
        b[i] = v;
    }))));
    assert!(code.contains("from_fn"), "{code}");
    assert!(code.contains("let __nuda_h0 = (k > 0)"), "{code}");
    assert!(
        !code.contains("let __nuda_h1"),
        "lifted out of a branch: {code}"
    );
}
