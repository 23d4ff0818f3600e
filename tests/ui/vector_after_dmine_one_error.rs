use nuda::prelude::*;
fn main() {
    // `dmine` makes 8 copies of the statement, each with its own `p`: one error per cause (the
    // factor 4 on the vectorised loop, and the array), naming the user's `p`.
    let mut c = NuArray2::<f32>::new((8, 64));
    let a = NuArray2::<f32>::new((8, 64));
    let _ = nuwork!(1, 8; annot!(dmine(2, 4), vector(4); nfor!((i, j) in (8, 64) {
        let p = [a[(i, j)], 1.0];
        c[(i, j)] = p[1] + p[0];
    })));
}
