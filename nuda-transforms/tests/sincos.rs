//! `x.sin()` and `x.cos()` of one immutable local fused into one `sincos` in the OpenCL C
//! (`emit/cl/sincos.rs`), and only there.

use nuda_transforms::emit::template::render_for_test;
use quote::quote;

fn text(input: proc_macro2::TokenStream) -> String {
    render_for_test(&nuda_transforms::entry::nuwork::template(input).unwrap())
}

#[test]
fn both_of_one_local_take_one_sincos() {
    let t = text(quote!(64; nfor!(i in n {
        let (mut re, mut im) = (0.0f32, 0.0f32);
        for k in 0..m {
            let arg = w * (kx[k] * x[i]);
            re += p[k] * arg.cos();
            im += p[k] * f32::sin(arg);
        }
        qr[i] = re;
        qi[i] = im;
    })));
    assert_eq!(t.matches("sincos(").count(), 1, "{t}");
    assert!(!t.contains(" sin(") && !t.contains(" cos("), "{t}");
}

#[test]
fn a_local_of_the_body_itself_and_a_block_tail_take_one_sincos() {
    let top = text(quote!(64; nfor!(i in n {
        let a = x[i] * 3.0;
        y[i] = a.sin() * 2.0 + a.cos();
    })));
    assert_eq!(top.matches("sincos(").count(), 1, "{top}");
    let tail = text(quote!(64; nfor!(i in n {
        y[i] = { let a = x[i]; a.sin() * a.cos() };
    })));
    assert_eq!(tail.matches("sincos(").count(), 1, "{tail}");
}

#[test]
fn one_of_them_a_mutable_or_a_rebound_local_stays_as_written() {
    let only_sin = text(quote!(64; nfor!(i in n { let a = x[i]; y[i] = a.sin() + a.sqrt(); })));
    let mutable = text(quote!(64; nfor!(i in n {
        let mut a = x[i];
        let s = a.sin();
        a += 1.0;
        y[i] = s + a.cos();
    })));
    let rebound = text(quote!(64; nfor!(i in n {
        let a = x[i];
        let s = a.sin();
        let a = a * 2.0;
        y[i] = s + a.cos();
    })));
    for t in [only_sin, mutable, rebound] {
        assert!(!t.contains("sincos("), "{t}");
    }
}
