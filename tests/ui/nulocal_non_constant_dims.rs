use nuda::prelude::*;

#[nukernel]
fn k(out: &mut NuArray1<u32>, n: usize) {
    let part = nulocal!(u32, n);
    part[local_id(0)] = 1;
    barrier();
    out[global_id(0)] = part[0];
}

fn main() {}
