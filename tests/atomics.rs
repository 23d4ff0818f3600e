//! Atomics on arrays (issue 11, item 2): `a.atomic_add(i, v)` and its siblings in `nuwork!`
//! and `#[nukernel]`, on an OpenCL device (PoCL in CI) and on the native engine, each
//! compared with plain Rust; the same methods on the host.

mod common;

use common::{check, engines};
use nuda::prelude::*;

/// A histogram of 100,000 values into 256 bins: every count lands, on every engine.
#[test]
fn a_histogram_counts_every_value() {
    let n = 100_000;
    let v = NuArray1::<u32>::from_fn(n, |i| ((i as u64 * 2_654_435_761) >> 7) as u32);
    let mut want = vec![0u32; 256];
    for x in v.as_slice() {
        want[(*x % 256) as usize] += 1;
    }
    check(want, || {
        let mut hist = NuArray1::<u32>::new(256);
        nuwork!(64; nfor!(i in n {
            let k = (v[i] % 256) as usize;
            hist.atomic_add(k, 1u32);
        }))?;
        Ok(hist.to_vec())
    });
}

/// Atomics in an annotated nest: dmine's copies and its remainder each count once, and the
/// annotation never hoists an atomic out of its loop.
#[test]
fn atomics_in_annotated_nests() {
    let n = 1001;
    check(vec![n as u32, (n * 3) as u32], || {
        let mut c = NuArray1::<u32>::new(2);
        nuwork!(16; annot!(dmine(4); nfor!(i in n { if i < n { c.atomic_add(0, 1u32); } })))?;
        nuwork!(16; nfor!(i in n {
            annot!(unroll(2); nfor!(k in 3usize { if k + i < n + 3 { c.atomic_add(1, 1u32); } }));
        }))?;
        Ok(c.to_vec())
    });
}

/// Each work-item's `atomic_add` returns a different previous value: 0 to n - 1.
#[test]
fn previous_values_are_distinct() {
    let n = 5000;
    check((0..n as u32).collect::<Vec<_>>(), || {
        let mut counter = NuArray1::<u32>::new(1);
        let mut prev = NuArray1::<u32>::new(n);
        nuwork!(32; nfor!(i in n { prev[i] = counter.atomic_add(0, 1u32); }))?;
        assert_eq!(counter[0], n as u32);
        let mut got = prev.to_vec();
        got.sort_unstable();
        Ok(got)
    });
}

/// A lock-free maximum of f32 values, built on `atomic_cmpxchg`.
#[test]
fn compare_exchange_builds_a_lock_free_float_max() {
    let n = 4096;
    let v = NuArray1::<f32>::from_fn(n, |i| ((i * 7919) % 10007) as f32 * 0.25 - 100.0);
    let want = v
        .as_slice()
        .iter()
        .copied()
        .fold(f32::NEG_INFINITY, f32::max);
    check(want, || {
        let mut m = NuArray1::<f32>::from_vec(1, vec![f32::NEG_INFINITY])?;
        nuwork!(64; nfor!(i in n {
            let x = v[i];
            // A guess: a plain read of `m[0]` would race with the other work-items' atomics
            // (the dependence test refuses it), and the loop corrects any guess.
            let mut old = f32::NEG_INFINITY;
            while x > old {
                let prev = m.atomic_cmpxchg(0, old, x);
                if prev == old {
                    old = x;
                } else {
                    old = prev;
                }
            }
        }))?;
        Ok(m[0])
    });
}

/// Every operation on i32 and u32, many work-items on a few elements, against plain Rust.
#[test]
fn every_operation_on_32_bit_integers() {
    let n = 3000;
    let want_i = fold_i32(n);
    check(want_i, || {
        let mut r = NuArray1::<i32>::from_vec(6, vec![0, 0, i32::MAX, i32::MIN, 0, -1])?;
        nuwork!(16; nfor!(i in n {
            let x = (i as i32 * 37) % 1001 - 500;
            r.atomic_add(0, x);
            r.atomic_sub(1, x * 3);
            r.atomic_min(2, x);
            r.atomic_max(3, x);
            r.atomic_or(4, 1i32 << (i % 31));
            r.atomic_and(5, !(1i32 << (i % 29)));
        }))?;
        Ok(r.to_vec())
    });
    check(fold_u32(n), || {
        let mut r = NuArray1::<u32>::from_vec(3, vec![u32::MAX - 5, 0, 0])?;
        nuwork!(16; nfor!(i in n {
            r.atomic_add(0, 1u32);
            r.atomic_xor(1, i as u32);
            r.atomic_max(2, (i as u32 * 2_654_435_761) >> 3);
        }))?;
        Ok(r.to_vec())
    });
}

fn fold_i32(n: usize) -> Vec<i32> {
    let mut r = vec![0, 0, i32::MAX, i32::MIN, 0, -1];
    for i in 0..n {
        let x = (i as i32 * 37) % 1001 - 500;
        r[0] = r[0].wrapping_add(x);
        r[1] = r[1].wrapping_sub(x * 3);
        r[2] = r[2].min(x);
        r[3] = r[3].max(x);
        r[4] |= 1 << (i % 31);
        r[5] &= !(1 << (i % 29));
    }
    r
}

