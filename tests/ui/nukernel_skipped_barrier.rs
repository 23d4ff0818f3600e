use nuda::prelude::*;

// An early `return` some work-items take before a barrier: OpenCL leaves it undefined.
#[nukernel]
fn reverse(out: &mut NuArray1<i32>, tmp: &mut NuArray1<i32>, a: &NuArray1<i32>, n: usize) {
    let g = global_id(0);
    if g >= n {
        return;
    }
    tmp[g] = a[g];
    barrier();
    out[g] = tmp[n - 1 - g];
}

fn main() {}
