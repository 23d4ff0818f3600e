//! Issue 47's kernel-language and `vector(w)` edges, each against plain Rust on every engine
//! (the OpenCL device, PoCL in CI, and the native engine): forms the reference lists as
//! accepted that did not build, methods that were missing, names C headers define as macros,
//! float specials, and lane bodies whose locals share names.

#![allow(clippy::needless_range_loop)]
// the Rust references mirror the kernels
// Locals and constants named as C headers' macros are the point of one test.
#![allow(non_snake_case, non_upper_case_globals)]

mod common;

use common::check;
use nuda::prelude::*;

/// Names OpenCL C's and CUDA's headers define as macros, as Rust locals and constants.
const M_PI: f32 = 3.0;
const INT_MAX: i32 = 7;

#[test]
fn names_c_headers_define_as_macros_are_plain_names() {
    let n = 100usize;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (nan, infinity, char_bit, flt_epsilon) = (i as f32, 2.0f32, 3.0f32, 0.5f32);
            let (m_e, maxfloat) = (1.5f32, 4.0f32);
            nan + infinity * char_bit - flt_epsilon + m_e * maxfloat + M_PI + INT_MAX as f32
        })
        .collect();
    check(want, || {
        let mut o = NuArray1::<f32>::new(n);
        nuwork!(64; nfor!(i in n {
            let NAN = i as f32;
            let INFINITY = 2.0f32;
            let CHAR_BIT = 3.0f32;
            let FLT_EPSILON = 0.5f32;
            let (M_E, MAXFLOAT) = (1.5f32, 4.0f32);
            o[i] = NAN + INFINITY * CHAR_BIT - FLT_EPSILON + M_E * MAXFLOAT + M_PI + INT_MAX as f32;
        }))?;
        Ok(o.to_vec())
    });
}

#[test]
fn float_specials_are_spelled_portably() {
    let n = 8usize;
    let want: Vec<u64> = (0..n)
        .map(|i| {
            let x = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.0][i % 4];
            let y = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.0][i % 4];
            u64::from(x.to_bits()) ^ y.to_bits()
        })
        .collect();
    check(want, || {
        let mut o = NuArray1::<u64>::new(n);
        nuwork!(8; nfor!(i in n {
            let k = i % 4;
            let x = if k == 0 { f32::NAN } else if k == 1 { f32::INFINITY } else if k == 2 { f32::NEG_INFINITY } else { 1.0f32 };
            let y = if k == 0 { f64::NAN } else if k == 1 { f64::INFINITY } else if k == 2 { f64::NEG_INFINITY } else { 1.0f64 };
            o[i] = x.to_bits() as u64 ^ y.to_bits();
        }))?;
        Ok(o.to_vec())
    });
}

#[test]
fn a_local_declared_then_assigned_in_both_branches() {
    let n = 50usize;
    let want: Vec<u32> = (0..n as u32)
        .map(|i| if i % 3 == 0 { i * 2 } else { i + 7 })
        .collect();
    check(want, || {
        let mut o = NuArray1::<u32>::new(n);
        nuwork!(16; nfor!(i in n {
            let x: u32;
            if i % 3 == 0 {
                x = i as u32 * 2;
            } else {
                x = i as u32 + 7;
            }
            let y: u32;
            y = x;
            o[i] = y;
        }))?;
        Ok(o.to_vec())
    });
}

#[test]
fn a_for_loop_that_only_counts() {
    let n = 40usize;
    let want: Vec<u32> = (0..n as u32).map(|i| i + 3 * 5).collect();
    check(want, || {
        let mut o = NuArray1::<u32>::new(n);
        nuwork!(16; nfor!(i in n {
            let mut s = i as u32;
            for _ in 0..3 {
                for _ in 0..5 { s += 1; }
            }
            o[i] = s;
        }))?;
        Ok(o.to_vec())
    });
}

