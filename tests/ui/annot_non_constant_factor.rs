use nuda::prelude::*;
fn main() {
    let u = 4;
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; annot!(unroll(u); nfor!(i in 8 { a[i] = 1.0; })));
}
