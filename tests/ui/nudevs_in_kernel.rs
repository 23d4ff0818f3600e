use nuda::prelude::*;

fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 {
        annot!(nudevs; nfor!(d in 2 { a[i] = d as f32; }));
    }));
}
