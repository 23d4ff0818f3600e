use nuda::prelude::*;
fn main() {
    let a = NuArray1::<f32>::new(64);
    let mut b = NuArray1::<f32>::new(64);
    let _ = nuwork!(8; annot!(vector(4); nfor!(i in 64 {
        if a[i] > 0.0 {
            b[i] = a[i];
        }
    })));
}
