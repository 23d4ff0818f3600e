use nuda::prelude::*;
fn main() {
    let a = NuArray1::<f32>::new(8);
    let mut b = NuArray1::<f32>::new(8);
    let mut c = NuArray1::<u8>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 { b[i] = a[(i, 0)]; }));
    let _ = nuwork!(8; nfor!(i in 8 { b[i] = a[i as i32]; }));
    let _ = nuwork!(8; nfor!(i in 8 { c[i] = (i as bool) as u8; }));
}
