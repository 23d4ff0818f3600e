use nuda::prelude::*;
fn main() {
    let n = 64usize;
    let a = NuArray2::<f32>::new((n, n));
    let mut c = NuArray1::<f32>::new(n);
    let mut d = NuArray2::<f32>::new((n, n));
    let _ = nuwork!(16; annot!(stage(a, k: 16); nfor!(i in n {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)]; });
        c[i] = s;
    })));
    let _ = nuwork!(8; annot!(tilem(16), stage(a, k: 16); nfor!(i in n {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)]; });
        c[i] = s;
    })));
    let _ = nuwork!(16, 16; annot!(tilem(64, 64), stage(a, k: 16), dmine(3, 3); nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)]; });
        d[(i, j)] = s + j as f32;
    })));
    let _ = nuwork!(16, 16; annot!(tilem(64, 64), stage(a, k: 16), dmine(4, 4), vector(4); nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, j)]; });
        d[(i, j)] = s + j as f32;
    })));
    let _ = nuwork!(16, 2; annot!(tilem(16, 6), stage(a, k: 16), vector(4); nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, j)]; });
        d[(i, j)] = s + j as f32;
    })));
    let _ = nuwork!(16; annot!(tilem(16), stage(a, k: 16), unroll(2); nfor!(i in n {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)]; });
        c[i] = s;
    })));
}
