use nuda::prelude::*;
fn main() {
    let data = vec![1.0f32; 8];
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { a[i] = data[i]; }));
}
