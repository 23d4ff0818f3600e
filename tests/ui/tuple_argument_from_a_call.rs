use nuda::prelude::*;
#[nucode]
fn sum2(p: (f32, f32)) -> f32 {
    p.0 + p.1
}
#[nucode]
fn pair(x: f32) -> (f32, f32) {
    (x, x)
}
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { a[i] = sum2(pair(1.0)); }));
}
