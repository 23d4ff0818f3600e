#![deny(unused_must_use)]
use nuda::prelude::*;
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    nuwork!(8; nfor!(i in 8 { a[i] = 1.0; }));
}
