use nuda::prelude::*;
#[nukernel]
fn fill(a: &mut NuArray1<f32>) -> f32 { a[global_id(0)] = 1.0; 1.0 }
fn main() {}
