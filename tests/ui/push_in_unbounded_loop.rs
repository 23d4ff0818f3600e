use nuda::prelude::*;
fn main() {
    let a = NuArray1::<u32>::new(8);
    let mut kept = NuVec::<u32>::new();
    let m = 4usize;
    let _ = nuwork!(8; nfor!(i in 8 { for k in 0..m { if a[i] > k as u32 { kept.push(a[i]); } } }));
}
