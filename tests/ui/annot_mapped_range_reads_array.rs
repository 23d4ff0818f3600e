use nuda::prelude::*;
fn main() {
    let a = NuArray1::<u32>::from_fn(4, |i| i as u32);
    let mut out = NuArray1::<u32>::new(8);
    // The annotation would read `a[0]` again inside the kernel.
    let _ = nuwork!(4; annot!(tilem(4); nfor!(i in a[0] as usize..8 { out[i] = 1; })));
}
