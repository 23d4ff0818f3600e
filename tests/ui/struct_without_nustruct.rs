use nuda::prelude::*;
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct P { x: f32 }
fn main() {
    let p = P { x: 1.0 };
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { a[i] = p.x; }));
    let _ = NuArray1::<P>::from_vec(1, vec![p]);
}
