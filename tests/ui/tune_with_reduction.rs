use nuda::prelude::*;
fn main() {
    let a = NuArray1::<f32>::new(64);
    let mut s = 0.0f32;
    let _ = nuwork!(64; annot!(unroll(tune(1, 2)); nfor!(i in 64 { s += a[i]; })));
}