#[test]
fn div_euclid_wrapping_neg_and_to_bits_match_rust() {
    let xs: Vec<i32> = vec![-7, 7, -8, 0, i32::MIN + 1, 13, -1, 5];
    let ds: Vec<i32> = vec![2, -2, 3, 5, 7, -3, 1, 4];
    let n = xs.len();
    let fs: Vec<f32> = vec![-7.5, 7.25, -0.5, 3.0, -1e9, 2.5, 0.0, 9.75];
    let want: Vec<(i32, i32, u32, f32, i64)> = (0..n)
        .map(|k| {
            let (x, d, f) = (xs[k], ds[k], fs[k]);
            let w = x.wrapping_neg();
            let big = (i64::from(x) * 1000)
                .div_euclid(i64::from(d))
                .wrapping_neg();
            (x.div_euclid(d), w, f.to_bits(), f.div_euclid(1.5), big)
        })
        .collect();
    check(want, || {
        let (x, d) = (
            NuArray1::from_vec(n, xs.clone())?,
            NuArray1::from_vec(n, ds.clone())?,
        );
        let f = NuArray1::from_vec(n, fs.clone())?;
        let mut q = NuArray1::<i32>::new(n);
        let mut w = NuArray1::<i32>::new(n);
        let mut b = NuArray1::<u32>::new(n);
        let mut g = NuArray1::<f32>::new(n);
        let mut h = NuArray1::<i64>::new(n);
        nuwork!(4; nfor!(k in n {
            q[k] = x[k].div_euclid(d[k]);
            w[k] = x[k].wrapping_neg();
            b[k] = f[k].to_bits();
            g[k] = f[k].div_euclid(1.5);
            h[k] = (x[k] as i64 * 1000).div_euclid(d[k] as i64).wrapping_neg();
        }))?;
        let v = (0..n).map(|k| (q[k], w[k], b[k], g[k], h[k])).collect();
        Ok(v)
    });
}

#[test]
fn div_euclid_by_zero_and_of_min_by_minus_one_fault_at_the_call() {
    for d in engines_each() {
        let e = nuda::with_device(d, || -> nuda::Result<()> {
            let x = NuArray1::from_vec(2, vec![5i32, i32::MIN])?;
            let y = NuArray1::from_vec(2, vec![0i32, -1])?;
            let mut q = NuArray1::<i32>::new(2);
            nuwork!(2; nfor!(k in 2 { q[k] = x[k].div_euclid(y[k]); }))
        })
        .unwrap()
        .unwrap_err();
        assert!(e.to_string().contains("attempt to divide"), "{e}");
    }
}

fn engines_each() -> Vec<usize> {
    common::engines().iter().map(|d| d.index).collect()
}

#[test]
fn vector_lanes_take_float_methods_with_literal_arguments() {
    let n = 37usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 3.0).collect();
    let want: Vec<f32> = a
        .iter()
        .map(|&v| {
            v.mul_add(0.5, 0.1) + v.powf(2.0) + v.atan2(0.5) + v.hypot(3.0) + v.copysign(-1.0)
        })
        .collect();
    common::check_close(&want, 1e-5, || {
        let x = NuArray1::from_vec(n, a.clone())?;
        let mut o = NuArray1::<f32>::new(n);
        nuwork!(8; annot!(vector(8); nfor!(j in n {
            let v = x[j];
            o[j] = v.mul_add(0.5, 0.1) + v.powf(2.0) + v.atan2(0.5) + v.hypot(3.0) + v.copysign(-1.0);
        })))?;
        Ok(o.to_vec())
    });
}

