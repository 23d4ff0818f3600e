use nuda::prelude::*;
fn main() {
    let a = NuArray1::<f32>::new(8);
    let mut b = NuArray1::<f32>::new(8);
    let mut v = NuVec::<f32>::new();
    let _ = nuwork!(8; nfor!(i in 8 {
        if a[i] > 0.0 { v.push(a[i]); }
        b[i] = v[0];
    }));
    let _ = nuwork!(#[independent] 8; nfor!(i in 8 {
        if a[i] > 0.0 { v.push(a[i]); }
        b[i] = v[0];
    }));
}
