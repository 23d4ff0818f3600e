//! Privatised atomics (issue 49): a `nuwork!` array updated only by `atomic_add`, `sub`, `or`
//! or `xor` whose values the body drops is counted per work-group in local memory and added
//! into the array once per group where the launch allows it (32- and 64-bit integers, copies
//! of at most 32 KiB), and by plain atomics otherwise. Every form, on PoCL and the native
//! engine, against plain Rust; `scripts/oclgrind` runs this file for races.

mod common;

use common::{check, engines, sizes};
use nuda::prelude::*;

/// Values hashed from their index.
fn values(n: usize) -> NuArray1<u32> {
    NuArray1::from_fn(n, |i| (i as u32).wrapping_mul(2_654_435_761) >> 5)
}

/// Plain Rust's histogram of `v` into `bins` bins.
fn want(v: &NuArray1<u32>, bins: usize) -> Vec<u32> {
    let mut h = vec![0u32; bins];
    for x in v.as_slice() {
        h[*x as usize % bins] += 1;
    }
    h
}

/// Bins that fit the copy, bins past it (the same kernel's plain atomics), and one bin: every
/// count lands, over counts a bin had before the launch.
#[test]
fn bins_in_and_past_local_memory() {
    for n in sizes(&[0usize, 1, 255, 100_003], &[0, 1, 700]) {
        let v = values(n);
        for bins in sizes(&[1usize, 256, 8192, 8193, 100_000], &[1, 256, 9000]) {
            let mut expect = want(&v, bins);
            expect
                .iter_mut()
                .enumerate()
                .for_each(|(b, h)| *h += b as u32 % 3);
            check(expect, || {
                let mut hist = NuArray1::<u32>::from_fn(bins, |b| b as u32 % 3);
                nuwork!(256; nfor!(i in n { hist.atomic_add(v[i] as usize % bins, 1u32); }))?;
                Ok(hist.to_vec())
            });
        }
    }
}

/// `sub` with `add` on signed bins, wrapping past the type's ends as plain Rust's
/// `wrapping_*` do; `or` and `xor` on bit sets.
#[test]
fn signed_bins_and_bit_sets() {
    let n = sizes(&[50_000usize], &[600])[0];
    let v = values(n);
    let mut signed = vec![i32::MAX - 2, i32::MIN + 1, 0, 7];
    let (mut bits, mut parity) = (vec![0u32; 40], vec![0u32; 3]);
    for (i, x) in v.as_slice().iter().enumerate() {
        let k = *x as usize % 4;
        signed[k] = signed[k]
            .wrapping_add(k as i32 + 1)
            .wrapping_sub(i as i32 % 5);
        bits[*x as usize % 40] |= 1 << (i % 32);
        parity[i % 3] ^= *x;
    }
    check((signed, bits, parity), || {
        let mut s = NuArray1::<i32>::from_vec(4, vec![i32::MAX - 2, i32::MIN + 1, 0, 7])?;
        let (mut b, mut p) = (NuArray1::<u32>::new(40), NuArray1::<u32>::new(3));
        nuwork!(64; nfor!(i in n {
            let k = v[i] as usize % 4;
            s.atomic_add(k, k as i32 + 1);
            s.atomic_sub(k, i as i32 % 5);
            b.atomic_or(v[i] as usize % 40, 1u32 << (i % 32));
            p.atomic_xor(i % 3, v[i]);
        }))?;
        Ok((s.to_vec(), b.to_vec(), p.to_vec()))
    });
}

/// A 2-D histogram over a 2-D nest, with a sum in the same nest, a `continue`, and a loop
/// inside: the reduction's tree and the copies share the kernel.
#[test]
fn two_dimensional_bins_beside_a_reduction() {
    let (rows, cols) = (sizes(&[300usize], &[20])[0], 97usize);
    let v = values(rows * cols);
    let (mut grid, mut total) = (vec![0u32; 16 * 8], 0u64);
    for r in 0..rows {
        for c in 0..cols {
            let x = v[r * cols + c];
            if x.is_multiple_of(7) {
                continue;
            }
            for k in 0..2u32 {
                grid[(x as usize % 16) * 8 + (x as usize + k as usize) % 8] += 1;
            }
            total += x as u64 % 1000;
        }
    }
    check((grid, total), || {
        let mut g = NuArray2::<u32>::new((16, 8));
        let mut t = 0u64;
        nuwork!(4, 32; nfor!((r, c) in (rows, cols) {
            let x = v[r * cols + c];
            if x % 7 == 0 {
                continue;
            }
            for k in 0..2usize {
                g.atomic_add((x as usize % 16, (x as usize + k) % 8), 1u32);
            }
            t += x as u64 % 1000;
        }))?;
        Ok((g.to_vec(), t))
    });
}

