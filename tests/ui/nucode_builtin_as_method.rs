use nuda::prelude::*;
#[nucode]
fn inv(x: f32) -> f32 {
    x.rsqrt()
}
fn main() {
    let mut out = NuArray1::<f32>::new(4);
    let _ = nuwork!(4; nfor!(i in 4 { out[i] = inv(i as f32 + 1.0); }));
}
