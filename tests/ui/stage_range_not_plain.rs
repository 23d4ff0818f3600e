use nuda::prelude::*;
fn main() {
    let n = 64usize;
    let a = NuArray2::<f32>::new((n, n));
    let lim = NuArray1::<usize>::new(1);
    let mut c = NuArray1::<f32>::new(n);
    let _ = nuwork!(16; annot!(tilem(16), stage(a, k: 16); nfor!(i in n {
        let mut s = 0.0f32;
        for k in (0..n).step_by(2) { s += a[(k, i)]; }
        c[i] = s;
    })));
    let _ = nuwork!(16; annot!(tilem(16), stage(a, k: 16); nfor!(i in n {
        let mut s = 0.0f32;
        for k in 0..lim[0] { s += a[(k, i)]; }
        c[i] = s;
    })));
}
