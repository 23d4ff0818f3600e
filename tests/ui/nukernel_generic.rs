use nuda::prelude::*;
#[nukernel]
fn fill<const N: usize>(a: &mut NuArray1<f32>) { a[global_id(0)] = N as f32; }
fn main() {}
