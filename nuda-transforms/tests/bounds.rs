//! A `nuwork!` whose work-group sizes are integer literals declares its group on every kernel
//! it emits (`NU_BOUNDS(t)`, which HIP spells `__launch_bounds__(t)`): every launch passes
//! the sizes as written, so a device compiler may budget registers for that group.
//! Sizes it cannot read at compile time, or a group past any GPU's 1,024, declare nothing;
//! a staged nest's tiles keep their own `NU_GROUP`.

use nuda_transforms::emit::template::render_for_test;
use quote::quote;

fn text(input: proc_macro2::TokenStream) -> String {
    render_for_test(&nuda_transforms::entry::nuwork::template(input).unwrap())
}

/// The kernels' definitions, one line each.
fn kernels(t: &str) -> Vec<&str> {
    t.lines().filter(|l| l.contains(" void ")).collect()
}

#[test]
fn literal_sizes_bound_the_group_of_each_kernel() {
    let t = text(
        quote!(16, 16; annot!(dmine(8, 1); nfor!((i, j) in (n, n) { c[(i, j)] = a[(i, j)]; }))),
    );
    let k = kernels(&t);
    assert!(
        !k.is_empty() && k.iter().all(|l| l.contains("NU_BOUNDS(256) ")),
        "{t}"
    );
}

#[test]
fn reductions_and_scans_are_bounded_too() {
    let dot = text(quote!(128; nfor!(i in n { s += a[i] * b[i]; })));
    let scan = text(quote!(64; nfor!(i in n { s += a[i]; out[i] = s; })));
    let filter = text(quote!(32; nfor!(i in n { if a[i] > 0 { v.push(a[i]); } })));
    // The single-pass scan's kernel also asks for 48 warps (`emit/cl/lookback.rs`).
    for (t, bound) in [
        (dot, "NU_BOUNDS(128) "),
        (scan, "NU_BOUNDS_WARPS(64, 48) "),
        (filter, "NU_BOUNDS_WARPS(32, 48) "),
    ] {
        let k = kernels(&t);
        assert!(!k.is_empty() && k.iter().all(|l| l.contains(bound)), "{t}");
    }
}

#[test]
fn sizes_known_only_at_run_time_bound_nothing() {
    for t in [
        text(quote!(g; nfor!(i in n { b[i] = a[i]; }))),
        text(quote!(GROUP, 4; nfor!((i, j) in (n, m) { c[(i, j)] = 1.0f32; }))),
        text(quote!(64, 32; nfor!((i, j) in (n, m) { c[(i, j)] = 1.0f32; }))),
    ] {
        assert!(!t.contains("NU_BOUNDS"), "{t}");
    }
}

#[test]
fn a_staged_nest_keeps_its_fixed_group() {
    let t = text(
        quote!(16, 16; annot!(tilem(64, 64), stage(a, b, k: 16), dmine(4, 4); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        }))),
    );
    let k = kernels(&t);
    let staged: Vec<&&str> = k
        .iter()
        .filter(|l| l.contains("NU_GROUP(16, 16, 1) "))
        .collect();
    assert!(staged.len() == 1 && !staged[0].contains("NU_BOUNDS"), "{t}");
    // The remainders past the tiles run with the same group, as plain kernels.
    let rest = k.iter().filter(|l| !l.contains("NU_GROUP"));
    assert!(rest.clone().count() > 0, "{t}");
    rest.for_each(|l| assert!(l.contains("NU_BOUNDS(256) "), "{t}"));
}

#[test]
fn a_scan_with_a_loop_of_its_own_asks_for_no_warps() {
    let t = text(quote!(256; nfor!(i in n {
        let mut h = a[i];
        for k in 0..64 {
            h = h.rotate_left(7) ^ c[k];
        }
        s += h;
        out[i] = s;
    })));
    let k = kernels(&t);
    assert!(
        !k.is_empty() && k.iter().all(|l| l.contains("NU_BOUNDS(256) ")),
        "{t}"
    );
}
