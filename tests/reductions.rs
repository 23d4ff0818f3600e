//! Reductions in `nuwork!` (issue 11, item 1): every operator on every required element type,
//! several variables per nest, conditional updates, 1-D to 3-D nests, annotated nests with
//! remainders, sizes no work-group divides, n = 0 and n = 1; on an OpenCL device (PoCL in CI)
//! and the native engine, each against the sequential loop in plain Rust. Float inputs are
//! chosen so that every order of the operations gives the same exact result, except in the
//! test of bit-identical runs, which compares with a tolerance.

mod common;

use common::{check, engines};
use nuda::prelude::*;

/// Sizes: empty, one, a multiple of the group size, and sizes no group size divides.
const SIZES: [usize; 5] = [0, 1, 256, 1000, 4099];

/// A scrambled value from `i`, small and positive.
fn h(i: usize) -> u32 {
    ((i as u64).wrapping_mul(2_654_435_761) >> 9) as u32 % 97
}

/// Integer types: `+=`, `-=`, `*=`, `|=`, `&=`, `^=`, `max`, `min` and a conditional count, in
/// one nest, each variable starting away from its operator's identity.
macro_rules! integer_ops {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            for n in SIZES {
                let a = NuArray1::<$t>::from_fn(n, |i| h(i) as $t);
                let m = NuArray1::<$t>::from_fn(n, |i| (h(i) % 7 + 1) as $t);
                let (va, vm) = (a.to_vec(), m.to_vec());
                let mut want = (5 as $t, 3 as $t, 2 as $t, 64 as $t, !(0 as $t), 9 as $t, 1 as $t, 90 as $t, 0u32);
                for i in 0..n {
                    want.0 = want.0.wrapping_add(va[i]);
                    want.1 = want.1.wrapping_sub(va[i]);
                    want.2 = want.2.wrapping_mul(vm[i]);
                    want.3 |= va[i];
                    want.4 &= va[i] | 64;
                    want.5 ^= va[i];
                    want.6 = want.6.max(va[i]);
                    want.7 = want.7.min(va[i]);
                    if va[i] % 3 == 0 {
                        want.8 += 1;
                    }
                }
                check(want, || {
                    let (mut add, mut sub, mut mul) = (5 as $t, 3 as $t, 2 as $t);
                    let (mut or, mut and, mut xor) = (64 as $t, !(0 as $t), 9 as $t);
                    let (mut hi, mut lo, mut count) = (1 as $t, 90 as $t, 0u32);
                    nuwork!(64; nfor!(i in n {
                        add += a[i];
                        sub -= a[i];
                        mul *= m[i];
                        or |= a[i];
                        and &= a[i] | 64;
                        xor ^= a[i];
                        hi = hi.max(a[i]);
                        lo = lo.min(a[i]);
                        if a[i] % 3 == 0 {
                            count += 1;
                        }
                    }))?;
                    Ok((add, sub, mul, or, and, xor, hi, lo, count))
                });
            }
        }
    };
}

integer_ops!(i32_every_operator, i32);
integer_ops!(u32_every_operator, u32);
integer_ops!(i64_every_operator, i64);
integer_ops!(u64_every_operator, u64);

/// Float types: `+=`, `-=`, `*=`, `max`, `min`, on values whose results are exact in every
/// order (quarters for sums, powers of two for the product).
macro_rules! float_ops {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            for n in SIZES {
                let a = NuArray1::<$t>::from_fn(n, |i| h(i) as $t * 0.25 - 8.0);
                let p = NuArray1::<$t>::from_fn(n, |i| match i % 64 {
                    0 => 2.0,
                    32 => 0.5,
                    _ => 1.0,
                });
                let (va, vp) = (a.to_vec(), p.to_vec());
                let mut want = (1.5 as $t, -2.0 as $t, 3.0 as $t, <$t>::NEG_INFINITY, 100.0 as $t);
                for i in 0..n {
                    want.0 += va[i];
                    want.1 -= va[i];
                    want.2 *= vp[i];
                    want.3 = want.3.max(va[i]);
                    want.4 = want.4.min(va[i]);
                }
                check(want, || {
                    let (mut add, mut sub, mut mul) = (1.5 as $t, -2.0 as $t, 3.0 as $t);
                    let (mut hi, mut lo) = (<$t>::NEG_INFINITY, 100.0 as $t);
                    nuwork!(100; nfor!(i in n {
                        add += a[i];
                        sub -= a[i];
                        mul *= p[i];
                        hi = hi.max(a[i]);
                        lo = lo.min(a[i]);
                    }))?;
                    Ok((add, sub, mul, hi, lo))
                });
            }
        }
    };
}