/// 64-bit bins where the device has 64-bit atomics; a clear error where it does not.
#[test]
fn sixty_four_bit_bins() {
    let n = sizes(&[20_000usize], &[500])[0];
    let v = values(n);
    let mut expect = vec![u64::MAX - 1_000; 64];
    for x in v.as_slice() {
        let b = *x as usize % 64;
        expect[b] = expect[b].wrapping_add((*x as u64) << 12);
    }
    for d in engines() {
        let mut h = NuArray1::<u64>::from_vec(64, vec![u64::MAX - 1_000; 64]).unwrap();
        let r = nuda::with_device(d.index, || {
            nuwork!(128; nfor!(i in n { h.atomic_add(v[i] as usize % 64, (v[i] as u64) << 12); }))
        })
        .unwrap();
        match (r, d.int64_atomics) {
            (Ok(()), true) => assert_eq!(h.to_vec(), expect, "{}", d.name),
            (Err(e), false) => assert!(e.to_string().contains("cl_khr_int64_base_atomics"), "{e}"),
            (r, has) => panic!("{}: int64 atomics {has}, launch gave {r:?}", d.name),
        }
    }
}

/// A bin out of range is the launch's error, naming the array and the line, and the counts
/// in range still land.
#[test]
fn a_bin_out_of_range_is_an_error() {
    let mut expect = vec![0u32; 10];
    (0..40usize)
        .filter(|i| i / 2 % 11 < 10)
        .for_each(|i| expect[i / 2 % 11] += 1);
    for d in engines() {
        let mut hist = NuArray1::<u32>::new(10);
        let r = nuda::with_device(
            d.index,
            || nuwork!(8; nfor!(i in 40usize { hist.atomic_add(i / 2 % 11, 1u32); })),
        )
        .unwrap();
        let e = r.unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("`hist`") && text.contains("histograms.rs"),
            "{}: {text}",
            d.name
        );
        assert_eq!(hist.to_vec(), expect, "{}", d.name);
    }
}

/// The bench's `#[nukernel]` form: each group counts into `nulocal!` bins, then adds each
/// non-zero bin into `hist`, which the native engine counts into a copy per worker (`sub`
/// composes into the copy's add). `hist` starts from non-zero counts.
#[nukernel]
fn sub_histogram(hist: &mut NuArray1<i64>, v: &NuArray1<u32>, down: bool) {
    let part = nulocal!(i64, 64);
    let l = local_id(0);
    part[l] = 0;
    barrier();
    let i = global_id(0);
    if i < v.len() {
        part.atomic_add((v[i] % 64) as usize, 1i64);
    }
    barrier();
    if part[l] != 0 {
        if down {
            hist.atomic_sub(l, part[l]);
        } else {
            hist.atomic_add(l, part[l]);
        }
    }
}

#[test]
fn nukernel_sub_histograms_land_in_every_bin() {
    for n in sizes(&[0usize, 1, 63, 100_032], &[0, 1, 640]) {
        let v = values(n);
        for down in [false, true] {
            let sign = if down { -1 } else { 1 };
            let expect: Vec<i64> = (want(&v, 64).iter().enumerate())
                .map(|(b, &h)| b as i64 + sign * i64::from(h))
                .collect();
            check(expect, || {
                let mut hist = NuArray1::<i64>::from_fn(64, |b| b as i64);
                let dev = nuda::current_device()?.index();
                nucall!(dev, [n.div_ceil(64) * 64], [64]; sub_histogram(&mut hist, &v, down))?;
                Ok(hist.to_vec())
            });
        }
    }
}
