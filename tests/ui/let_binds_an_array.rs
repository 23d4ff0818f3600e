use nuda::prelude::*;
fn main() {
    let a = NuArray1::<f32>::new(8);
    let mut b = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 {
        let c = a;
        b[i] = c[i];
    }));
}
