// The iterations of a nuwork! run in parallel: a read of an element another iteration
// writes is refused at compile time, naming the read and the write.
use nuda::prelude::*;

fn main() -> nuda::Result<()> {
    let n = 100usize;
    let mut a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    nuwork!(64; nfor!(i in 0..n - 1 { a[i] = a[i + 1]; }))?;
    Ok(())
}
