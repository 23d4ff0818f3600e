use nuda::prelude::*;
fn main() {
    let twice = |x: f32| x * 2.0;
    let dynamic: &dyn Fn(f32) -> f32 = &twice;
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { a[i] = dynamic(1.0); }));
}
