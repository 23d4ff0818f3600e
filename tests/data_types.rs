//! Issue 13's kernel data types beyond scalars and numeric arrays: `usize`, `isize` and
//! `bool` array elements, private arrays, tuples and generic functions around `nuwork!`.
//! Each kernel runs on an OpenCL device (PoCL in CI) and on the native engine and is
//! compared with plain Rust.

mod common;

use common::{check, engines, vec_of};
use nuda::prelude::*;

#[test]
fn usize_and_bool_arrays_written_in_a_kernel_and_read_back() {
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32).collect();
    let t = 50.0f32;
    let want_mask: Vec<bool> = a.iter().map(|&x| x > t).collect();
    let want_big: Vec<usize> = (0..n).map(|i| (i << 40) | 7).collect();
    let want_neg: Vec<isize> = (0..n).map(|i| -(i as isize) * (1 << 35)).collect();
    check((want_mask, want_big, want_neg), || {
        let a = NuArray1::from_vec(n, a.clone())?;
        let mut mask = NuArray1::<bool>::new(n);
        let mut big = NuArray1::<usize>::new(n);
        let mut neg = NuArray1::<isize>::new(n);
        nuwork!(64; nfor!(i in n {
            mask[i] = a[i] > t;
            big[i] = (i << 40) | 7;
            neg[i] = -(i as isize) * (1 << 35);
        }))?;
        Ok((vec_of(&mask), vec_of(&big), vec_of(&neg)))
    });
}

#[test]
fn usize_and_bool_arrays_read_in_a_kernel() {
    // 64-bit values in a usize array: a kernel that reads one must keep all its bits, even
    // where every size would let `usize` be 32-bit.
    let n = 300usize;
    let idx: Vec<usize> = (0..n).map(|i| (i << 33) | i).collect();
    let keep: Vec<bool> = (0..n).map(|i| i % 3 != 0).collect();
    let want: Vec<u64> = (0..n)
        .map(|i| {
            if keep[i] {
                (idx[i] >> 33) as u64 + (idx[i] & 0xff) as u64
            } else {
                0
            }
        })
        .collect();
    let want_copy = idx.clone();
    check((want, want_copy), || {
        let idx = NuArray1::from_vec(n, idx.clone())?;
        let keep = NuArray1::from_vec(n, keep.clone())?;
        let mut out = NuArray1::<u64>::new(n);
        let mut copy = NuArray1::<usize>::new(n);
        // Nothing in this kernel needs 64 bits but the values read.
        nuwork!(32; nfor!(i in n {
            let v = idx[i];
            copy[i] = v;
        }))?;
        nuwork!(32; nfor!(i in n {
            let v = idx[i];
            out[i] = if keep[i] { (v >> 33) as u64 + (v & 0xff) as u64 } else { 0 };
        }))?;
        Ok((vec_of(&out), vec_of(&copy)))
    });
}

#[test]
fn pushing_indices_into_a_usize_nuvec() {
    let n = 777usize;
    let a: Vec<i32> = (0..n).map(|i| ((i * 7919) % 1000) as i32 - 500).collect();
    let want: Vec<usize> = (0..n).filter(|&i| a[i] > 100).collect();
    check(want, || {
        let a = NuArray1::from_vec(n, a.clone())?;
        let mut wh = NuVec::<usize>::new();
        nuwork!(64; nfor!(i in n { if a[i] > 100 { wh.push(i); } }))?;
        Ok(wh.to_vec())
    });
}

#[test]
fn bool_arrays_round_trip_on_every_engine() {
    for d in engines() {
        let got = nuda::with_device(d.index, || {
            let v: Vec<bool> = (0..41).map(|i| i % 2 == 0 || i % 7 == 0).collect();
            let src = NuArray1::from_vec(41, v.clone())?;
            let mut dst = NuArray1::<bool>::new(41);
            nuwork!(8; nfor!(i in 41 { dst[i] = !src[i]; }))?;
            Ok::<_, nuda::Error>((v, vec_of(&dst)))
        })
        .unwrap()
        .unwrap();
        let flipped: Vec<bool> = got.0.iter().map(|b| !b).collect();
        assert_eq!(got.1, flipped, "on {}", d.name);
    }
}

/// The generic function: a library wrapping nuda, generic over the element type.
fn scale_all<T: nuda::Element + std::ops::Mul<Output = T>>(
    v: &mut NuArray1<T>,
    k: T,
) -> nuda::Result<()> {
    let n = v.len();
    nuwork!(64; nfor!(i in n { v[i] = v[i] * k; }))
}

