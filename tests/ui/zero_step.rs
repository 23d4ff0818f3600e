use nuda::prelude::*;
fn main() {
    let mut b = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in (0..8).step_by(0) { b[i] = 1.0; }));
    let _ = nuwork!(8; nfor!(i in 8 { nfor!(k in 7 <> 0 :/ -0 { b[k] = i as f32; }); }));
}
