use nuda::prelude::*;
fn main() {
    let mut b = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in (0..8).rev().step_by(2) { b[i] = 1.0; }));
}
