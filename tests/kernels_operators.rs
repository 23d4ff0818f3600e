//! The kernel suite, operators, casts and captured scalars.
//! Each kernel runs on an OpenCL device (PoCL in CI) and on the native engine and is
//! compared with plain Rust.

#![allow(clippy::nonminimal_bool, clippy::identity_op)] // kernels spell out each operator on purpose

mod common;

use common::{check, vec_of, OrPanic};
use nuda::prelude::*;

#[test]
fn integer_operators() {
    let n = 100usize;
    let f = |i: usize| {
        let a = i as i32 - 50;
        let b = (i as i32 % 7) + 1;
        (a + b) * (a - b) / b + a % b + (a & 12) + (a | 3) + (a ^ b) + (b << 3) + (a >> 2)
    };
    check((0..n).map(f).collect::<Vec<i32>>(), || {
        let mut out = NuArray1::<i32>::new(n);
        nuwork!(16; nfor!(i in n {
            let a = i as i32 - 50;
            let b = (i as i32 % 7) + 1;
            out[i] = (a + b) * (a - b) / b + a % b + (a & 12) + (a | 3) + (a ^ b) + (b << 3) + (a >> 2);
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn comparison_logical_and_unary_operators() {
    let n = 64usize;
    let f = |i: usize| {
        let a = i as i32 - 32;
        let t = (a < 0 && a != -5) || (a >= 10 && !(a > 20)) || a == 0 || a <= -30;
        (if t { 1 } else { 0 }) + (-a) * 3 + (!a & 0xff)
    };
    check((0..n).map(f).collect::<Vec<i32>>(), || {
        let mut out = NuArray1::<i32>::new(n);
        nuwork!(16; nfor!(i in n {
            let a = i as i32 - 32;
            let t = (a < 0 && a != -5) || (a >= 10 && !(a > 20)) || a == 0 || a <= -30;
            out[i] = (if t { 1 } else { 0 }) + (-a) * 3 + (!a & 0xff);
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn narrow_integers_wrap_like_rust() {
    let n = 256usize;
    let f = |i: usize| {
        let x = i as u8;
        let y = x.wrapping_mul(3).wrapping_add(7);
        let z = (y as i8).wrapping_sub(100);
        let w: i16 = (z as i16).wrapping_mul(300);
        (w >> 2) as i32 + (!x) as i32
    };
    check((0..n).map(f).collect::<Vec<i32>>(), || {
        let mut out = NuArray1::<i32>::new(n);
        nuwork!(32; nfor!(i in n {
            let x = i as u8;
            let y = x.wrapping_mul(3).wrapping_add(7);
            let z = (y as i8).wrapping_sub(100);
            let w: i16 = (z as i16).wrapping_mul(300);
            out[i] = (w >> 2) as i32 + (!x) as i32;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn float_to_integer_casts_saturate_like_rust() {
    let xs = vec![
        -1e20f32,
        -3.7,
        -0.5,
        0.0,
        0.9,
        2.5,
        1e9,
        5e9,
        1e20,
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
    ];
    let n = xs.len();
    let want: Vec<i64> = xs
        .iter()
        .map(|&x| (x as i32) as i64 * 10 + (x as u8) as i64 + (x as u32 as i64 % 1000))
        .collect();
    let x = NuArray1::<f32>::from_vec(n, xs)._or_panic();
    check(want, || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(4; nfor!(i in n {
            let v = x[i];
            out[i] = (v as i32) as i64 * 10 + (v as u8) as i64 + (v as u32 as i64 % 1000);
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn float_remainder_and_f64_arithmetic() {
    let n = 50usize;
    let f = |i: usize| {
        let x = i as f64 * 0.7 - 10.0;
        (x % 3.0) * 2.0 + x / 7.0
    };
    let want: Vec<f64> = (0..n).map(f).collect();
    check(want, || {
        let mut out = NuArray1::<f64>::new(n);
        nuwork!(16; nfor!(i in n {
            let x = i as f64 * 0.7 - 10.0;
            out[i] = (x % 3.0) * 2.0 + x / 7.0;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn captured_scalars_of_every_type() {
    let (f, d, c, s, i, l, uc, us, u, ul, z, iz, flag) = (
        1.5f32,
        2.25f64,
        -3i8,
        -300i16,
        -70000i32,
        -5_000_000_000i64,
        200u8,
        60000u16,
        4_000_000_000u32,
        9_000_000_000u64,
        7usize,
        -9isize,
        true,
    );
    let want = f as f64
        + d
        + c as f64
        + s as f64
        + i as f64
        + l as f64
        + uc as f64
        + us as f64
        + u as f64
        + ul as f64
        + z as f64
        + iz as f64
        + if flag { 1.0 } else { 0.0 };
    check(vec![want; 2], || {
        let mut out = NuArray1::<f64>::new(2);
        nuwork!(1; nfor!(k in 2 {
            out[k] = f as f64 + d + c as f64 + s as f64 + i as f64 + l as f64 + uc as f64 + us as f64 + u as f64 + ul as f64 + z as f64 + iz as f64 + if flag { 1.0 } else { 0.0 };
        }))?;
        Ok(vec_of(&out))
    });
}

const SCALE: f32 = 3.0;

#[test]
fn constants_are_captured_by_value() {
    check(vec![6.0f32; 4], || {
        let mut out = NuArray1::<f32>::new(4);
        nuwork!(2; nfor!(i in 4 { out[i] = SCALE * 2.0; }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn names_that_are_opencl_keywords() {
    check(vec![12i32; 3], || {
        let mut out = NuArray1::<i32>::new(3);
        nuwork!(1; nfor!(i in 3 {
            let int = 2;
            let float = 3;
            let global = int * float;
            let min = global + 0;
            out[i] = min * 2;
        }))?;
        Ok(vec_of(&out))
    });
}
