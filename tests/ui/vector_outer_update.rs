use nuda::prelude::*;
fn main() {
    let a = NuArray2::<f32>::new((8, 64));
    let mut b = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 {
        let mut s = 0.0f32;
        annot!(vector(4); nfor!(j in 64 { s += a[(i, j)]; }));
        b[i] = s;
    }));
}
