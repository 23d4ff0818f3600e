use nuda::prelude::*;
fn main() {
    let n = 64usize;
    let mut a = NuArray2::<f32>::new((n, n));
    let _ = nuwork!(16; annot!(tilem(16), stage(a, k: 16); nfor!(i in n {
        nfor!(k in n { a[(k, i)] = a[(k, i)] + 1.0; });
    })));
}
