//! Scans in `nuwork!` (issue 12, item 1): inclusive and exclusive, every operator on every
//! integer type (exact) and on f32/f64 (within a tolerance, the same bits every run), sizes
//! 0, 1, a work-group minus one and a large prime, several scan variables and reductions in
//! one nest, 2-D nests in row-major order; on an OpenCL device (PoCL in CI) and the native
//! engine, each against the sequential loop in plain Rust.

mod common;

use common::{check, engines};
use nuda::prelude::*;

/// Sizes: empty, one, a work-group (64) minus one, a large prime (a smaller one, still over
/// several grids of groups, on a simulator).
fn scan_sizes() -> Vec<usize> {
    common::sizes(&[0, 1, 63, 100_003], &[0, 1, 63, 4_099])
}

/// A scrambled value from `i`, small and positive.
fn h(i: usize) -> u32 {
    ((i as u64).wrapping_mul(2_654_435_761) >> 9) as u32 % 97
}

/// Every operator on integer type `$t`: inclusive scans of `+`, `*`, `|`, `max`, exclusive
/// ones of `-`, `&`, `^`, `min`, all in one nest, each starting away from its identity.
macro_rules! integer_scans {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            for n in scan_sizes() {
                let a = NuArray1::<$t>::from_fn(n, |i| h(i) as $t);
                let m = NuArray1::<$t>::from_fn(n, |i| (h(i) % 3 + 1) as $t);
                let (va, vm) = (a.to_vec(), m.to_vec());
                let mut want = vec![[0 as $t; 8]; n];
                let mut s = [7 as $t, 2, 1, 0, 9, !(0 as $t), 5, 90];
                for i in 0..n {
                    s[0] = s[0].wrapping_add(va[i]);
                    s[1] = s[1].wrapping_mul(vm[i]);
                    s[2] |= va[i];
                    s[3] = s[3].max(va[i]);
                    want[i][..4].copy_from_slice(&s[..4]);
                    want[i][4..].copy_from_slice(&s[4..]);
                    s[4] = s[4].wrapping_sub(va[i]);
                    s[5] &= va[i] | 64;
                    s[6] ^= va[i];
                    s[7] = s[7].min(va[i]);
                }
                check((want, s), || {
                    let mut out = NuArray2::<$t>::new((n, 8));
                    let (mut add, mut mul, mut or, mut hi) = (7 as $t, 2 as $t, 1 as $t, 0 as $t);
                    let (mut sub, mut and, mut xor, mut lo) = (9 as $t, !(0 as $t), 5 as $t, 90 as $t);
                    nuwork!(64; nfor!(i in n {
                        add += a[i];
                        mul *= m[i];
                        or |= a[i];
                        hi = hi.max(a[i]);
                        out[(i, 0)] = add;
                        out[(i, 1)] = mul;
                        out[(i, 2)] = or;
                        out[(i, 3)] = hi;
                        out[(i, 4)] = sub;
                        out[(i, 5)] = and;
                        out[(i, 6)] = xor;
                        out[(i, 7)] = lo;
                        sub -= a[i];
                        and &= a[i] | 64;
                        xor ^= a[i];
                        lo = lo.min(a[i]);
                    }))?;
                    let v = out.to_vec();
                    let rows = (0..n).map(|i| <[$t; 8]>::try_from(&v[i * 8..i * 8 + 8]).unwrap()).collect::<Vec<_>>();
                    Ok((rows, [add, mul, or, hi, sub, and, xor, lo]))
                });
            }
        }
    };
}

integer_scans!(i32_every_operator, i32);
integer_scans!(u32_every_operator, u32);
integer_scans!(i64_every_operator, i64);
integer_scans!(u64_every_operator, u64);
integer_scans!(u8_every_operator, u8);
integer_scans!(i16_every_operator, i16);
integer_scans!(i8_every_operator, i8);
integer_scans!(u16_every_operator, u16);

