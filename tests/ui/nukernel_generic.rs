use nuda::prelude::*;
#[nukernel]
fn fill<T>(a: &mut NuArray1<f32>, _t: T) { a[global_id(0)] = 1.0; }
fn main() {}
