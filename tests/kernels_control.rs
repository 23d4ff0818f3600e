//! The kernel suite, control flow: let, assignment, if, loops, blocks, nested nfor!.
//! Each kernel runs on an OpenCL device (PoCL in CI) and on the native engine and is
//! compared with plain Rust.

#![allow(clippy::int_plus_one)] // kernels spell out each comparison on purpose

mod common;

use common::{check, vec_of};
use nuda::prelude::*;

#[test]
fn let_with_and_without_types_and_shadowing() {
    let n = 100;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let x = i as f32 * 0.5;
            let x = x + 1.0;
            x * 2.0
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(32; nfor!(i in n {
            let x = i as f32 * 0.5;
            let x: f32 = x + 1.0;
            let mut y;
            y = x * 2.0;
            out[i] = y;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn compound_assignment_of_every_operator() {
    let n = 64usize;
    let r = |i: i32| {
        let mut v = i + 100;
        v += 3;
        v -= 1;
        v *= 2;
        v /= 3;
        v %= 50;
        v &= 0x3f;
        v |= 0x40;
        v ^= 5;
        v <<= 2;
        v >>= 1;
        v
    };
    check((0..n as i32).map(r).collect::<Vec<i32>>(), || {
        let mut out = NuArray1::<i32>::new(n);
        nuwork!(16; nfor!(i in n {
            let mut v = i as i32 + 100;
            v += 3; v -= 1; v *= 2; v /= 3; v %= 50; v &= 0x3f; v |= 0x40; v ^= 5; v <<= 2; v >>= 1;
            out[i] = v;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn element_compound_assignment() {
    let n = 50;
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    check(
        (0..n).map(|i| 10.0 + 2.0 * i as f32).collect::<Vec<f32>>(),
        || {
            let mut c = NuArray1::<f32>::from_vec(n, vec![10.0; n])?;
            nuwork!(16; nfor!(i in n { c[i] += a[i]; c[i] += a[i]; }))?;
            Ok(vec_of(&c))
        },
    );
}

#[test]
fn if_else_statements_and_else_if_chains() {
    let n = 90usize;
    let f = |i: usize| {
        if i.is_multiple_of(3) {
            1
        } else if i % 3 == 1 {
            2
        } else {
            3
        }
    };
    check((0..n).map(f).collect::<Vec<i32>>(), || {
        let mut out = NuArray1::<i32>::new(n);
        nuwork!(8; nfor!(i in n {
            if i % 3 == 0 { out[i] = 1; } else if i % 3 == 1 { out[i] = 2; } else { out[i] = 3; }
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn if_as_an_expression_pure_and_with_statements() {
    let n = 40usize;
    let f = |i: usize| {
        let a = if i < 20 { i as i64 } else { -(i as i64) };
        let b = if i.is_multiple_of(2) {
            let t = a * 3;
            t + 1
        } else {
            a - 1
        };
        a + b
    };
    check((0..n).map(f).collect::<Vec<i64>>(), || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(8; nfor!(i in n {
            let a = if i < 20 { i as i64 } else { -(i as i64) };
            let b = if i % 2 == 0 { let t = a * 3; t + 1 } else { a - 1 };
            out[i] = a + b;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn blocks_as_values_and_statements() {
    let n = 30usize;
    let f = |i: usize| {
        let v = {
            let s = i * i;
            s + 1
        };
        {
            let w = v * 2;
            w as u32
        }
    };
    check((0..n).map(f).collect::<Vec<u32>>(), || {
        let mut out = NuArray1::<u32>::new(n);
        nuwork!(8; nfor!(i in n {
            let v = { let s = i * i; s + 1 };
            { let w = v * 2; out[i] = w as u32; }
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn while_loop_break_continue() {
    let n = 64usize;
    let f = |i: usize| {
        let (mut k, mut s) = (0u32, 0u32);
        while k < 100 {
            k += 1;
            if k % 2 == 0 {
                continue;
            }
            if k > i as u32 {
                break;
            }
            s += k;
        }
        let mut c = 0u32;
        loop {
            c += 1;
            if c >= s % 7 + 1 {
                break;
            }
        }
        s * 10 + c
    };
    check((0..n).map(f).collect::<Vec<u32>>(), || {
        let mut out = NuArray1::<u32>::new(n);
        nuwork!(16; nfor!(i in n {
            let mut k = 0u32;
            let mut s = 0u32;
            while k < 100 { k += 1; if k % 2 == 0 { continue; } if k > i as u32 { break; } s += k; }
            let mut c = 0u32;
            loop { c += 1; if c >= s % 7 + 1 { break; } }
            out[i] = s * 10 + c;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn for_loops_over_every_range_form() {
    let n = 20usize;
    let f = |i: usize| {
        let mut s = 0i32;
        for k in 0..i {
            s += k as i32;
        }
        for k in 1..=i {
            s += 2 * k as i32;
        }
        for k in (3..i).step_by(4) {
            s -= k as i32;
        }
        for k in (-5i32..=5).step_by(3) {
            s += k * 100;
        }
        s
    };
    check((0..n).map(f).collect::<Vec<i32>>(), || {
        let mut out = NuArray1::<i32>::new(n);
        nuwork!(4; nfor!(i in n {
            let mut s = 0i32;
            for k in 0..i { s += k as i32; }
            for k in 1..=i { s += 2 * k as i32; }
            for k in (3..i).step_by(4) { s -= k as i32; }
            for k in (-5i32..=5).step_by(3) { s += k * 100; }
            out[i] = s;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn nested_nfor_inside_a_kernel() {
    let n = 12usize;
    let f = |i: usize| {
        let mut s = 0usize;
        for p in 0..i {
            for q in (0..=p).step_by(2) {
                s += p * q;
            }
        }
        s as u64
    };
    check((0..n).map(f).collect::<Vec<u64>>(), || {
        let mut out = NuArray1::<u64>::new(n);
        nuwork!(4; nfor!(i in n {
            let mut s = 0usize;
            nfor!((p, q) in (i, 0 <> p :/ 2) { s += p * q; });
            out[i] = s as u64;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn continue_skips_an_iteration_of_a_mapped_loop() {
    let n = 33usize;
    check(
        (0..n)
            .map(|i| if i % 4 == 0 { 0 } else { i as i32 })
            .collect::<Vec<i32>>(),
        || {
            let mut out = NuArray1::<i32>::new(n);
            nuwork!(8; nfor!(i in n {
                if i % 4 == 0 { continue; }
                out[i] = i as i32;
            }))?;
            Ok(vec_of(&out))
        },
    );
}

#[test]
fn an_unsuffixed_integer_captured_from_a_host_loop_is_i32() {
    // `d` has no type until rustc's integer fallback picks i32; the capture must not force
    // one earlier (it once made `d` a `()`).
    let n = 8usize;
    let want: Vec<f32> = (0..n).map(|i| 1.0 + i as f32).collect();
    check(want, || {
        let mut out = NuArray1::<f32>::new(n);
        for d in 0..2 {
            nuwork!(8; nfor!(i in n { out[i] = d as f32 + i as f32; }))?;
        }
        Ok(vec_of(&out))
    });
}
