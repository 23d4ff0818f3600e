use nuda::prelude::*;
fn main() {
    let twice = |x: f32| x * 2.0;
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { a[i] = twice(1.0); }));
}
