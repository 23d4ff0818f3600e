//! The GPU reduction kernel's grid-stride loop (`emit/cl/reduce.rs`): four strides a round
//! for a small body, so its loads are in flight together; one at a time for a body with a
//! loop of its own or many expressions, whose four copies would only multiply registers.

use nuda_transforms::emit::template::render_for_test;
use quote::quote;

fn text(input: proc_macro2::TokenStream) -> String {
    render_for_test(&nuda_transforms::entry::nuwork::template(input).unwrap())
}

const ROUND: &str = "for (uint nu_u0 = 0; nu_u0 < 4; nu_u0++)";

#[test]
fn a_small_body_takes_four_strides_a_round() {
    let t = text(quote!(256; nfor!(i in n { s += a[i] * b[i]; })));
    assert_eq!(t.matches(ROUND).count(), 1, "{t}");
}

#[test]
fn a_body_with_its_own_loop_takes_one_stride_at_a_time() {
    let t = text(quote!(256; nfor!(i in n {
        let mut h = a[i];
        for k in 0..64 {
            h = h.rotate_left(7) ^ c[k];
        }
        if h == 0 { s += 1u32; }
    })));
    assert!(t.contains("nu_left0 != 0"), "{t}");
    assert!(!t.contains(ROUND), "{t}");
}
