//! Which barriers a kernel may have: accepted where every work-item of a group reaches
//! them, refused (naming the cause) where some may not.

use quote::quote;

/// The kernel's error, or `None` if it compiles.
fn error(item: proc_macro2::TokenStream) -> Option<String> {
    crate::entry::nukernel::template(item)
        .err()
        .map(|e| e.to_string())
}

#[test]
fn barriers_in_uniform_control_flow_are_accepted() {
    let ok = [
        quote!(
            fn k(out: &mut NuArray1<i32>, a: &NuArray1<i32>, n: usize) {
                let g = global_id(0);
                if g < n {
                    out[g] = a[g];
                }
                barrier();
                if g < n {
                    out[g] = out[g] + 1;
                }
            }
        ),
        quote!(
            fn k(out: &mut NuArray1<f32>, n: usize) {
                let tiles = (n + 15) / 16;
                let mut acc = 0.0;
                for t in 0..tiles {
                    let w = group_id(0) * 16 + t;
                    barrier();
                    acc += w as f32;
                    if t == n {
                        break;
                    }
                    barrier();
                }
                out[global_id(0)] = acc;
            }
        ),
        quote!(
            fn k(out: &mut NuArray1<u32>, n: usize) {
                let mut s = local_size(0) / 2;
                while s > 0 {
                    barrier();
                    s /= 2;
                }
                barrier();
                if local_id(0) == 0 {
                    return;
                }
                out[global_id(0)] = n as u32;
            }
        ),
    ];
    for k in ok {
        assert_eq!(error(k.clone()), None, "{k}");
    }
}

#[test]
fn an_early_return_before_a_barrier_is_refused() {
    let e = error(quote!(
        fn k(out: &mut NuArray1<u32>, n: usize) {
            let g = global_id(0);
            if g >= n {
                return;
            }
            barrier();
            out[g] = 1;
        }
    ))
    .expect("an error");
    assert!(e.contains("must reach `barrier()`"), "{e}");
    assert!(e.contains("may `return` early"), "{e}");
}

#[test]
fn barriers_under_varying_conditions_and_loops_are_refused() {
    let bad = [
        quote!(
            fn k(a: &NuArray1<u32>) {
                if local_id(0) == 0 {
                    barrier();
                }
            }
        ),
        quote!(
            fn k(a: &NuArray1<u32>) {
                for t in 0..a[global_id(0)] {
                    barrier();
                }
            }
        ),
        quote!(
            fn k(a: &NuArray1<u32>) {
                let mut i = local_id(0);
                while i < 4 {
                    barrier();
                    i += 1;
                }
            }
        ),
        quote!(
            fn k(a: &NuArray1<u32>, n: usize) {
                let mut m = n;
                if local_id(0) == 1 {
                    m = 0;
                }
                for t in 0..m {
                    barrier();
                }
            }
        ),
        quote!(
            fn k(a: &NuArray1<u32>, n: usize) {
                for t in 0..n {
                    barrier();
                    if local_id(0) == t {
                        break;
                    }
                }
            }
        ),
        quote!(
            fn k(a: &NuArray1<u32>, n: usize) {
                for t in 0..n {
                    if global_id(0) == t {
                        continue;
                    }
                    barrier();
                }
            }
        ),
        quote!(
            fn k(a: &NuArray1<u32>, n: usize) {
                let x = local_id(0) < n && {
                    barrier();
                    true
                };
            }
        ),
    ];
    for k in bad {
        let e = error(k.clone()).unwrap_or_else(|| panic!("accepted: {k}"));
        assert!(
            e.contains("depends on the work-item") || e.contains("early"),
            "{e}"
        );
    }
}
