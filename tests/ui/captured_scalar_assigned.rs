use nuda::prelude::*;
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let mut total = 0.0f32;
    let _ = nuwork!(8; nfor!(i in 8 { total += 1.0; a[i] = total; }));
}
