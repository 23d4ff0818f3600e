use nuda::prelude::*;
fn main() {
    let a = NuArray1::<u32>::new(8);
    let mut out = NuArray1::<u32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { let x = a[i].checked_add(1); out[i] = 0; }));
}