float_ops!(f32_every_operator, f32);
float_ops!(f64_every_operator, f64);

/// The issue's example, verbatim: a dot product, a maximum, a conditional count and bits.
#[test]
fn the_issue_example() {
    let n = 3001;
    let a = NuArray1::<f32>::from_fn(n, |i| (h(i) % 8) as f32 * 0.125);
    let b = NuArray1::<f32>::from_fn(n, |i| (i % 4) as f32);
    let (va, vb) = (a.to_vec(), b.to_vec());
    let mut want = (0.0f32, f32::NEG_INFINITY, 0u32, 0u64);
    for i in 0..n {
        want.0 += va[i] * vb[i];
        want.1 = want.1.max(va[i]);
        if va[i] > 0.5 {
            want.2 += 1;
        }
        want.3 |= 1u64 << (i % 64);
    }
    check(want, || {
        let mut dot = 0.0f32;
        let mut hi = f32::NEG_INFINITY;
        let mut count = 0u32;
        let mut bits = 0u64;
        nuwork!(256; nfor!(i in n {
            dot += a[i] * b[i];            // +=, -=, *=
            hi = hi.max(a[i]);             // s = s.max(e), s = s.min(e)
            if a[i] > 0.5 { count += 1; }  // conditional updates
            bits |= 1u64 << (i % 64);      // |=, &=, ^=
        }))?;
        Ok((dot, hi, count, bits))
    });
}

/// 2-D and 3-D nests, with sizes no group divides, and `continue`.
#[test]
fn two_and_three_dimensional_nests() {
    for (n, m, k) in [(0, 5, 3), (1, 1, 1), (37, 29, 5), (64, 16, 2)] {
        let a = NuArray2::<i64>::from_fn((n, m), |(i, j)| h(i * 31 + j) as i64 - 40);
        let c = NuArray3::<u32>::from_fn((n, m, k), |(i, j, l)| h(i * 7 + j * 3 + l));
        let (va, vc) = (a.to_vec(), c.to_vec());
        let mut want = (0i64, i64::MIN, 0usize, 0u32);
        for i in 0..n {
            for j in 0..m {
                let x = va[i * m + j];
                want.0 += x;
                want.1 = want.1.max(x * 2);
                if x >= 0 {
                    want.2 += 1;
                }
                for l in 0..k {
                    want.3 = want.3.max(vc[(i * m + j) * k + l] + l as u32);
                }
            }
        }
        check(want, || {
            let (mut sum, mut hi, mut count, mut top) = (0i64, i64::MIN, 0usize, 0u32);
            nuwork!(8, 4; nfor!((i, j) in (n, m) {
                sum += a[(i, j)];
                hi = hi.max(a[(i, j)] * 2);
                if a[(i, j)] < 0 {
                    continue;
                }
                count += 1;
            }))?;
            nuwork!(4, 4, 2; nfor!((i, j, l) in (n, m, k) {
                top = top.max(c[(i, j, l)] + l as u32);
            }))?;
            Ok((sum, hi, count, top))
        });
    }
}

/// Annotated nests: dmine's copies update the same variables and its remainder kernels
/// contribute; tilem's partial tiles too.
#[test]
fn annotated_nests_with_remainders() {
    for (n, m) in [(0, 3), (1, 1), (13, 11), (40, 33)] {
        let a = NuArray2::<u32>::from_fn((n, m), |(i, j)| h(i * 17 + j));
        let va = a.to_vec();
        let sum: u64 = va.iter().map(|&x| x as u64).sum();
        let hi = va.iter().copied().fold(0u32, u32::max);
        let odd = va.iter().filter(|&&x| x % 2 == 1).count() as u32;
        check((sum, hi, odd, sum), || {
            let (mut s, mut top, mut odd, mut s2) = (0u64, 0u32, 0u32, 0u64);
            nuwork!(4, 8; annot!(dmine(2, 2); nfor!((i, j) in (n, m) {
                s += a[(i, j)] as u64;
                top = top.max(a[(i, j)]);
                if a[(i, j)] % 2 == 1 { odd += 1; }
            })))?;
            nuwork!(4, 4; annot!(tilem(8, 8); nfor!((i, j) in (n, m) {
                s2 += a[(i, j)] as u64;
            })))?;
            Ok((s, top, odd, s2))
        });
    }
}