/// The same methods on f64 lanes, at the narrowest and widest vectors.
#[test]
fn vector_lanes_take_f64_methods_with_literal_arguments_at_every_width() {
    let n = 35usize;
    let a: Vec<f64> = (0..n).map(|i| i as f64 * 0.125 - 2.0).collect();
    let f =
        |v: f64| v.mul_add(0.5, 0.1) + v.powf(2.0) + v.atan2(0.5) + v.hypot(3.0) + v.copysign(-1.0);
    let want: Vec<f64> = a.iter().map(|&v| f(v) * 2.0).collect();
    let close = |got: Vec<f64>| {
        got.iter()
            .zip(&want)
            .all(|(g, w)| (g - w).abs() <= 1e-12 * w.abs().max(1.0))
    };
    check(true, || {
        let x = NuArray1::from_vec(n, a.clone())?;
        let (mut o2, mut o16) = (NuArray1::<f64>::new(n), NuArray1::<f64>::new(n));
        nuwork!(4; annot!(vector(2); nfor!(j in n {
            let v = x[j];
            o2[j] = 2.0 * (v.mul_add(0.5, 0.1) + v.powf(2.0) + v.atan2(0.5) + v.hypot(3.0) + v.copysign(-1.0));
        })))?;
        nuwork!(2; annot!(vector(16); nfor!(j in n {
            let v = x[j];
            o16[j] = 2.0 * (v.mul_add(0.5, 0.1) + v.powf(2.0) + v.atan2(0.5) + v.hypot(3.0) + v.copysign(-1.0));
        })))?;
        Ok(close(o2.to_vec()) && close(o16.to_vec()))
    });
}

#[test]
fn vector_lanes_clamp_and_keep_nan() {
    let n = 21usize;
    let a: Vec<f64> = (0..n)
        .map(|i| {
            if i == 5 {
                f64::NAN
            } else {
                i as f64 * 0.5 - 4.0
            }
        })
        .collect();
    let want: Vec<u64> = a.iter().map(|v| v.clamp(-1.0, 2.5).to_bits()).collect();
    check(want, || {
        let x = NuArray1::from_vec(n, a.clone())?;
        let mut o = NuArray1::<f64>::new(n);
        let lo = -1.0f64;
        nuwork!(4; annot!(vector(4); nfor!(j in n { o[j] = x[j].clamp(lo, 2.5); })))?;
        Ok(o.to_vec().iter().map(|v| v.to_bits()).collect())
    });
}

#[test]
fn vector_lane_locals_are_told_apart_by_binding() {
    let n = 45usize;
    let a: Vec<f32> = (0..n + 1).map(|i| (i % 9) as f32 - 2.0).collect();
    let s = 1.5f32;
    let c = 2.0f32;
    let mut want = vec![0f32; n];
    for j in 0..n {
        let mut k = j;
        if c > 0.0 {
            k = j + 1;
        }
        let first = a[j] * s;
        let s = a[j] + 1.0;
        let mut t = 0.0f32;
        for j in 0..3 {
            t += j as f32;
        }
        let pick = if c > 1.0 { a[k] } else { 0.0 };
        want[j] = first + s + t + pick;
    }
    check(want, || {
        let x = NuArray1::from_vec(n + 1, a.clone())?;
        let mut o = NuArray1::<f32>::new(n);
        nuwork!(8; annot!(vector(4); nfor!(j in n {
            let mut k = j;
            if c > 0.0 { k = j + 1; }
            let first = x[j] * s;
            let s = x[j] + 1.0;
            let mut t = 0.0f32;
            for j in 0..3 { t += j as f32; }
            let pick = if c > 1.0 { x[k] } else { 0.0 };
            o[j] = first + s + t + pick;
        })))?;
        Ok(o.to_vec())
    });
}

/// A lane body whose inner triangular nest rebinds a lane local's name: the inner range
/// `0..p` is the nest's own `p`, as in Rust.
#[test]
fn vector_lane_inner_nests_see_their_own_loop_variables() {
    let (n, m) = (21usize, 5usize);
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let want: Vec<f32> = (0..n)
        .map(|j| {
            let p = 3usize;
            let first = a[j] * p as f32;
            let mut t = 0.0f32;
            for p in 0..m {
                for _q in 0..p {
                    t += 1.0;
                }
            }
            first + t
        })
        .collect();
    check(want, || {
        let x = NuArray1::from_vec(n, a.clone())?;
        let mut o = NuArray1::<f32>::new(n);
        nuwork!(4; annot!(vector(4); nfor!(j in n {
            let p = 3usize;
            let first = x[j] * p as f32;
            let mut t = 0.0f32;
            nfor!((p, _q) in (m, 0..p) { t += 1.0; });
            o[j] = first + t;
        })))?;
        Ok(o.to_vec())
    });
}
