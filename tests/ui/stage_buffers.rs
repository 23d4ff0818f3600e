use nuda::prelude::*;
fn main() {
    let n = 64usize;
    let a = NuArray2::<f32>::new((n, n));
    let mut c = NuArray1::<f32>::new(n);
    let mut d = NuArray2::<f32>::new((n, n));
    // Three copies buy nothing over two: refused.
    let _ = nuwork!(16; annot!(tilem(16), stage(a, k: 8, buffers: 3); nfor!(i in n {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)]; });
        c[i] = s;
    })));
    // Double buffering needs a staged loop to alternate over.
    let _ = nuwork!(8, 8; annot!(tilem(8, 8), stage(a, buffers: 2); nfor!((y, x) in (n - 1, n) {
        d[(y, x)] = a[(y + 1, x)];
    })));
}
