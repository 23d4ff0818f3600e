use nuda::prelude::*;
fn main() {
    let a = NuArray1::<f32>::new(64);
    let mut b = NuArray1::<f32>::new(64);
    let _ = nuwork!(8; annot!(vector(3); nfor!(i in 64 { b[i] = a[i]; })));
    let _ = nuwork!(8; annot!(vector(4), unroll(2); nfor!(i in 64 { b[i] = a[i]; })));
}
