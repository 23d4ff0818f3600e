use nuda::prelude::*;
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { a[i] = global_id(0) as f32; }));
}
