// Issue 47: a plain read of an element that another iteration updates atomically sees
// the update or not, by the iterations' order: refused.
use nuda::prelude::*;

fn main() -> nuda::Result<()> {
    let n = 1000usize;
    let mut a = NuArray1::<u32>::new(n + 1);
    let mut b = NuArray1::<u32>::new(n);
    nuwork!(64; nfor!(i in n {
        b[i] = a[i];
        a.atomic_add(i + 1, 1);
    }))?;
    Ok(())
}
