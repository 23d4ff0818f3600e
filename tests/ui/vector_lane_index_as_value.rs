use nuda::prelude::*;
fn main() {
    let mut b = NuArray2::<f32>::new((8, 64));
    let _ = nuwork!(1, 8; annot!(vector(4); nfor!((i, j) in (8, 64) {
        b[(i, j)] = b[(i, j)] * (j as f32);
    })));
}
