use nuda::prelude::*;
#[nukernel]
fn fill(a: &mut NuArray1<f32>) { a[global_id(0)] = 1.0; }
fn main() {
    let mut a = NuArray1::<f32>::new(8);
    let _ = nucall!(0, [8, 8], [8]; fill(&mut a));
}
