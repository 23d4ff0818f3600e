// Issue 47: with both loops mapped, the iterations of one row add into one element of `s`.
use nuda::prelude::*;

fn main() -> nuda::Result<()> {
    let (n, m) = (100usize, 100usize);
    let b = NuArray2::<f32>::from_fn((n, m), |(i, j)| (i + j) as f32);
    let mut s = NuArray1::<f32>::new(n);
    nuwork!(16, 16; nfor!((i, j) in (n, m) { s[i] += b[(i, j)]; }))?;
    Ok(())
}
