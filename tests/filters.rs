//! Filters in `nuwork!` (issue 12, item 2): `v.push(x)` on a `NuVec` appends in the order the
//! sequential loop pushes, on an OpenCL device (PoCL in CI) and the native engine, each
//! against plain Rust: order and length, an empty result, every element kept, two vectors in
//! one body, a push inside a constant-trip inner loop, appending to a non-empty vector, and
//! a vector fed to a later kernel with no host round trip.

mod common;

use common::{check, engines, sizes};
use nuda::prelude::*;

fn h(i: usize) -> u32 {
    ((i as u64).wrapping_mul(2_654_435_761) >> 9) as u32 % 97
}

/// Keeps the elements above `t`, doubled, for thresholds that keep some, none and all.
#[test]
fn order_and_length() {
    // Under Oclgrind (`NUDA_TEST_SMALL`), 9,001 still spans three of a GPU's tiles.
    for n in sizes(&[0usize, 1, 63, 1000, 100_003], &[0, 1, 63, 1000, 9_001]) {
        let a = NuArray1::<u32>::from_fn(n, h);
        for t in [40u32, 200, 0] {
            let want: Vec<u32> = a
                .to_vec()
                .iter()
                .filter(|&&x| x > t)
                .map(|x| x * 2)
                .collect();
            check(want, || {
                let mut kept = NuVec::<u32>::new();
                nuwork!(256; nfor!(i in n { if a[i] > t { kept.push(a[i] * 2); } }))?;
                assert_eq!(kept.len(), kept.to_vec().len());
                Ok(kept.to_vec())
            });
        }
    }
}

/// Two vectors, a push in a constant-trip loop, a reduction and a scan in the same body.
#[test]
fn two_vectors_and_constant_trip_loops() {
    let n = 5001;
    let a = NuArray1::<i32>::from_fn(n, |i| h(i) as i32 - 48);
    let va = a.to_vec();
    let mut want = (Vec::new(), Vec::new(), 0i64, vec![0u32; n]);
    let mut seen = 0u32;
    for (i, &x) in va.iter().enumerate() {
        want.3[i] = seen;
        if x < 0 {
            want.0.push(x);
            seen += 1;
        }
        for k in 0..3 {
            if (x + k) % 5 == 0 {
                want.1.push((i as i64) * 10 + k as i64);
            }
        }
        want.2 += x as i64;
    }
    check(want, || {
        let (mut neg, mut pairs) = (NuVec::<i32>::new(), NuVec::<i64>::new());
        let mut before = NuArray1::<u32>::new(n);
        let (mut total, mut seen) = (0i64, 0u32);
        nuwork!(64; nfor!(i in n {
            before[i] = seen;
            if a[i] < 0 {
                neg.push(a[i]);
                seen += 1;
            }
            for k in 0..3 {
                if (a[i] + k) % 5 == 0 {
                    pairs.push((i as i64) * 10 + k as i64);
                }
            }
            total += a[i] as i64;
        }))?;
        Ok((neg.to_vec(), pairs.to_vec(), total, before.to_vec()))
    });
}

/// Pushing again appends after the elements already there.
#[test]
fn pushes_append() {
    let n = 300;
    let a = NuArray1::<u32>::from_fn(n, h);
    let mut want: Vec<u32> = vec![7, 8, 9];
    want.extend(a.to_vec().iter().filter(|&&x| x % 2 == 0));
    want.extend(a.to_vec().iter().filter(|&&x| x % 3 == 0));
    check(want, || {
        let mut v = NuVec::from(vec![7u32, 8, 9]);
        nuwork!(32; nfor!(i in n { if a[i] % 2 == 0 { v.push(a[i]); } }))?;
        nuwork!(32; nfor!(i in n { if a[i] % 3 == 0 { v.push(a[i]); } }))?;
        Ok(v.to_vec())
    });
}

