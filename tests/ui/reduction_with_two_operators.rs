use nuda::prelude::*;
fn main() {
    let a = NuArray1::<i32>::new(8);
    let mut s = 0i32;
    let _ = nuwork!(8; nfor!(i in 8 { s += a[i]; if a[i] > 3 { s *= 2; } }));
}
