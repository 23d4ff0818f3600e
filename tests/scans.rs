//! Scans in `nuwork!` (issue 12, item 1).

mod common;

use common::check;
use nuda::prelude::*;

#[test]
fn smoke() {
    for n in [0usize, 1, 255, 1000, 100_003] {
        let a = NuArray1::<u32>::from_fn(n, |i| (i % 7) as u32);
        let va = a.to_vec();
        let (mut incl, mut excl) = (vec![0u32; n], vec![0u64; n]);
        let (mut acc, mut run, mut cnt) = (0u32, 0u64, 0u32);
        for i in 0..n {
            acc += va[i];
            incl[i] = acc;
            excl[i] = run;
            run += va[i] as u64;
            cnt += 1;
        }
        check((incl, excl, acc, run, cnt), || {
            let mut i1 = NuArray1::<u32>::new(n);
            let mut e1 = NuArray1::<u64>::new(n);
            let (mut acc, mut run, mut cnt) = (0u32, 0u64, 0u32);
            nuwork!(256; nfor!(i in n { acc += a[i]; i1[i] = acc; }))?;
            nuwork!(256; nfor!(i in n { e1[i] = run; run += a[i] as u64; cnt += 1; }))?;
            Ok((i1.to_vec(), e1.to_vec(), acc, run, cnt))
        });
    }
}
