use nuda::prelude::*;
fn main() {
    let mut a = NuArray2::<f32>::new((64, 64));
    let _ = nuwork!(8; annot!(dmine(16, 32); nfor!((i, j) in (64, 64) { a[(i, j)] = 1.0; })));
}
