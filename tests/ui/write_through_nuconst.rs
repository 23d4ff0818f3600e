use nuda::prelude::*;
fn main() {
    let t = NuArray1::<f32>::new(8);
    let k = t.as_const();
    let _ = nuwork!(8; nfor!(i in 8 { k[i] = 1.0; }));
}
