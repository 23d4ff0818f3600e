//! `nulocal!` work-group arrays in `#[nukernel]` (issue 11, item 3): a tiled transpose through
//! a 16x17 tile, a work-group tree sum with `barrier()`, local-memory atomics, dims from a
//! `const` item, and an out-of-range local index, on an OpenCL device (PoCL in CI) and on
//! the native engine, each compared with plain Rust.

mod common;

use common::engines;
use nuda::prelude::*;

#[nukernel]
fn transpose(out: &mut NuArray2<f32>, a: &NuArray2<f32>) {
    let tile = nulocal!(f32, (16, 17));
    let (lx, ly) = (local_id(0), local_id(1));
    let (gx, gy) = (group_id(0) * 16, group_id(1) * 16);
    let (n, m) = a.dims();
    if gx + lx < n && gy + ly < m {
        tile[(lx, ly)] = a[(gx + lx, gy + ly)];
    }
    barrier();
    if gy + lx < m && gx + ly < n {
        out[(gy + lx, gx + ly)] = tile[(ly, lx)];
    }
}

#[test]
fn a_tiled_transpose_through_local_memory() {
    let (n, m) = (70, 45);
    let a = NuArray2::<f32>::from_fn((n, m), |(i, j)| (i * 100 + j) as f32);
    for d in engines() {
        let mut out = NuArray2::<f32>::new((m, n));
        nucall!(d.index, [n, m], [16, 16]; transpose(&mut out, &a)).unwrap();
        let bad = (0..m * n).find(|&k| out[(k / n, k % n)] != a[(k % n, k / n)]);
        assert_eq!(bad, None, "{}", d.name);
    }
}

#[nukernel]
fn block_sums(sums: &mut NuArray1<u64>, v: &NuArray1<u32>) {
    let part = nulocal!(u64, 128);
    let l = local_id(0);
    let g = global_id(0);
    part[l] = if g < v.len() { v[g] as u64 } else { 0 };
    barrier();
    let mut s = 64usize;
    while s > 0 {
        if l < s {
            part[l] = part[l] + part[l + s];
        }
        barrier();
        s /= 2;
    }
    if l == 0 {
        sums[group_id(0)] = part[0];
    }
}

#[test]
fn a_work_group_tree_sum() {
    let n = 1000;
    let v = NuArray1::<u32>::from_fn(n, |i| (i as u32).wrapping_mul(2_654_435_761));
    let want: Vec<u64> = v
        .as_slice()
        .chunks(128)
        .map(|c| c.iter().map(|&x| x as u64).sum())
        .collect();
    for d in engines() {
        let mut sums = NuArray1::<u64>::new(want.len());
        nucall!(d.index, [n], [128]; block_sums(&mut sums, &v)).unwrap();
        assert_eq!(sums.to_vec(), want, "{}", d.name);
    }
}

const BINS: usize = 64;

#[nukernel]
fn local_histogram(hist: &mut NuArray1<u32>, v: &NuArray1<u32>) {
    let sub = nulocal!(u32, BINS);
    let l = local_id(0);
    sub[l] = 0;
    barrier();
    let g = global_id(0);
    if g < v.len() {
        sub.atomic_add((v[g] % 64) as usize, 1u32);
    }
    barrier();
    if sub[l] > 0 {
        hist.atomic_add(l, sub[l]);
    }
}

#[test]
fn local_atomics_build_sub_histograms() {
    let n = 5000;
    let v = NuArray1::<u32>::from_fn(n, |i| (i as u32).wrapping_mul(40_503) >> 3);
    let mut want = vec![0u32; BINS];
    for x in v.as_slice() {
        want[(*x % 64) as usize] += 1;
    }
    for d in engines() {
        let mut hist = NuArray1::<u32>::new(BINS);
        nucall!(d.index, [n], [BINS]; local_histogram(&mut hist, &v)).unwrap();
        assert_eq!(hist.to_vec(), want, "{}", d.name);
    }
}

/// Every local atomic's answer and effect, on slots each work-item owns, so the result is
/// the same in any order: on the native engine a group's local atomics are a plain load and
/// store (one thread runs the group), and they must still give what OpenCL's give.
#[nukernel]
fn local_atomic_answers(out: &mut NuArray2<u32>) {
    let part = nulocal!(u32, 64);
    let l = local_id(0);
    part[l] = 10;
    barrier();
    let a = part.atomic_add(l, 5u32);
    let b = part.atomic_max(l, l as u32);
    let c = part.atomic_cmpxchg(l, 15u32, 7u32);
    let d = part.atomic_cmpxchg(l, 99u32, 1u32);
    let e = part.atomic_xchg(l, 3u32);
    barrier();
    let g = global_id(0);
    out[(g, 0)] = a;
    out[(g, 1)] = b;
    out[(g, 2)] = c;
    out[(g, 3)] = d;
    out[(g, 4)] = e;
    out[(g, 5)] = part[l];
}

