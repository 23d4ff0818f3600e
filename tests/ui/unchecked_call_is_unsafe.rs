// Every way to skip bounds checks needs `unsafe`, the hidden API included: a crate that
// forbids unsafe code cannot switch them off for a #[nukernel] launch.
#![forbid(unsafe_code)]
use nuda::prelude::*;

#[nukernel]
fn poke(a: &mut NuArray1<f32>, k: usize) {
    a[k] = 1.0;
}

fn main() -> nuda::Result<()> {
    let mut a = NuArray1::<f32>::new(4);
    let call = nuda::__private::Call::new(0usize, &[4usize], &[1usize]).unchecked();
    poke::__nuda_launch(call, &mut a, 1 << 40)
}
