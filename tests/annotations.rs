//! Annotations end to end: on host `nfor!` nests, inside `nuwork!` (mapped to the NDRange, with
//! remainder kernels), and on inner loops of kernel bodies, each on OpenCL and on the native
//! engine, compared with the plain loops.

mod common;

use common::{check, check_close, vec_of};
use nuda::prelude::*;

fn sgemm_reference(n: usize, a: &NuArray2<f32>, b: &NuArray2<f32>) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            c[i * n + j] = (0..n).map(|k| a[(k, i)] * b[(k, j)]).sum();
        }
    }
    c
}

fn inputs(n: usize) -> (NuArray2<f32>, NuArray2<f32>) {
    let a = NuArray2::<f32>::from_fn((n, n), |(i, j)| ((i * 7 + j * 3) % 11) as f32 - 5.0);
    let b = NuArray2::<f32>::from_fn((n, n), |(i, j)| ((i * 5 + j) % 13) as f32 * 0.25);
    (a, b)
}

#[test]
fn sgemm_variants_agree_with_the_host() {
    // 37 is divisible by none of the factors: every remainder kernel runs.
    let n = 37;
    let (a, b) = inputs(n);
    let want = sgemm_reference(n, &a, &b);
    check_close(&want, 1e-5, || {
        let mut c = NuArray2::<f32>::new((n, n));
        nuwork!(4, 4; annot!(dmine(2, 2); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        })))?;
        Ok(c.to_vec())
    });
    check_close(&want, 1e-5, || {
        let mut c = NuArray2::<f32>::new((n, n));
        nuwork!(2, 2; annot!(tilem(8, 8), dmine(4, 4); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        })))?;
        Ok(c.to_vec())
    });
    check_close(&want, 1e-5, || {
        let mut c = NuArray2::<f32>::new((n, n));
        nuwork!(4, 4; nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            annot!(unroll(4); nfor!(k in n { s += a[(k, i)] * b[(k, j)]; }));
            c[(i, j)] = s;
        }))?;
        Ok(c.to_vec())
    });
}

#[test]
fn every_annotation_inside_nuwork_runs_each_iteration_once() {
    let (n, m) = (13usize, 10usize);
    let want: Vec<u32> = (0..n * m).map(|f| f as u32 * 3 + 1).collect();
    macro_rules! variant {
        ($($chain:tt)*) => {
            check(want.clone(), || {
                let mut out = NuArray2::<u32>::new((n, m));
                nuwork!(2; annot!($($chain)*; nfor!((i, j) in (n, m) { out[(i, j)] += (i * m + j) as u32 * 3 + 1; })))?;
                Ok(out.to_vec())
            });
        };
    }
    variant!(tile(4, 3));
    variant!(tilem(4, 3));
    variant!(unroll(3));
    variant!(unroll(2, 3));
    variant!(dmine(3, 4));
    variant!(peel(2, 3));
    variant!(permut(2, 1));
    variant!(tilem(5), dmine(2, 2), permut(2, 1));
    variant!(peel(1, 1), tile(4, 4), unroll(2));
}

#[test]
fn annot_on_host_nests() {
    let n = 11usize;
    let mut hits = NuArray2::<u32>::new((n, n));
    annot!(tilem(4, 4), dmine(2, 2), permut(2, 1); nfor!((i, j) in (n, n) {
        hits[(i, j)] += (i * n + j) as u32;
    }));
    assert_eq!(hits.to_vec(), (0..(n * n) as u32).collect::<Vec<u32>>());
    let mut total = 0i64;
    let mut steps = NuArray1::<i64>::new(1);
    annot!(unroll(3); nfor!(k in -7i64 <> 20 :/ 4 { steps[0] += k; }));
    for k in (-7i64..=20).step_by(4) {
        total += k;
    }
    assert_eq!(steps[0], total);
}

#[test]
fn inline_fully_unrolls_an_inner_loop() {
    let n = 20usize;
    let x = NuArray1::<f32>::from_fn(n + 2, |i| i as f32);
    let w = NuArray1::<f32>::from_vec(3, vec![0.25, 0.5, 0.25]).unwrap();
    let want: Vec<f32> = (0..n)
        .map(|i| 0.25 * x[i] + 0.5 * x[i + 1] + 0.25 * x[i + 2])
        .collect();
    check_close(&want, 1e-6, || {
        let mut y = NuArray1::<f32>::new(n);
        nuwork!(4; nfor!(i in n {
            let mut s = 0.0f32;
            annot!(inline; nfor!(k in 0..3 { s += w[k] * x[i + k]; }));
            y[i] = s;
        }))?;
        Ok(vec_of(&y))
    });
}

