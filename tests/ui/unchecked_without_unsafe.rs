use nuda::prelude::*;
fn main() {
    let mut b = NuArray1::<f32>::new(8);
    let _ = nuwork!(#[unchecked] 8; nfor!(i in 8 { b[i] = 1.0; }));
}
