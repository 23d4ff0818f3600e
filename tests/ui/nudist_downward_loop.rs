// Issue 47: a nudist loop counts up through the ranks' blocks of rows; a downward outer loop
// ran nothing on every rank, with no error.
use nuda::prelude::*;

fn main() -> nuda::Result<()> {
    let world = nuda::dist::init()?;
    let n = 10i64;
    let mut b = NuDist1::<i64>::new(&world, n as usize, 0)?;
    annot!(nudist; nuwork!(4; nfor!(i in n - 1 <> 0 :/ -1 { b[i as usize] = i; })))?;
    Ok(())
}
