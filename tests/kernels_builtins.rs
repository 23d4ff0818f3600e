//! The kernel suite, builtin float and integer methods.
//! Each kernel runs on an OpenCL device (PoCL in CI) and on the native engine and is
//! compared with plain Rust.

mod common;

use common::{check, check_close, vec_of, OrPanic};
use nuda::prelude::*;

#[test]
fn float_methods() {
    let n = 40usize;
    let f = |i: usize| {
        let x = i as f32 * 0.37 + 0.1;
        let y = 1.5f32;
        x.sqrt()
            + (-x).abs()
            + x.min(y)
            + x.max(y)
            + x.mul_add(y, 0.5)
            + (x * 0.1).exp()
            + x.ln()
            + x.log2()
            + x.sin()
            + x.cos()
            + (x * 0.1).tan()
            + x.powi(3)
            + x.powf(0.5)
            + x.floor()
            + x.ceil()
            + (x - 3.5).round()
            + x.recip()
            + rsqrt_host(x)
    };
    let want: Vec<f32> = (0..n).map(f).collect();
    check_close(&want, 2e-5, || {
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(8; nfor!(i in n {
            let x = i as f32 * 0.37 + 0.1;
            let y = 1.5f32;
            out[i] = x.sqrt() + (-x).abs() + x.min(y) + x.max(y) + x.mul_add(y, 0.5) + (x * 0.1).exp() + x.ln() + x.log2()
                + x.sin() + x.cos() + (x * 0.1).tan() + x.powi(3) + x.powf(0.5) + x.floor() + x.ceil() + (x - 3.5).round()
                + x.recip() + rsqrt(x);
        }))?;
        Ok(vec_of(&out))
    });
}

fn rsqrt_host(x: f32) -> f32 {
    1.0 / x.sqrt()
}

#[test]
fn round_half_away_from_zero() {
    let xs = vec![-2.5f32, -1.5, -0.5, 0.5, 1.5, 2.5];
    let want: Vec<f32> = xs.iter().map(|x| x.round()).collect();
    let x = NuArray1::<f32>::from_vec(xs.len(), xs)._or_panic();
    check(want, || {
        let mut out = NuArray1::<f32>::new(6);
        nuwork!(2; nfor!(i in 6 { out[i] = x[i].round(); }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn integer_methods() {
    let n = 64usize;
    let f = |i: usize| {
        let a = (i as u32).wrapping_mul(2654435761);
        let b = i as i32 - 30;
        let r =
            a.rotate_left(5) ^ a.rotate_right(11) ^ a.wrapping_add(0xdeadbeef) ^ a.wrapping_sub(99);
        r as i64
            + a.count_ones() as i64
            + a.leading_zeros() as i64
            + b.abs() as i64
            + b.min(3) as i64
            + b.max(-3) as i64
            + a.min(1000) as i64
            + (b.wrapping_mul(b)) as i64
    };
    check((0..n).map(f).collect::<Vec<i64>>(), || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(16; nfor!(i in n {
            let a = (i as u32).wrapping_mul(2654435761);
            let b = i as i32 - 30;
            let r = a.rotate_left(5) ^ a.rotate_right(11) ^ a.wrapping_add(0xdeadbeef) ^ a.wrapping_sub(99);
            out[i] = r as i64 + a.count_ones() as i64 + a.leading_zeros() as i64 + b.abs() as i64 + b.min(3) as i64 + b.max(-3) as i64
                + a.min(1000) as i64 + (b.wrapping_mul(b)) as i64;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn sixty_four_bit_integer_methods() {
    let n = 16usize;
    let f = |i: usize| {
        let a = (i as u64 + 1) << 40;
        (a.rotate_left(30) ^ a.rotate_right(7)).count_ones() as u64 + a.leading_zeros() as u64
    };
    check((0..n).map(f).collect::<Vec<u64>>(), || {
        let mut out = NuArray1::<u64>::new(n);
        nuwork!(4; nfor!(i in n { let a = (i as u64 + 1) << 40; out[i] = (a.rotate_left(30) ^ a.rotate_right(7)).count_ones() as u64 + a.leading_zeros() as u64; }))?;
        Ok(vec_of(&out))
    });
}
