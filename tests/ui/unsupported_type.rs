use nuda::prelude::*;
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { let v: Vec<f32> = 1.0; a[i] = 1.0; }));
}
