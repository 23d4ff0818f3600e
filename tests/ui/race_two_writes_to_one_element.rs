// Issue 47: two iterations storing to one element leave whichever came last: refused.
use nuda::prelude::*;

fn main() -> nuda::Result<()> {
    let (n, m) = (1000usize, 64usize);
    let mut w = NuArray1::<usize>::new(n);
    nuwork!(64; nfor!(i in n { w[i / 2] = i; }))?;
    let mut last = NuArray1::<usize>::new(n);
    nuwork!(16, 16; nfor!((i, j) in (n, m) { last[i] = j; }))?;
    Ok(())
}