#[test]
fn local_atomics_answer_as_one_step_each() {
    let n = 128;
    let want: Vec<u32> = (0..n)
        .flat_map(|g| {
            let l = (g % 64) as u32;
            let max = 15u32.max(l);
            let after_cas = if max == 15 { 7 } else { max };
            [10, 15, max, after_cas, after_cas, 3]
        })
        .collect();
    for d in engines() {
        let mut out = NuArray2::<u32>::new((n, 6));
        nucall!(d.index, [n], [64]; local_atomic_answers(&mut out)).unwrap();
        assert_eq!(out.to_vec(), want, "{}", d.name);
    }
}

#[nukernel]
fn past_the_end(out: &mut NuArray1<u32>) {
    let part = nulocal!(u32, 8);
    let l = local_id(0);
    part[l + 4] = 1;
    barrier();
    out[global_id(0)] = l as u32;
}

#[test]
fn an_out_of_range_local_index_is_an_error() {
    for d in engines() {
        let mut out = NuArray1::<u32>::new(8);
        let e = nucall!(d.index, [8], [8]; past_the_end(&mut out)).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, Error::Kernel { .. }), "{}: {text}", d.name);
        assert!(
            text.contains("`part`") && text.contains("[8]"),
            "{}: {text}",
            d.name
        );
    }
}

#[nukernel]
fn cube_copy(out: &mut NuArray1<u32>, stale: &mut NuArray1<u32>) {
    let cube = nulocal!(u32, (2, 4, 8));
    let l = local_id(0);
    // A read before any write: an unspecified value, never undefined behaviour.
    stale[global_id(0)] = cube[(l / 32, l / 8 % 4, l % 8)];
    barrier();
    cube[(l / 32, l / 8 % 4, l % 8)] = l as u32 * 3;
    barrier();
    out[global_id(0)] = cube[(1 - l / 32, 3 - l / 8 % 4, 7 - l % 8)];
}

/// A 3-D local array, indexed `[(i, j, k)]`, read before it is written without harm.
#[test]
fn a_three_dimensional_local_array() {
    let n = 128;
    let want: Vec<u32> = (0..n).map(|g| (63 - g % 64) as u32 * 3).collect();
    for d in engines() {
        let (mut out, mut stale) = (NuArray1::<u32>::new(n), NuArray1::<u32>::new(n));
        nucall!(d.index, [n], [64]; cube_copy(&mut out, &mut stale)).unwrap();
        assert_eq!(out.to_vec(), want, "{}", d.name);
    }
}

// Issue 11's `nulocal!` example, verbatim (its `// ...` ends the kernel there, so `sums` is
// unused).
#[nukernel]
#[allow(unused_variables)]
fn block_sums_verbatim(sums: &mut NuArray1<u64>, v: &NuArray1<u32>) {
    let mut part = nulocal!(u64, 128); // 1-D; nulocal!(f32, (16, 17)) is 2-D, indexed [(i, j)]
    part[local_id(0)] = v[global_id(0)] as u64;
    barrier();
    // ...
}

#[test]
fn the_issues_example_compiles_and_runs() {
    let v = NuArray1::<u32>::from_fn(256, |i| i as u32);
    for d in engines() {
        let mut sums = NuArray1::<u64>::new(2);
        nucall!(d.index, [256], [128]; block_sums_verbatim(&mut sums, &v)).unwrap();
        assert_eq!(sums.to_vec(), vec![0, 0], "{}", d.name);
    }
}

/// Every barrier kernel above runs natively split at its barriers (issue 31): loops over a
/// group's work-items, not a coroutine per work-item.
#[test]
fn barrier_kernels_are_split_at_their_barriers() {
    let forms = [
        ("transpose", transpose::__NUDA_NATIVE_FORM),
        ("block_sums", block_sums::__NUDA_NATIVE_FORM),
        ("local_histogram", local_histogram::__NUDA_NATIVE_FORM),
        ("past_the_end", past_the_end::__NUDA_NATIVE_FORM),
        ("cube_copy", cube_copy::__NUDA_NATIVE_FORM),
        (
            "block_sums_verbatim",
            block_sums_verbatim::__NUDA_NATIVE_FORM,
        ),
    ];
    for (name, form) in forms {
        assert_eq!(form, "split", "{name}");
    }
}
