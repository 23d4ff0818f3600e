use nuda::prelude::*;
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct P { x: f32, y: f32 }
fn main() {
    let mut a = NuArray1::<P>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { a[i].x = 1.0; }));
}