/// Flags and pointer-sized integers: `any |= ..` on a bool, a usize count.
#[test]
fn bools_and_pointer_sized_integers() {
    let n = 777;
    let a = NuArray1::<u32>::from_fn(n, h);
    let va = a.to_vec();
    let want = (
        va.contains(&96),
        va.iter().all(|&x| x < 97),
        va.iter().map(|&x| x as usize).sum::<usize>(),
        -(va.iter().filter(|&&x| x > 50).count() as isize),
    );
    check(want, || {
        let (mut any, mut all, mut total, mut neg) = (false, true, 0usize, 0isize);
        nuwork!(64; nfor!(i in n {
            any |= a[i] == 96;
            all &= a[i] < 97;
            total += a[i] as usize;
            if a[i] > 50 { neg -= 1; }
        }))?;
        Ok((any, all, total, neg))
    });
}

/// Float sums of inexact values are reassociated, but the same on every run for a given
/// device, size and group size, and close to the exact sum.
#[test]
fn float_results_are_bit_identical_across_runs() {
    let n = 100_003;
    let a = NuArray1::<f32>::from_fn(n, |i| (h(i) as f32 + 0.1) / 7.3);
    let b = NuArray1::<f64>::from_fn(n, |i| 1.0 / (1.0 + i as f64));
    let exact: f64 = a.to_vec().iter().map(|&x| x as f64).sum();
    let exact_b: f64 = b.to_vec().iter().rev().sum();
    for d in engines() {
        let run = || {
            nuda::with_device(d.index, || {
                let (mut s, mut t) = (0.0f32, 0.0f64);
                nuwork!(128; nfor!(i in n { s += a[i]; t += b[i]; }))?;
                Ok::<_, nuda::Error>((s.to_bits(), t.to_bits()))
            })
            .unwrap()
            .unwrap()
        };
        let first = run();
        for _ in 0..3 {
            assert_eq!(run(), first, "on {}", d.name);
        }
        let (s, t) = (f32::from_bits(first.0) as f64, f64::from_bits(first.1));
        assert!(
            (s - exact).abs() <= 1e-5 * exact,
            "on {}: {s} vs {exact}",
            d.name
        );
        assert!(
            (t - exact_b).abs() <= 1e-12 * exact_b,
            "on {}: {t} vs {exact_b}",
            d.name
        );
    }
}

/// A failed launch leaves the variable as it was: a fault in the body is the launch's error.
#[test]
fn an_error_leaves_the_variable_unchanged() {
    let a = NuArray1::<u32>::from_fn(10, |i| i as u32);
    for d in engines() {
        nuda::with_device(d.index, || {
            let mut s = 7u32;
            let r = nuwork!(4; nfor!(i in 11 { s += a[i]; }));
            let e = r.expect_err("index 10 is out of range");
            assert!(e.to_string().contains("`a`"), "{e}");
            assert_eq!(s, 7);
        })
        .unwrap();
    }
}

/// A GPU work-item takes its grid strides four a round while four are left, then one at a
/// time (issue 49): sizes from under one round of the whole grid to several, each with a
/// remainder, must count every iteration once, in a reduction and in a privatised
/// histogram beside it. On PoCL this is the CPU form; `scripts/oclgrind` runs the GPU one
/// (one compute unit: a grid of 32 groups).
#[test]
fn grid_strides_take_every_iteration_once() {
    let grid = 32 * 32;
    for n in [
        grid - 1,
        3 * grid + 5,
        4 * grid,
        4 * grid + 1,
        9 * grid + 31,
    ] {
        let want_sum: u64 = (0..n as u64).map(|i| i * 3 + 1).sum();
        let mut want_hist = vec![0u32; 97];
        (0..n).for_each(|i| want_hist[i % 97] += 1);
        check((want_sum, n as u32, n as u64 - 1, want_hist), || {
            let mut hist = NuArray1::<u32>::new(97);
            let (mut sum, mut count, mut hi) = (0u64, 0u32, 0u64);
            nuwork!(32; nfor!(i in n {
                sum += i as u64 * 3 + 1;
                count += 1;
                hi = hi.max(i as u64);
                hist.atomic_add(i % 97, 1u32);
            }))?;
            Ok((sum, count, hi, hist.to_vec()))
        });
    }
}