fn fold_u32(n: usize) -> Vec<u32> {
    let mut r = vec![u32::MAX - 5, 0, 0];
    for i in 0..n {
        r[0] = r[0].wrapping_add(1);
        r[1] ^= i as u32;
        r[2] = r[2].max((i as u32).wrapping_mul(2_654_435_761) >> 3);
    }
    r
}

/// f32 add, sub, min, max and exchange; sums of small integers are exact in any order.
#[test]
fn float_operations() {
    let n = 2048;
    let sum: f32 = (0..n).map(|i| (i % 17) as f32).sum();
    check(vec![sum, -sum, -3.0, 16.0 + 7.0], || {
        let mut r = NuArray1::<f32>::from_vec(4, vec![0.0, 0.0, 0.0, 7.0])?;
        nuwork!(32; nfor!(i in n {
            let x = (i % 17) as f32;
            r.atomic_add(0, x);
            r.atomic_sub(1, x);
            r.atomic_min(2, x - 3.0);
            r.atomic_max(3, x + 7.0);
        }))?;
        Ok(r.to_vec())
    });
    check(true, || {
        let mut r = NuArray1::<f32>::new(1);
        nuwork!(8; nfor!(i in 64usize { r.atomic_xchg(0, i as f32 + 1.0); }))?;
        Ok((1.0..=64.0).contains(&r[0]) && r[0].fract() == 0.0)
    });
}

/// A 2-D index, as for `[]`, and a `#[nukernel]`.
#[nukernel]
fn grid_counts(grid: &mut NuArray2<u32>, n: usize) {
    let g = global_id(0);
    if g < n {
        grid.atomic_add((g % 3, g % 5), 1u32);
    }
}

#[test]
fn two_dimensional_indices_in_a_nukernel() {
    let n = 1500;
    let mut want = vec![0u32; 15];
    for g in 0..n {
        want[(g % 3) * 5 + g % 5] += 1;
    }
    for d in engines() {
        let mut grid = NuArray2::<u32>::new((3, 5));
        nucall!(d.index, [n], [64]; grid_counts(&mut grid, n)).unwrap();
        assert_eq!(grid.to_vec(), want, "{}", d.name);
    }
}

/// 64-bit atomics work where the device has them, and are a clear error where it does not.
#[test]
fn sixty_four_bit_atomics_or_a_clear_error() {
    let n = 10_000usize;
    let want = (n as u64 * (n as u64 - 1) / 2) << 20;
    for d in engines() {
        let mut s = NuArray1::<u64>::from_vec(2, vec![0, u64::MAX]).unwrap();
        let r = nuda::with_device(d.index, || {
            nuwork!(64; nfor!(i in n {
                s.atomic_add(0, (i as u64) << 20);
                s.atomic_min(1, i as u64 + 5);
            }))
        })
        .unwrap();
        match (r, d.int64_atomics) {
            (Ok(()), true) => assert_eq!(s.to_vec(), vec![want, 5], "{}", d.name),
            (Err(e), false) => assert!(e.to_string().contains("cl_khr_int64_base_atomics"), "{e}"),
            (r, has) => panic!("{}: int64 atomics {has}, launch gave {r:?}", d.name),
        }
    }
}

/// An out-of-range atomic touches nothing and is the launch's error, naming the array.
#[test]
fn an_out_of_range_atomic_is_an_error() {
    for d in engines() {
        let mut hist = NuArray1::<u32>::new(8);
        let r = nuda::with_device(
            d.index,
            || nuwork!(4; nfor!(i in 16usize { hist.atomic_add(i, 1u32); })),
        )
        .unwrap();
        let e = r.unwrap_err();
        assert!(e.to_string().contains("`hist`"), "{}: {e}", d.name);
        assert!(matches!(e, Error::Kernel { .. }), "{}: {e}", d.name);
        assert_eq!(hist.to_vec(), vec![1; 8], "{}", d.name);
    }
}

/// The host runs the same loop body: the methods exist on `NuArray` too.
#[test]
fn the_host_runs_the_same_code() {
    let v = NuArray1::<u32>::from_fn(1000, |i| (i * 13 % 256) as u32);
    let mut device = NuArray1::<u32>::new(16);
    nuwork!(64; nfor!(i in 1000usize { device.atomic_add((v[i] % 16) as usize, 1u32); })).unwrap();
    let mut host = NuArray1::<u32>::new(16);
    nfor!(i in 1000usize { host.atomic_add((v[i] % 16) as usize, 1u32); });
    assert_eq!(device.to_vec(), host.to_vec());
    assert_eq!(host.atomic_cmpxchg(0, 0, 5), host[0]);
    let before = host[1];
    assert_eq!(host.atomic_cmpxchg(1, before, 99), before);
    assert_eq!(host[1], 99);
}
