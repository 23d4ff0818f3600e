use nuda::prelude::*;
fn main() {
    let mut a = NuArray2::<f32>::new((8, 8));
    let _ = nuwork!(8; annot!(permut(2, 2); nfor!((i, j) in (8, 8) { a[(i, j)] = 1.0; })));
}
