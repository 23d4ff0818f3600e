//! Issue 14's `vector(w)`: the innermost loop's iterations run `w` at a time as OpenCL C
//! vectors. Each kernel runs on an OpenCL device (PoCL in CI) and on the native engine, where
//! the annotation leaves a plain loop, and is compared with plain Rust: exactly, since each
//! lane does its own scalar's operations in the same order (contraction is off).

#![allow(missing_docs)] // the test types are documented by their tests
#![allow(clippy::needless_range_loop)] // the Rust references mirror the kernels, which index

mod common;

use common::{bounds, check, check_close, engines, vec_of};
use nuda::prelude::*;

/// C = AᵀB, as the sgemm model problem computes it.
fn gemm_t<T: Copy + Default + std::ops::Add<Output = T> + std::ops::Mul<Output = T>>(
    a: &[T],
    b: &[T],
    n: usize,
    m: usize,
) -> Vec<T> {
    let mut c = vec![T::default(); n * m];
    for i in 0..n {
        for j in 0..m {
            let mut s = T::default();
            for k in 0..n {
                s = s + a[k * n + i] * b[k * m + j];
            }
            c[i * m + j] = s;
        }
    }
    c
}

fn inputs(n: usize, m: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..n * n)
        .map(|x| ((x * 7) % 11) as f32 * 0.5 - 2.0)
        .collect();
    let b = (0..n * m)
        .map(|x| ((x * 5) % 13) as f32 * 0.25 - 1.0)
        .collect();
    (a, b)
}

fn flat(c: &NuArray2<f32>) -> Vec<f32> {
    c.to_vec()
}

/// Register blocks of four rows by four lanes, as the float4 sgemm peer computes, at sizes
/// no vector divides (remainder kernels) and that do.
#[test]
fn sgemm_register_blocks_and_vectors_match_rust() {
    for (n, m) in [(16usize, 16usize), (13, 22), (9, 3), (20, 37)] {
        let (ha, hb) = inputs(n, m);
        let want = gemm_t(&ha, &hb, n, m);
        check(want, || {
            let a = NuArray2::from_fn((n, n), |(i, j)| ha[i * n + j]);
            let b = NuArray2::from_fn((n, m), |(i, j)| hb[i * m + j]);
            let mut c = NuArray2::<f32>::new((n, m));
            nuwork!(4, 4; annot!(dmine(4, 1), vector(4); nfor!((i, j) in (n, m) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            })))?;
            Ok(flat(&c))
        });
    }
}

/// Every width, a one-loop nest, uniform operands broadcast into vector methods, negation,
/// division, and an update store. Close, not exact: OpenCL C allows `/` 2.5 ulp and `sqrt`
/// 3 ulp, and PoCL's vector forms use that room.
#[test]
fn widths_methods_and_updates() {
    let n = 75usize;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
    let y: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 + 1.0).collect();
    let scale = 1.5f32;
    let f = |i: usize, out: f32| {
        let v = x[i].mul_add(scale, -y[i]) / y[i];
        out + v.abs().sqrt().max(0.25) - scale.min(v)
    };
    let want: Vec<f32> = (0..n).map(|i| f(i, 1.0)).collect();
    macro_rules! width {
        ($w:literal) => {
            check_close(&want, 1e-6, || {
                let (xa, ya) = (NuArray1::from_fn(n, |i| x[i]), NuArray1::from_fn(n, |i| y[i]));
                let mut out = NuArray1::from_fn(n, |_| 1.0f32);
                nuwork!(8; annot!(vector($w); nfor!(i in n {
                    let v = xa[i].mul_add(scale, -ya[i]) / ya[i];
                    out[i] += v.abs().sqrt().max(0.25) - scale.min(v);
                })))?;
                Ok(vec_of(&out))
            });
        };
    }
    width!(2);
    width!(4);
    width!(8);
    width!(16);
}

