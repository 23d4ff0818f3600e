//! The single-pass scan's look-back over long runs of aggregates (issue 49). A device runs
//! its groups' tiles so close together that most look-backs find their predecessor's
//! inclusive prefix at once (PoCL's threads, Oclgrind's one group at a time), so the walk
//! over aggregates, a GPU's window of 32 and the fold of several windows would go untested.
//! `lookback_test` makes only every `k`th tile publish its inclusive prefix, so tile `t`
//! walks back `t % k` tiles, and caps a GPU tile at 32 iterations so that a small problem
//! has a hundred tiles. Results must not change: integers exactly Rust's, floats the same
//! bits whatever `k`; integer scans alone (their aggregates folded by a tree) too. On the
//! first OpenCL device (PoCL's CPU form here, Oclgrind's GPU form
//! in `scripts/oclgrind`); one test, since the hook is process-wide.

mod common;

use nuda::prelude::*;

/// A `u32` sum (inclusive) and an `i64` maximum (exclusive) from their starts, and a float
/// sum, per element, with the finals.
type Scanned = (Vec<u32>, Vec<i64>, Vec<f32>, (u32, i64, f32));

fn run(data: &[i64], g: usize) -> nuda::Result<Scanned> {
    let n = data.len();
    let a = NuArray1::<i64>::from_fn(n, |i| data[i]);
    let (mut s, mut hi, mut f) = (7u32, -3i64, 0.25f32);
    let mut sums = NuArray1::<u32>::new(n);
    let mut maxes = NuArray1::<i64>::new(n);
    let mut floats = NuArray1::<f32>::new(n);
    nuwork!(g; nfor!(i in n {
        s += a[i] as u32;
        sums[i] = s;
        maxes[i] = hi;
        hi = hi.max(a[i]);
        f += a[i] as f32 / 7.0;
        floats[i] = f;
    }))?;
    Ok((sums.to_vec(), maxes.to_vec(), floats.to_vec(), (s, hi, f)))
}

/// The integer scans of `run` alone: a nest whose scans are all integers folds a
/// look-back's aggregates by a tree (`emit/cl/window.rs`), where `run`'s float keeps the fold.
fn ints(data: &[i64], g: usize) -> nuda::Result<(Vec<u32>, Vec<i64>, u32, i64)> {
    let n = data.len();
    let a = NuArray1::<i64>::from_fn(n, |i| data[i]);
    let (mut s, mut hi) = (7u32, -3i64);
    let mut sums = NuArray1::<u32>::new(n);
    let mut maxes = NuArray1::<i64>::new(n);
    nuwork!(g; nfor!(i in n {
        s += a[i] as u32;
        sums[i] = s;
        maxes[i] = hi;
        hi = hi.max(a[i]);
    }))?;
    Ok((sums.to_vec(), maxes.to_vec(), s, hi))
}

/// Plain Rust's integers.
fn want(data: &[i64]) -> (Vec<u32>, Vec<i64>, u32, i64) {
    let (mut s, mut hi) = (7u32, -3i64);
    let (mut sums, mut maxes) = (Vec::new(), Vec::new());
    for &x in data {
        s = s.wrapping_add(x as u32);
        sums.push(s);
        maxes.push(hi);
        hi = hi.max(x);
    }
    (sums, maxes, s, hi)
}

/// The elements under `keep`, pushed in order.
fn filter(data: &[i64], keep: i64, g: usize) -> nuda::Result<Vec<i64>> {
    let n = data.len();
    let a = NuArray1::<i64>::from_fn(n, |i| data[i]);
    let mut v = NuVec::<i64>::new();
    nuwork!(g; nfor!(i in n {
        if a[i] < keep {
            v.push(a[i]);
        }
    }))?;
    Ok(v.to_vec())
}

#[test]
fn long_look_backs_give_the_same_results() {
    let Some(dev) = common::engines()
        .into_iter()
        .find(|d| d.kind != DeviceKind::Native)
    else {
        return;
    };
    let sizes = common::sizes(&[20_000usize, 4_097], &[3_000, 1_000]);
    for n in sizes {
        let data: Vec<i64> = (0..n as i64)
            .map(|i| (i * 7919 + 13) % 2003 - 1000)
            .collect();
        let (sums, maxes, s, hi) = want(&data);
        for g in [32usize, 64] {
            let mut floats: Option<(Vec<u32>, f32)> = None;
            for every in [1u32, 3, 37, 70] {
                nuda::__private::lookback_test(every, 32);
                let (got, kept, only) = nuda::with_device(dev.index, || {
                    let f = filter(&data, -400, g)?;
                    Ok::<_, nuda::Error>((run(&data, g)?, f, ints(&data, g)?))
                })
                .unwrap()
                .unwrap_or_else(|e| panic!("{}: {e}", dev.name));
                let at = format!("on {}: n {n}, group {g}, every {every}", dev.name);
                let want_ints = (sums.clone(), maxes.clone(), s, hi);
                assert!(
                    only == want_ints,
                    "{at}: integer scans alone differ from Rust's"
                );
                assert!(
                    got.0 == sums && got.1 == maxes,
                    "{at}: integers differ from Rust's"
                );
                assert_eq!((got.3 .0, got.3 .1), (s, hi), "{at}: finals");
                let bits: Vec<u32> = got.2.iter().map(|x| x.to_bits()).collect();
                let first = floats.get_or_insert((bits.clone(), got.3 .2));
                assert!(first.0 == bits, "{at}: float bits differ from every 1's");
                assert_eq!(first.1.to_bits(), got.3 .2.to_bits(), "{at}: float final");
                let want_kept: Vec<i64> = data.iter().copied().filter(|&x| x < -400).collect();
                assert!(kept == want_kept, "{at}: filter");
            }
        }
    }
    nuda::__private::lookback_test(1, usize::MAX);
}
