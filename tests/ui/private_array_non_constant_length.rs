use nuda::prelude::*;
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { let n = i + 1; let t = [0.5f32; n]; a[i] = t[0]; }));
}