/// Float scans: a running sum (inclusive), an exclusive running product and maximum, within
/// a tolerance of the exact values, and the same bits on every run.
macro_rules! float_scans {
    ($name:ident, $t:ty, $tol:expr) => {
        #[test]
        fn $name() {
            for n in scan_sizes() {
                let a = NuArray1::<$t>::from_fn(n, |i| (h(i) as $t + 0.3) / 9.7);
                let p = NuArray1::<$t>::from_fn(n, |i| 1.0 + (h(i) as $t - 48.0) * 1e-5);
                let (va, vp) = (a.to_vec(), p.to_vec());
                // The reference runs in f64: a sequential f32 chain of 10^5 steps is itself
                // further from the exact result than the parallel scan.
                let (mut sum, mut prod, mut hi) = (0.5f64, 1.0f64, <$t>::NEG_INFINITY);
                let mut want = Vec::new();
                for i in 0..n {
                    sum += va[i] as f64;
                    want.push([sum as $t, prod as $t, hi]);
                    prod *= vp[i] as f64;
                    hi = hi.max(va[i]);
                }
                let (sum, prod) = (sum as $t, prod as $t);
                for d in engines() {
                    let run = || {
                        nuda::with_device(d.index, || {
                            let mut out = NuArray2::<$t>::new((n, 3));
                            let (mut s, mut q, mut m) = (0.5 as $t, 1.0 as $t, <$t>::NEG_INFINITY);
                            nuwork!(64; nfor!(i in n {
                                s += a[i];
                                out[(i, 0)] = s;
                                out[(i, 1)] = q;
                                out[(i, 2)] = m;
                                q *= p[i];
                                m = m.max(a[i]);
                            }))?;
                            Ok::<_, nuda::Error>((out.to_vec(), [s, q, m]))
                        })
                        .unwrap()
                        .unwrap()
                    };
                    let first = run();
                    let bits = |v: &(Vec<$t>, [$t; 3])| v.0.iter().chain(&v.1).map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&run()), bits(&first), "on {}: bits differ between runs", d.name);
                    let close = |g: $t, w: $t| (g - w).abs() <= $tol * w.abs().max(1.0);
                    for (i, w) in want.iter().enumerate() {
                        for k in 0..3 {
                            let g = first.0[i * 3 + k];
                            assert!(close(g, w[k]) || (g == w[k]), "on {}: n {n}, element ({i}, {k}): {g} vs {}", d.name, w[k]);
                        }
                    }
                    assert!(close(first.1[0], sum) && close(first.1[1], prod) && first.1[2] == hi, "on {}: {:?}", d.name, first.1);
                }
            }
        }
    };
}

// f32: 10^5 roundings of a running product drift by up to a few 1e-4 in any order.
float_scans!(f32_scans, f32, 2e-3);
float_scans!(f64_scans, f64, 1e-12);

/// Conditional updates, `continue`, several scans and reductions in one nest: a stream
/// compaction by hand (the exclusive count of kept elements is each one's slot).
#[test]
fn scans_and_reductions_in_one_nest() {
    for n in scan_sizes() {
        let a = NuArray1::<i32>::from_fn(n, |i| h(i) as i32 - 40);
        let va = a.to_vec();
        let kept: Vec<i32> = va.iter().copied().filter(|&x| x > 0).collect();
        let total: i64 = va.iter().map(|&x| x as i64).sum();
        let mut best = vec![0i32; n];
        let mut b = i32::MIN;
        for i in 0..n {
            b = b.max(va[i]);
            best[i] = b;
        }
        let negatives = va.iter().filter(|&&x| x < 0).count() as u32;
        check((kept.clone(), best, kept.len(), total, negatives), || {
            let mut out = NuArray1::<i32>::new(n);
            let mut prefix = NuArray1::<i32>::new(n);
            let (mut slot, mut best, mut total, mut neg) = (0usize, i32::MIN, 0i64, 0u32);
            nuwork!(32; nfor!(i in n {
                total += a[i] as i64;
                best = best.max(a[i]);
                prefix[i] = best;
                if a[i] < 0 {
                    neg += 1;
                    continue;
                }
                if a[i] > 0 {
                    out[slot] = a[i];
                    slot += 1;
                }
            }))?;
            let mut v = out.to_vec();
            v.truncate(slot);
            Ok((v, prefix.to_vec(), slot, total, neg))
        });
    }
}

/// A 2-D nest scans in row-major order of its loops.
#[test]
fn two_dimensional_nests_scan_in_row_major_order() {
    for (n, m) in common::sizes(
        &[(0, 4), (1, 1), (7, 13), (130, 37)],
        &[(0, 4), (1, 1), (7, 13), (30, 37)],
    ) {
        let a = NuArray2::<u32>::from_fn((n, m), |(i, j)| h(i * 131 + j));
        let va = a.to_vec();
        let mut want = vec![0u32; n * m];
        let mut acc = 3u32;
        for (k, x) in va.iter().enumerate() {
            want[k] = acc;
            acc += x;
        }
        check((want, acc), || {
            let mut out = NuArray2::<u32>::new((n, m));
            let mut acc = 3u32;
            nuwork!(4, 8; nfor!((i, j) in (n, m) { out[(i, j)] = acc; acc += a[(i, j)]; }))?;
            Ok((out.to_vec(), acc))
        });
    }
}