/// A generic body with more operators, a reduction and a comparison: PolyBench's DATA_TYPE.
fn axpy_sum<T>(a: T, x: &NuArray1<T>, y: &mut NuArray1<T>) -> nuda::Result<T>
where
    T: nuda::Element + std::ops::Mul<Output = T> + std::ops::Add<Output = T>,
    T: std::ops::AddAssign + PartialOrd,
{
    let n = x.len();
    let mut s = T::default();
    nuwork!(32; nfor!(i in n {
        let v = a * x[i] + y[i];
        y[i] = if v > y[i] { v } else { y[i] };
        s += x[i];
    }))?;
    Ok(s)
}

/// A generic `#[nucode]` function, instantiated per element type at the first launch.
#[nucode]
fn larger<T: nuda::Element + PartialOrd>(a: T, b: T) -> T {
    if a > b {
        a
    } else {
        b
    }
}

/// A generic `#[nucode]` function calling another, with a where clause.
#[nucode]
fn fma_max<T>(a: T, x: T, y: T) -> T
where
    T: nuda::Element + std::ops::Mul<Output = T> + std::ops::Add<Output = T> + PartialOrd,
{
    larger(a * x + y, y)
}

/// `axpy_sum`'s update through the generic functions, from a generic kernel.
fn axpy_max<T>(a: T, x: &NuArray1<T>, y: &mut NuArray1<T>) -> nuda::Result<()>
where
    T: nuda::Element + std::ops::Mul<Output = T> + std::ops::Add<Output = T> + PartialOrd,
{
    let n = x.len();
    nuwork!(32; nfor!(i in n { y[i] = fma_max(a, x[i], y[i]); }))
}

fn generic_case<T>(vals: impl Fn(usize) -> T, k: T)
where
    T: nuda::Element + std::ops::Mul<Output = T> + std::ops::Add<Output = T>,
    T: std::ops::AddAssign + PartialOrd,
{
    let n = 200usize;
    let x: Vec<T> = (0..n).map(&vals).collect();
    let scaled: Vec<T> = x.iter().map(|&v| v * k).collect();
    let mut y = x.clone();
    let mut s = T::default();
    for i in 0..n {
        let v = k * x[i] + y[i];
        y[i] = if v > y[i] { v } else { y[i] };
        s += x[i];
    }
    check((scaled, y, s), || {
        let mut a = NuArray1::from_vec(n, x.clone())?;
        scale_all(&mut a, k)?;
        let xs = NuArray1::from_vec(n, x.clone())?;
        let mut ys = NuArray1::from_vec(n, x.clone())?;
        let s = axpy_sum(k, &xs, &mut ys)?;
        // The same update through generic `#[nucode]` functions gives the same values.
        let mut zs = NuArray1::from_vec(n, x.clone())?;
        axpy_max(k, &xs, &mut zs)?;
        assert_eq!(vec_of(&zs), vec_of(&ys));
        Ok((vec_of(&a), vec_of(&ys), s))
    });
}

#[test]
fn generic_nucode_instances_from_plain_kernels() {
    let n = 64usize;
    let want_f: Vec<f32> = (0..n).map(|i| larger(i as f32 * 0.5, 10.0)).collect();
    let want_u: Vec<u8> = (0..n).map(|i| larger((i * 5) as u8, 100)).collect();
    check((want_f, want_u), || {
        let mut f = NuArray1::<f32>::new(n);
        let mut u = NuArray1::<u8>::new(n);
        nuwork!(16; nfor!(i in n { f[i] = larger(i as f32 * 0.5, 10.0); }))?;
        nuwork!(16; nfor!(i in n { u[i] = larger((i * 5) as u8, 100); }))?;
        Ok((vec_of(&f), vec_of(&u)))
    });
}

#[test]
fn one_generic_function_for_f32_f64_i32_and_i64() {
    // Sums of small integers in floats are exact whatever the order.
    generic_case(|i| (i % 17) as f32 - 8.0, 3.0f32);
    generic_case(|i| (i % 23) as f64 * 0.5, -2.0f64);
    generic_case(|i| (i as i32 * 7919) % 1000 - 500, 3i32);
    generic_case(|i| ((i as i64) << 33) - 7, -5i64);
}

