use nuda::prelude::*;
fn main() {
    let mut b = vec![0.0f32; 64];
    annot!(unroll(tune(2, 4)); nfor!(i in 64 { b[i] = 1.0; }));
    let mut c = NuArray1::<f32>::new(64);
    let _ = nuwork!(64; nfor!(i in 64 {
        annot!(unroll(tune(2, 4)); nfor!(k in 4 { c[i] += 1.0; }));
    }));
}
