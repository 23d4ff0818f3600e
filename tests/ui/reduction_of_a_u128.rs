use nuda::prelude::*;
fn main() {
    let a = NuArray1::<u32>::new(8);
    let mut big = 0u128;
    let _ = nuwork!(8; nfor!(i in 8 { if a[i] > 3 { big += 1; } }));
}