/// `double4`, with the lanes on a loop whose index is offset, and a gather (the affine index
/// in the first position: a column of `t`).
#[test]
fn doubles_offsets_and_gathers() {
    let (n, m) = (11usize, 14usize);
    let a: Vec<f64> = (0..n * m).map(|x| (x % 9) as f64 - 3.5).collect();
    let b: Vec<f64> = (0..n * m).map(|x| (x % 7) as f64 * 0.5).collect();
    let mut want = vec![0.0f64; n * m];
    for i in 0..n {
        for j in 2..m {
            want[i * m + j] = a[i * m + j - 2] * 2.0 + b[j * n + i];
        }
    }
    check(want, || {
        let src = NuArray2::from_fn((n, m), |(i, j)| a[i * m + j]);
        let t = NuArray2::from_fn((m, n), |(j, i)| b[j * n + i]);
        let mut out = NuArray2::<f64>::new((n, m));
        nuwork!(1, 4; annot!(vector(4); nfor!((i, j) in (n, 2..m) {
            out[(i, j)] = src[(i, j - 2)] * 2.0 + t[(j, i)];
        })))?;
        Ok(out.to_vec())
    });
}

/// A lane out of range faults as the scalar loop would: `Err` naming the array and line.
#[test]
fn a_lane_out_of_range_is_an_error_naming_the_array() {
    let n = 16usize;
    for d in engines() {
        let r = nuda::with_device(d.index, || {
            let a = NuArray1::from_fn(n - 2, |i| i as f32);
            let mut out = NuArray1::<f32>::new(n);
            nuwork!(4; annot!(vector(4); nfor!(i in n {
                out[i] = a[i] + 1.0;
            })))
        })
        .unwrap();
        let e = r.expect_err("a[14] and a[15] are out of range");
        let (array, _, _, _) = bounds(&e);
        assert_eq!(array, "a", "on {}: {e}", d.name);
        assert!(e.to_string().contains("vector.rs"), "on {}: {e}", d.name);
    }
}

/// An n-body step vectorised over the bodies `i`: tuple lets of lanes, a uniform inner loop
/// whose loads are broadcast, `rsqrt` on vectors, per-lane accumulators. Close, not exact:
/// OpenCL's `rsqrt` is approximate, as it is unannotated.
#[test]
fn nbody_lanes_with_tuples_and_rsqrt() {
    let n = 45usize;
    let p: Vec<f32> = (0..3 * n)
        .map(|x| ((x * 37) % 101) as f32 * 0.05 - 2.5)
        .collect();
    let mut want = vec![0.0f32; n];
    for i in 0..n {
        let (xi, yi) = (p[i], p[n + i]);
        let mut a = 0.0f32;
        for j in 0..n {
            let (dx, dy) = (p[j] - xi, p[n + j] - yi);
            let inv = 1.0 / (dx * dx + dy * dy + 0.01f32).sqrt();
            a += dx * inv * inv * inv;
        }
        want[i] = a;
    }
    check_close(&want, 1e-3, || {
        let (px, py) = (
            NuArray1::from_fn(n, |i| p[i]),
            NuArray1::from_fn(n, |i| p[n + i]),
        );
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(4; annot!(vector(8); nfor!(i in n {
            let (xi, yi) = (px[i], py[i]);
            let mut a = 0.0f32;
            nfor!(j in n {
                let (dx, dy) = (px[j] - xi, py[j] - yi);
                let inv = rsqrt(dx * dx + dy * dy + 0.01f32);
                a += dx * inv * inv * inv;
            });
            out[i] = a;
        })))?;
        Ok(vec_of(&out))
    });
}

/// Affine locals (lane 0's value plus the lane number; natively a scalar, read per lane as
/// an offset) as indices: offsets of the loop index, one computed from another, and a
/// widening cast, which the native engine keeps as a vector of lanes.
#[test]
fn affine_locals_as_indices() {
    let n = 37usize;
    let x: Vec<f32> = (0..n + 4).map(|i| (i % 5) as f32 - 1.5).collect();
    let want: Vec<f32> = (0..n)
        .map(|i| x[i + 3] * 2.0 + x[i + 1] - x[i + 2])
        .collect();
    check(want, || {
        let xa = NuArray1::from_fn(n + 4, |i| x[i]);
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(4; annot!(vector(8); nfor!(i in n {
            let k = i + 3;
            let q = k - 2;
            let w = q as usize;
            out[i] = xa[k] * 2.0 + xa[q] - xa[w + 1];
        })))?;
        Ok(vec_of(&out))
    });
}
