use nuda::prelude::*;
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct P { x: f32 }
fn main() {
    let a = NuArray1::<P>::new(8);
    let mut same = NuArray1::<bool>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { same[i] = a[i] == a[0]; }));
}