#[test]
fn tuple_values_components_copies_and_destructuring() {
    let n = 100usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 3.0).collect();
    let plain = |x: f32, i: usize| {
        let pair = (x * 2.0, i as u32 + 1);
        let mut acc = (pair.1, pair.0);
        acc.0 += 3;
        acc.1 -= 1.0;
        let copy = acc;
        let (u, f) = copy;
        let v = {
            let pair = x;
            pair + 1.0
        }; // a scalar named like the tuple, in a block
        (u as f32 + f + pair.0 * v, pair.1 * 2)
    };
    let want: (Vec<f32>, Vec<u32>) = (0..n).map(|i| plain(a[i], i)).unzip();
    check(want, || {
        let a = NuArray1::from_vec(n, a.clone())?;
        let mut out = NuArray1::<f32>::new(n);
        let mut out2 = NuArray1::<u32>::new(n);
        nuwork!(16; nfor!(i in n {
            let x = a[i];
            let pair = (x * 2.0, i as u32 + 1);
            let mut acc = (pair.1, pair.0);
            acc.0 += 3;
            acc.1 = acc.1 - 1.0;
            let copy = acc;
            let (u, f) = copy;
            let v = { let pair = x; pair + 1.0 };
            out[i] = u as f32 + f + pair.0 * v;
            out2[i] = pair.1 * 2;
        }))?;
        Ok((vec_of(&out), vec_of(&out2)))
    });
}

/// A `#[nucode]` function returning a tuple, with an early return of one.
#[nucode]
fn polar(x: f32, y: f32) -> (f32, f32) {
    if x == 0.0 && y == 0.0 {
        return (0.0, 0.0);
    }
    ((x * x + y * y).sqrt(), y.atan2(x))
}

/// A tuple of mixed types, built from another function's tuple.
#[nucode]
fn split(v: u32) -> (u32, u16, bool) {
    let (hi, lo) = halves(v);
    (hi, lo as u16, v % 2 == 1)
}

#[nucode]
fn halves(v: u32) -> (u32, u32) {
    (v >> 16, v & 0xffff)
}

#[test]
fn tuple_returns_from_nucode_functions() {
    let n = 64usize;
    let xs: Vec<f32> = (0..n).map(|i| (i % 8) as f32 - 3.0).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i / 8) as f32 - 4.0).collect();
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (r, th) = polar(xs[i], ys[i]);
            let (a, b, c) = split(i as u32 * 70001);
            r * 2.0 + th + (a + b as u32) as f32 + if c { 1.0 } else { 0.0 }
        })
        .collect();
    common::check_close(&want, 1e-5, || {
        let x = NuArray1::from_vec(n, xs.clone())?;
        let y = NuArray1::from_vec(n, ys.clone())?;
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(16; nfor!(i in n {
            let (r, th) = polar(x[i], y[i]);
            let (a, b, c) = split(i as u32 * 70001);
            out[i] = r * 2.0 + th + (a + b as u32) as f32 + if c { 1.0 } else { 0.0 };
        }))?;
        Ok(vec_of(&out))
    });
}

/// Tuple parameters: each component is a parameter of the OpenCL C function.
#[nucode]
fn dot2(p: (f32, f32), q: (f32, f32)) -> f32 {
    p.0 * q.0 + p.1 * q.1
}

/// A tuple parameter of mixed types, passed on whole to another function, and a tuple result.
#[nucode]
fn swap_scale(p: (i32, u8), k: i32) -> (u8, i32) {
    let q = p;
    (q.1, widen(p) * k)
}

#[nucode]
fn widen(p: (i32, u8)) -> i32 {
    p.0 + p.1 as i32
}

#[test]
fn tuples_as_nucode_arguments() {
    let n = 50usize;
    let want: Vec<(f32, u8, i32)> = (0..n)
        .map(|i| {
            let t = (i as f32, 0.5);
            let (a, b) = swap_scale((i as i32 - 20, i as u8), 3);
            (dot2(t, (1.0, 2.0)), a, b)
        })
        .collect();
    check(want, || {
        let mut f = NuArray1::<f32>::new(n);
        let mut a = NuArray1::<u8>::new(n);
        let mut b = NuArray1::<i32>::new(n);
        nuwork!(16; nfor!(i in n {
            let t = (i as f32, 0.5);
            let (x, y) = swap_scale((i as i32 - 20, i as u8), 3);
            f[i] = dot2(t, (1.0, 2.0));
            a[i] = x;
            b[i] = y;
        }))?;
        let (f, a, b) = (vec_of(&f), vec_of(&a), vec_of(&b));
        Ok((0..n).map(|i| (f[i], a[i], b[i])).collect::<Vec<_>>())
    });
}