/// A later kernel reads the vector where the filter left it: no download, one length.
#[test]
fn a_vector_feeds_a_later_kernel_without_a_round_trip() {
    let n = 20_000;
    let a = NuArray1::<f32>::from_fn(n, |i| h(i) as f32);
    let kept_host: Vec<f32> = a.to_vec().into_iter().filter(|&x| x > 60.0).collect();
    let m = kept_host.len();
    let want: Vec<f32> = kept_host.iter().map(|x| x + 1.0).collect();
    for d in engines() {
        nuda::with_device(d.index, || {
            a.prefetch(&nuda::current_device()?)?;
            let mut kept = NuVec::<f32>::new();
            nuwork!(128; nfor!(i in n { if a[i] > 60.0 { kept.push(a[i]); } }))?;
            assert_eq!(kept.len(), m, "on {}", d.name);
            let mut out = NuArray1::<f32>::new(m);
            let before = nuda::thread_stats();
            nuwork!(64; nfor!(k in kept.len() { out[k] = kept[k] + 1.0; }))?;
            let moved = nuda::thread_stats() - before;
            assert_eq!(moved.to_host.count, 0, "on {}: {moved:?}", d.name);
            assert_eq!(moved.to_device.count, 0, "on {}: {moved:?}", d.name);
            assert_eq!(out.to_vec(), want, "on {}", d.name);
            Ok::<_, nuda::Error>(())
        })
        .unwrap()
        .unwrap();
    }
}

/// The host API reads like `NuArray1`'s.
#[test]
fn host_api() {
    let v = NuVec::from(vec![3u64, 1, 4]);
    assert_eq!((v.len(), v.is_empty(), v[1]), (3, false, 1));
    assert_eq!(v.iter().sum::<u64>(), 8);
    assert_eq!(v.as_slice(), &[3, 1, 4]);
    assert!(NuVec::<f32>::new().is_empty());
}

/// A push under a loop over a `const` range: the bound is not a literal, and the counter is
/// a `usize`.
#[test]
fn pushes_under_a_constant_item_range() {
    const K: u32 = 3;
    let n = 999;
    let a = NuArray1::<u32>::from_fn(n, h);
    let mut want = Vec::new();
    for x in a.to_vec() {
        for k in 0..K {
            if (x + k) % 4 == 0 {
                want.push(x * 10 + k);
            }
        }
    }
    check(want, || {
        let mut v = NuVec::<u32>::new();
        nuwork!(64; nfor!(i in n { for k in 0..K { if (a[i] + k) % 4 == 0 { v.push(a[i] * 10 + k); } } }))?;
        Ok(v.to_vec())
    });
}

/// Single-pass pushes reserve room for every push and keep what was pushed: a vector pushed
/// to twice in a row (its device buffer larger than its length the second time), read by a
/// later kernel over its length, and read on the host.
#[test]
fn a_vector_pushed_to_twice_keeps_its_length_for_later_kernels() {
    let n = 5_000;
    let a = NuArray1::<u32>::from_fn(n, h);
    let va = a.to_vec();
    let mut want: Vec<u32> = va.iter().filter(|&&x| x > 60).copied().collect();
    want.extend(va.iter().filter(|&&x| x < 5).map(|x| x + 1000));
    let sum: u64 = want.iter().map(|&x| x as u64).sum();
    check((want, sum, 0u64), || {
        let mut v = NuVec::<u32>::new();
        nuwork!(64; nfor!(i in n { if a[i] > 60 { v.push(a[i]); } }))?;
        nuwork!(64; nfor!(i in n { if a[i] < 5 { v.push(a[i] + 1000); } }))?;
        let m = v.len();
        let (mut s, mut past) = (0u64, 0u64);
        nuwork!(64; nfor!(i in m { s += v[i] as u64; }))?;
        // Reading at the length is out of range, as for any array of that length.
        let err = nuwork!(64; nfor!(i in 1usize { past += v[m + i - 1 + 1] as u64; }));
        assert!(err.is_err(), "a read past the pushed length must fail");
        Ok((v.to_vec(), s, past))
    });
}

/// A push launch that fails leaves the vector as it was.
#[test]
fn a_failed_push_launch_leaves_the_vector_as_it_was() {
    let n = 300;
    let a = NuArray1::<u32>::from_fn(n, h);
    check((vec![7u32, 8], true), || {
        let mut v = NuVec::from(vec![7u32, 8]);
        let r = nuwork!(64; nfor!(i in n { if a[i] > 10 { v.push(a[i + n]); } }));
        Ok((v.to_vec(), r.is_err()))
    });
}
