use nuda::prelude::*;
fn main() {
    let (a, b) = (NuArray1::<f32>::new(8), NuArray1::<f32>::new(8));
    let mut out = NuArray1::<f32>::new(8);
    let mut acc = 0.0f32;
    let _ = nuwork!(8; nfor!(i in 8 { acc = acc * a[i] + b[i]; out[i] = acc; }));
}
