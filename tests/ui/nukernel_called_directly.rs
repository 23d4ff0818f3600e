// A #[nukernel] function runs through nucall!, which passes the device and sizes; a direct
// call says so, at the call, and names nothing generated.
use nuda::prelude::*;

#[nukernel]
fn fill(a: &mut NuArray1<f32>, k: usize) {
    let i = global_id(0);
    a[i] = k as f32;
}

fn main() -> nuda::Result<()> {
    let mut a = NuArray1::<f32>::new(4);
    fill(&mut a, 0)?;
    Ok(())
}
