use nuda::prelude::*;
fn main() {
    let n = 8;
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 {
        let mut s = 0.0f32;
        annot!(inline; nfor!(k in n { s += 1.0; }));
        a[i] = s;
    }));
}
