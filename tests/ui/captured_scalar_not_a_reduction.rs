use nuda::prelude::*;
fn main() {
    let a = NuArray1::<f32>::new(8);
    let mut last = 0.0f32;
    let _ = nuwork!(8; nfor!(i in 8 { last = a[i] * 2.0; }));
}
