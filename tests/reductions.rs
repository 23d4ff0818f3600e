//! Reductions in `nuwork!` (issue 11, item 1).

mod common;

use common::{check, engines};
use nuda::prelude::*;

#[test]
fn smoke() {
    let n = 1000;
    let a = NuArray1::<f32>::from_fn(n, |i| (i % 7) as f32 * 0.5);
    let b = NuArray1::<f32>::from_fn(n, |i| (i % 3) as f32);
    let (sa, sb) = (a.to_vec(), b.to_vec());
    let mut want = (0.0f32, f32::NEG_INFINITY, 0u32, 0u64);
    for i in 0..n {
        want.0 += sa[i] * sb[i];
        want.1 = want.1.max(sa[i]);
        if sa[i] > 0.5 { want.2 += 1; }
        want.3 |= 1u64 << (i % 64);
    }
    check(want, || {
        let mut dot = 0.0f32;
        let mut hi = f32::NEG_INFINITY;
        let mut count = 0u32;
        let mut bits = 0u64;
        nuwork!(256; nfor!(i in n {
            dot += a[i] * b[i];
            hi = hi.max(a[i]);
            if a[i] > 0.5 { count += 1; }
            bits |= 1u64 << (i % 64);
        }))?;
        Ok((dot, hi, count, bits))
    });
    let _ = engines();
}
