use nuda::prelude::*;
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { let v = 2.0f32; a[i] = v[i]; }));
}