/// The library conveniences over the loop forms agree with plain Rust.
#[test]
fn library_conveniences() {
    use nuda::{ArrayOps, ScanOp};
    let n = common::sizes(&[10_007], &[1_009])[0];
    let a = NuArray1::<i64>::from_fn(n, |i| h(i) as i64 - 50);
    let va = a.to_vec();
    let mut incl = Vec::new();
    let mut excl = Vec::new();
    let (mut s, mut m) = (0i64, i64::MAX);
    for &x in &va {
        excl.push(m);
        s += x;
        m = m.min(x);
        incl.push(s);
    }
    let want = (
        s,
        va.iter().min().copied(),
        va.iter().max().copied(),
        incl,
        excl,
    );
    check(want, || {
        Ok((
            a.sum()?,
            a.min()?,
            a.max()?,
            a.scan_inclusive(ScanOp::Add)?.to_vec(),
            a.scan_exclusive(ScanOp::Min)?.to_vec(),
        ))
    });
    let empty = NuArray1::<f32>::new(0);
    assert_eq!((empty.sum().unwrap(), empty.max().unwrap()), (0.0, None));
}

/// Issue 12's syntax block, verbatim in its loops, on both engines against plain Rust.
#[test]
fn the_issue_syntax() {
    let (n, m, t) = (1000usize, 300usize, 40u32);
    let a = NuArray1::<u32>::from_fn(n, h);
    let f = NuArray1::<f32>::from_fn(n, |i| h(i) as f32 * 0.5);
    let (va, vf) = (a.to_vec(), f.to_vec());
    let (mut acc, mut run, mut best) = (0u32, 0u64, f32::NEG_INFINITY);
    let (mut wi, mut we, mut wp, mut wk) =
        (vec![0u32; n], vec![0u64; n], vec![0f32; n], Vec::new());
    for i in 0..n {
        acc += va[i];
        wi[i] = acc;
        we[i] = run;
        run += va[i] as u64;
        best = best.max(vf[i]);
        wp[i] = best;
        if va[i] > t {
            wk.push(va[i] * 2);
        }
    }
    let wo: Vec<u32> = wk[..m].iter().map(|x| x + 1).collect();
    check((wi, we, wp, acc, run, wo), || {
        let (mut incl, mut excl) = (NuArray1::<u32>::new(n), NuArray1::<u64>::new(n));
        let mut prefix_max = NuArray1::<f32>::new(n);
        let mut out = NuArray1::<u32>::new(m);
        let mut acc = 0u32;
        nuwork!(256; nfor!(i in n { acc += a[i]; incl[i] = acc; }))?;
        let mut run = 0u64;
        nuwork!(256; nfor!(i in n { excl[i] = run; run += a[i] as u64; }))?;
        let mut best = f32::NEG_INFINITY;
        nuwork!(256; nfor!(i in n { best = best.max(f[i]); prefix_max[i] = best; }))?;
        let mut kept = NuVec::<u32>::new();
        nuwork!(256; nfor!(i in n { if a[i] > t { kept.push(a[i] * 2); } }))?;
        assert!(kept.len() >= m);
        nuwork!(64; nfor!(k in m { out[k] = kept[k] + 1; }))?;
        Ok((
            incl.to_vec(),
            excl.to_vec(),
            prefix_max.to_vec(),
            acc,
            run,
            out.to_vec(),
        ))
    });
}

/// `ArrayOps` comes from the one scalar table (issue 29): every number type has it, `u16`
/// and `i8` too, with Rust's wrapping sums and the operators' identities, on both
/// engines against plain Rust.
#[test]
fn array_ops_cover_every_number_type() {
    macro_rules! each {
        ($($t:ty),*) => {$({
            let n = 1000;
            let a = NuArray1::<$t>::from_fn(n, |i| (h(i) as $t).wrapping_mul(37 as $t));
            let va = a.to_vec();
            let (mut s, mut m, mut incl, mut excl) = (0 as $t, <$t>::MAX, vec![], vec![]);
            for &x in &va {
                excl.push(m);
                s = s.wrapping_add(x);
                m = m.min(x);
                incl.push(s);
            }
            let want = (s, va.iter().copied().min(), va.iter().copied().max(), incl, excl);
            check(want, || {
                Ok((
                    a.sum()?,
                    a.min()?,
                    a.max()?,
                    a.scan_inclusive(ScanOp::Add)?.to_vec(),
                    a.scan_exclusive(ScanOp::Min)?.to_vec(),
                ))
            });
        })*};
    }
    // The two types `ArrayOps` lacked before the table; the others share their code.
    each!(u16, i8);
}
