use nuda::prelude::*;
fn main() {
    let a = NuArray1::<f32>::new(8);
    let total = 0.0f32;
    let _ = nuwork!(8; nfor!(i in 8 { total += a[i]; }));
}
