// Issue 47: a read and a write through one index that several iterations share (not one
// to one in the mapped loop variables) race; each is refused with what to write instead.
use nuda::prelude::*;

fn main() -> nuda::Result<()> {
    let n = 1usize << 19;
    let mut a = NuArray1::<u32>::new(n);
    nuwork!(64; nfor!(i in n { a[i / 2] += 1; }))?;
    let idx = NuArray1::<u32>::from_fn(n, |i| (i % 16) as u32);
    let mut h = NuArray1::<u32>::new(16);
    nuwork!(64; nfor!(i in n { h[idx[i] as usize] += 1; }))?;
    nuwork!(64; nfor!(i in n {
        let j = i / 4;
        let t = a[j];
        a[j] = t + 1;
    }))?;
    Ok(())
}
