use nuda::prelude::*;
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { let f = |x: f32| x + 1.0; a[i] = f(1.0); }));
}
