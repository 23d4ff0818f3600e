use nuda::prelude::*;
struct P { x: f32 }
fn main() {
    let p = P { x: 1.0 };
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { a[i] = p.x; }));
}
