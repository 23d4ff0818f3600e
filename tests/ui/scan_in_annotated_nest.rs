use nuda::prelude::*;
fn main() {
    let a = NuArray1::<u32>::new(8);
    let mut out = NuArray1::<u32>::new(8);
    let mut acc = 0u32;
    let _ = nuwork!(4; annot!(dmine(2); nfor!(i in 8 { acc += a[i]; out[i] = acc; })));
}
