use nuda::prelude::*;
fn main() {
    let a = NuArray1::<f32>::new(64);
    let mut b = NuArray1::<f32>::new(64);
    let _ = nuwork!(tune(8, 16, 32, 64); annot!(dmine(tune(1, 2, 3, 4, 5, 6, 7, 8, 9)); nfor!(i in 64 {
        b[i] = a[i];
    })));
}
