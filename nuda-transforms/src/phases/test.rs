//! The barrier split's plans.

use quote::quote;

#[test]
fn print_reduce() {
    let k = quote!(
        fn group_sums(sums: &mut NuArray1<i32>, a: &NuArray1<i32>, scratch: &mut NuArray1<i32>) {
            let g = global_id(0);
            let l = local_id(0);
            scratch[g] = a[g];
            barrier();
            let mut s = local_size(0) / 2;
            while s > 0 {
                if l < s {
                    scratch[g] += scratch[g + s];
                }
                barrier();
                s /= 2;
            }
            if l == 0 {
                sums[group_id(0)] = scratch[g];
            }
        }
    );
    let out = crate::nukernel::expand(quote!(), k).unwrap();
    std::fs::write("/tmp/reduce_expanded.rs", out.to_string()).unwrap();
}