/// `inline` replaces the loop variable by its values, and each value keeps the variable's
/// type on every engine: `k` is a `usize` where the body indexes with it (the native engine's
/// `2 * 3_000_000_000` was an `i32` that rustc refused), and a `u8` where the range says so
/// (`k << 7` drops the bit past 8 as in Rust).
#[test]
fn inline_keeps_the_loop_variables_type() {
    let wide: Vec<u64> = (0..3usize).map(|k| (k * 3_000_000_000) as u64).collect();
    check(wide, || {
        let mut out = NuArray1::<u64>::new(3);
        nuwork!(1; nfor!(i in 1usize {
            annot!(inline; nfor!(k in 0..3 { out[k] = ((k * 3_000_000_000) as u64) + i as u64; }));
        }))?;
        Ok(vec_of(&out))
    });
    // Only `2 * k` says `usize` here: each copy's `2 * 1` must keep saying it.
    let spread: Vec<u64> = (0..6usize)
        .map(|k| {
            if k % 2 == 0 {
                (k / 2 * 3_000_000_000) as u64
            } else {
                0
            }
        })
        .collect();
    check(spread, || {
        let mut out = NuArray1::<u64>::new(6);
        nuwork!(1; nfor!(i in 1usize {
            annot!(inline; nfor!(k in 0..3 { out[2 * k] = ((k * 3_000_000_000) as u64) + i as u64; }));
        }))?;
        Ok(vec_of(&out))
    });
    let narrow: Vec<u64> = (0u8..3).map(|k| (k << 7) as u64).collect();
    assert_eq!(narrow, [0, 128, 0]);
    check(narrow, || {
        let mut out = NuArray1::<u64>::new(3);
        nuwork!(1; nfor!(i in 1usize {
            annot!(inline; nfor!(k in 0u8..3 { out[k as usize] = ((k << 7) as u64) + i as u64; }));
        }))?;
        Ok(vec_of(&out))
    });
}

/// `inline` copies the body in the order the loop runs it: last first under `.rev()`, and
/// counting down for a negative step, so an order-dependent body gives Rust's result.
#[test]
fn inline_keeps_the_order_of_reversed_and_descending_loops() {
    let mut h = 0i64;
    annot!(inline; nfor!(k in (0..4i64).rev() { h = h * 10 + k; }));
    assert_eq!(h, 3210);
    let mut d = 0i64;
    annot!(inline; nfor!(k in (6i64 <> 0 :/ -2) { d = d * 10 + k; }));
    assert_eq!(d, 6420);
    let n = 8usize;
    let want: Vec<i64> = (0..n as i64)
        .map(|i| {
            let (mut s, mut t) = (i, i);
            for k in (0..4i32).step_by(2).rev() {
                s = s * 10 + i64::from(k);
            }
            for k in (1..=7i64).rev().step_by(3) {
                t = t * 10 + k;
            }
            s * 1000 + t
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(4; nfor!(i in n {
            let mut s = i as i64;
            let mut t = i as i64;
            annot!(inline; nfor!(k in (0..4i64).step_by(2).rev() { s = s * 10 + k; }));
            annot!(inline; nfor!(k in (7i64 <> 1 :/ -3) { t = t * 10 + k; }));
            out[i] = s * 1000 + t;
        }))?;
        Ok(vec_of(&out))
    });
}

#[nukernel]
fn row_sums(y: &mut NuArray1<f32>, a: &NuArray2<f32>) {
    let i = global_id(0);
    if i < y.len() {
        let mut s = 0.0f32;
        annot!(dmine(4); nfor!(k in a.dims().1 { s += a[(i, k)]; }));
        y[i] = s;
    }
}

#[test]
fn annotations_on_inner_loops_of_kernels() {
    let (n, m) = (9usize, 23usize);
    let a = NuArray2::<f32>::from_fn((n, m), |(i, k)| (i + k) as f32);
    let want: Vec<f32> = (0..n)
        .map(|i| (0..m).map(|k| (i + k) as f32).sum())
        .collect();
    for d in common::engines() {
        let mut y = NuArray1::<f32>::new(n);
        nucall!(d.index, [n], [4]; row_sums(&mut y, &a)).unwrap();
        assert_eq!(y.to_vec(), want, "{}", d.name);
    }
}

/// An annotated loop's range is evaluated once, before the loop, as in Rust: a name the body
/// declares or assigns later does not change the values the loop takes.
#[test]
fn annotated_ranges_are_evaluated_once_as_in_rust() {
    let n = 4usize;
    let shadowed: Vec<u32> = (0..n)
        .map(|i| {
            let s = i;
            let mut c = 0u32;
            for j in s..s + 3 {
                let s = 100usize;
                c += (j * 10 + s) as u32;
            }
            c
        })
        .collect();
    check(shadowed, || {
        let mut out = NuArray1::<u32>::new(n);
        nuwork!(4; nfor!(i in n {
            let s = i;
            let mut c = 0u32;
            annot!(unroll(2); nfor!(j in s..s + 3 { let s = 100usize; c += (j * 10 + s) as u32; }));
            out[i] = c;
        }))?;
        Ok(vec_of(&out))
    });
    let assigned: Vec<u32> = (0..n)
        .map(|i| {
            let mut s = i;
            let mut c = 0u32;
            for j in (s..s + 3).rev() {
                s += 100;
                c += j as u32 + s as u32;
            }
            c
        })
        .collect();
    check(assigned, || {
        let mut out = NuArray1::<u32>::new(n);
        nuwork!(4; nfor!(i in n {
            let mut s = i;
            let mut c = 0u32;
            annot!(unroll(2); nfor!(j in (s..s + 3).rev() { s += 100; c += j as u32 + s as u32; }));
            out[i] = c;
        }))?;
        Ok(vec_of(&out))
    });
    // A mapped loop's body shadowing a capture its range reads.
    let s = 0usize;
    let want: Vec<u32> = (0..8).map(|i| i * 2 + 1).collect();
    check(want, || {
        let mut out = NuArray1::<u32>::new(8);
        nuwork!(4; annot!(tilem(4); nfor!(i in s..8 { let s = 1usize; out[i] = (i * 2 + s) as u32; })))?;
        Ok(vec_of(&out))
    });
}
