use nuda::prelude::*;
fn helper(x: f32) -> f32 { x * 2.0 }
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { a[i] = helper(1.0); }));
}
