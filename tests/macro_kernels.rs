//! The kernel suite: every construct of nuda's Rust subset and every builtin, each kernel run
//! on an OpenCL device (PoCL in CI) and on the native engine and compared with plain Rust.

mod common;

use common::{check, check_close};
use nuda::prelude::*;

fn vec_of<T: nuda::Element>(a: &NuArray1<T>) -> Vec<T> {
    a.to_vec()
}

// ---- statements -------------------------------------------------------------------------

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
        if i % 3 == 0 {
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
        let b = if i % 2 == 0 {
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

// ---- operators and casts -----------------------------------------------------------------

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

trait OrPanic<T> {
    fn _or_panic(self) -> T;
}
impl<T> OrPanic<T> for nuda::Result<T> {
    fn _or_panic(self) -> T {
        self.unwrap()
    }
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

// ---- arrays, dims, images, constants --------------------------------------------------------

#[test]
fn three_dimensional_arrays_and_dims() {
    let d = (3usize, 4usize, 5usize);
    let a = NuArray3::<i32>::from_fn(d, |(i, j, k)| (100 * i + 10 * j + k) as i32);
    let want: Vec<i32> = a.as_slice().iter().map(|v| v + 60).collect();
    check(want, || {
        let mut c = NuArray3::<i32>::new(d);
        nuwork!(1, 2, 4; nfor!((i, j, k) in (d.0, d.1, d.2) {
            let (p, q, r) = a.dims();
            c[(i, j, k)] = a[(i, j, k)] + (p * q * r) as i32;
        }))?;
        Ok(c.to_vec())
    });
}

#[test]
fn len_and_tuple_dims_fields() {
    let a = NuArray2::<u16>::new((6, 7));
    check(vec![42u32 + 6 * 100 + 7; 3], || {
        let mut out = NuArray1::<u32>::new(3);
        nuwork!(1; nfor!(i in 3 { out[i] = a.len() as u32 + a.dims().0 as u32 * 100 + a.dims().1 as u32; }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn loops_beyond_the_mapped_ones_run_in_order() {
    let (n, m) = (9usize, 13usize);
    let a = NuArray2::<f32>::from_fn((n, m), |(i, j)| (i * m + j) as f32);
    let want: Vec<f32> = (0..n).map(|i| (0..m).map(|j| a[(i, j)]).sum()).collect();
    check(want, || {
        let mut rows = NuArray1::<f32>::new(n);
        nuwork!(4; nfor!((i, j) in (n, m) { rows[i] += a[(i, j)]; }))?;
        Ok(vec_of(&rows))
    });
}

#[test]
fn nuda_ranges_with_starts_steps_and_inclusive_ends() {
    let n = 20usize;
    let mut want = vec![0i32; n * n];
    for i in (1..=n - 2).step_by(2) {
        for j in (3..n).step_by(5) {
            want[i * n + j] = (i * 100 + j) as i32;
        }
    }
    check(want, || {
        let mut out = NuArray2::<i32>::new((n, n));
        nuwork!(2, 2; nfor!((i, j) in (1 <> n - 2 :/ 2, (3..n).step_by(5)) { out[(i, j)] = (i * 100 + j) as i32; }))?;
        Ok(out.to_vec())
    });
}

#[test]
fn signed_loop_variables() {
    check(
        (-5..7).map(|i: i32| i * i - 3).collect::<Vec<i32>>(),
        || {
            let mut out = NuArray1::<i32>::new(12);
            nuwork!(4; nfor!(i in -5i32..7 { out[(i + 5) as usize] = i * i - 3; }))?;
            Ok(vec_of(&out))
        },
    );
}

#[test]
fn images_read_clamped_and_write() {
    let (w, h) = (17usize, 9usize);
    let src = NuImage2::<f32>::from_fn((w, h), |(x, y)| (x * 3 + y * 7) as f32);
    let mut want = Vec::new();
    for y in 0..h as i32 {
        for x in 0..w as i32 {
            want.push(
                src.read(x - 1, y) + src.read(x + 1, y) + src.read(x, y - 1) + src.read(x, y + 1)
                    - 4.0 * src.read(x, y),
            );
        }
    }
    check_close(&want, 1e-6, || {
        let mut dst = NuImage2::<f32>::new((w, h));
        nuwork!(4, 4; nfor!((y, x) in (h as i32, w as i32) {
            let v = src.read(x - 1, y) + src.read(x + 1, y) + src.read(x, y - 1) + src.read(x, y + 1) - 4.0 * src.read(x, y);
            dst.write(x, y, v);
        }))?;
        Ok(dst.to_vec())
    });
}

#[test]
fn rgba_images_and_texel_lanes() {
    let (w, h) = (8usize, 5usize);
    let src = NuImage2::<[f32; 4]>::from_fn((w, h), |(x, y)| [x as f32, y as f32, 0.25, 1.0]);
    let want: Vec<[f32; 4]> = src
        .to_vec()
        .iter()
        .map(|p| [p[2], p[1] * 2.0, p[0], p[3]])
        .collect();
    check(want, || {
        let mut dst = NuImage2::<[f32; 4]>::new((w, h));
        nuwork!(1, 8; nfor!((y, x) in (h as i32, w as i32) {
            let p = src.read(x, y);
            dst.write(x, y, [p[2], p[1] * 2.0, p[0], p[3]]);
        }))?;
        Ok(dst.to_vec())
    });
}

#[test]
fn constant_arrays_from_as_const() {
    let n = 64usize;
    let table = NuArray1::<f32>::from_vec(4, vec![0.5, -1.0, 2.0, 0.25])._or_panic();
    let x = NuArray1::<f32>::from_fn(n, |i| i as f32 / 8.0);
    let want: Vec<f32> = x
        .to_vec()
        .iter()
        .map(|&v| ((0.25 * v + 2.0) * v - 1.0) * v + 0.5)
        .collect();
    check_close(&want, 1e-5, || {
        let k = table.as_const();
        let mut y = NuArray1::<f32>::new(n);
        nuwork!(16; nfor!(i in n {
            let v = x[i];
            let mut acc = 0.0f32;
            for c in 0..k.len() { acc = acc * v + k[k.len() - 1 - c]; }
            y[i] = acc;
        }))?;
        Ok(vec_of(&y))
    });
}

#[test]
fn read_only_arrays_stay_valid_on_the_host() {
    let n = 100usize;
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let mut b = NuArray1::<f32>::new(n);
    for d in common::engines() {
        nuda::with_device(
            d.index,
            || nuwork!(32; nfor!(i in n { b[i] = a[i] + 1.0; })),
        )
        .unwrap()
        .unwrap();
        assert!(a.residency().0, "a read-only capture is not marked dirty");
        let before = nuda::thread_stats();
        assert_eq!(a[3], 3.0);
        assert!(
            (nuda::thread_stats() - before).no_transfers(),
            "nor copied back"
        );
    }
}

// ---- scalar captures -----------------------------------------------------------------------

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

// ---- builtins ------------------------------------------------------------------------------

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

// ---- #[nucode] ------------------------------------------------------------------------------

#[nucode]
fn clamp01(x: f32) -> f32 {
    if x < 0.0 {
        return 0.0;
    }
    if x > 1.0 {
        1.0
    } else {
        x
    }
}

#[nucode]
fn smooth(x: f32) -> f32 {
    let t = clamp01(x);
    t * t * (3.0 - 2.0 * t)
}

#[nucode]
fn mix(a: f32, b: f32, x: f32) -> f32 {
    a + (b - a) * smooth(x)
}

#[nucode]
fn collatz_steps(mut_n: u64) -> u32 {
    let mut n = mut_n;
    let mut steps = 0u32;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

#[test]
fn nucode_functions_call_each_other_and_run_on_the_host_unchanged() {
    let n = 50usize;
    let want: Vec<f32> = (0..n)
        .map(|i| mix(2.0, 4.0, i as f32 / 25.0 - 0.5))
        .collect();
    check_close(&want, 1e-6, || {
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(8; nfor!(i in n { out[i] = mix(2.0, 4.0, i as f32 / 25.0 - 0.5); }))?;
        Ok(vec_of(&out))
    });
    let steps: Vec<u32> = (1..40u64).map(collatz_steps).collect();
    check(steps, || {
        let mut out = NuArray1::<u32>::new(39);
        nuwork!(8; nfor!(i in 39 { out[i] = collatz_steps(i as u64 + 1); }))?;
        Ok(vec_of(&out))
    });
}

// ---- #[nukernel] ---------------------------------------------------------------------------

#[nukernel]
fn ids(out: &mut NuArray2<u32>) {
    let (i, j) = (global_id(0), global_id(1));
    if i >= out.dims().0 || j >= out.dims().1 {
        return;
    }
    let v = local_id(0) * 1000 + local_id(1) * 100 + group_id(0) * 10 + group_id(1);
    out[(i, j)] =
        (v + global_size(0) * 100000 + local_size(1) * 10000000 + num_groups(1) * 1000000000)
            as u32;
}

#[test]
fn work_item_builtins_in_nukernel() {
    let (n, m) = (6usize, 10usize);
    let mut want = vec![0u32; n * m];
    for i in 0..n {
        for j in 0..m {
            let v = (i % 2) * 1000 + (j % 4) * 100 + (i / 2) * 10 + j / 4;
            want[i * m + j] = (v + 6 * 100000 + 4 * 10000000 + 3 * 1000000000) as u32;
        }
    }
    for d in common::engines() {
        let mut out = NuArray2::<u32>::new((n, m));
        nucall!(d.index, [n, m], [2, 4]; ids(&mut out)).unwrap();
        assert_eq!(out.to_vec(), want, "{}", d.name);
    }
}

#[nukernel]
fn block_reverse(out: &mut NuArray1<i32>, a: &NuArray1<i32>, scratch: &mut NuArray1<i32>) {
    let g = global_id(0);
    let l = local_id(0);
    let size = local_size(0);
    scratch[g] = a[g];
    barrier();
    out[g] = scratch[g - l + (size - 1 - l)];
}

#[test]
fn barrier_synchronises_a_work_group() {
    let n = 64usize;
    let a = NuArray1::<i32>::from_fn(n, |i| i as i32 * 3);
    let want: Vec<i32> = (0..n)
        .map(|g| ((g / 16) * 16 + 15 - g % 16) as i32 * 3)
        .collect();
    for d in common::engines() {
        let (mut out, mut scratch) = (NuArray1::<i32>::new(n), NuArray1::<i32>::new(n));
        nucall!(d.index, [n], [16]; block_reverse(&mut out, &a, &mut scratch)).unwrap();
        assert_eq!(out.to_vec(), want, "{}", d.name);
    }
}

#[nukernel]
fn poly_const(y: &mut NuArray1<f32>, x: &NuArray1<f32>, c: NuConst<'_, NuArray1<f32>>, n: usize) {
    let i = global_id(0);
    if i < n {
        let mut acc = 0.0;
        for k in 0..c.len() {
            acc = acc * x[i] + c[c.len() - 1 - k];
        }
        y[i] = acc;
    }
}

#[test]
fn nukernel_with_constant_and_scalar_parameters() {
    let n = 100usize;
    let x = NuArray1::<f32>::from_fn(n, |i| i as f32 * 0.01);
    let c = NuArray1::<f32>::from_vec(3, vec![1.0, 2.0, 3.0])._or_panic();
    let want: Vec<f32> = x
        .to_vec()
        .iter()
        .map(|v| (3.0 * v + 2.0) * v + 1.0)
        .collect();
    for d in common::engines() {
        let mut y = NuArray1::<f32>::new(n);
        nucall!(d.index, [n], [32]; poly_const(&mut y, &x, c.as_const(), n)).unwrap();
        let got = y.to_vec();
        assert!(
            got.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-5),
            "{}",
            d.name
        );
    }
}

// ---- more shapes and types -------------------------------------------------------------------

#[test]
fn three_mapped_dimensions() {
    let d = (4usize, 5usize, 6usize);
    let want: Vec<u32> = (0..d.0 * d.1 * d.2).map(|f| (f as u32) * 2).collect();
    check(want, || {
        let mut out = NuArray3::<u32>::new(d);
        let (d0, d1, d2) = d;
        nuwork!(2, 1, 3; nfor!((i, j, k) in (d0, d1, d2) {
            out[(i, j, k)] = (((i * d1 + j) * d2 + k) * 2) as u32;
        }))?;
        Ok(out.to_vec())
    });
}

#[test]
fn f64_math() {
    let n = 32usize;
    let f = |i: usize| {
        let x = i as f64 * 0.25 + 1.0;
        x.sqrt() * x.ln() + x.powi(2) - x.floor() + x.mul_add(0.5, 1.0)
    };
    let want: Vec<f64> = (0..n).map(f).collect();
    for d in common::engines() {
        let mut out = NuArray1::<f64>::new(n);
        nuda::with_device(d.index, || {
            nuwork!(8; nfor!(i in n {
                let x = i as f64 * 0.25 + 1.0;
                out[i] = x.sqrt() * x.ln() + x.powi(2) - x.floor() + x.mul_add(0.5, 1.0);
            }))
        })
        .unwrap()
        .unwrap();
        assert!(
            out.to_vec()
                .iter()
                .zip(&want)
                .all(|(g, w)| (g - w).abs() <= 1e-12 * w.abs().max(1.0)),
            "{}",
            d.name
        );
    }
}

#[test]
fn isize_and_u64_arithmetic() {
    let n = 20usize;
    let f = |i: usize| {
        let s = i as isize - 10;
        let u = (i as u64) << 35;
        (s * s * s) as i64 + (u / 3 % 1_000_003) as i64
    };
    check((0..n).map(f).collect::<Vec<i64>>(), || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(4; nfor!(i in n {
            let s = i as isize - 10;
            let u = (i as u64) << 35;
            out[i] = (s * s * s) as i64 + (u / 3 % 1_000_003) as i64;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn bool_captures_and_compound_conditions() {
    let n = 30usize;
    let (flip, limit) = (true, 17u32);
    let f = |i: usize| {
        let k = i as u32;
        if (k < limit && flip) || (k % 5 == 0 && !flip) {
            k
        } else {
            0
        }
    };
    check((0..n).map(f).collect::<Vec<u32>>(), || {
        let mut out = NuArray1::<u32>::new(n);
        nuwork!(8; nfor!(i in n {
            let k = i as u32;
            out[i] = if (k < limit && flip) || (k % 5 == 0 && !flip) { k } else { 0 };
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn tuple_destructuring_of_values() {
    check(vec![(3 - 8) * 10 + 7i32; 4], || {
        let mut out = NuArray1::<i32>::new(4);
        nuwork!(2; nfor!(i in 4 {
            let (p, mut q) = (3i32, 8i32);
            let (q2, _) = (q, p);
            q = q2 - 1;
            out[i] = (p - q - 1) * 10 + q;
        }))?;
        Ok(vec_of(&out))
    });
}

#[nukernel]
fn blur_image(dst: &mut NuImage2<f32>, src: &NuImage2<f32>) {
    let x = global_id(0) as i32;
    let y = global_id(1) as i32;
    let (w, h) = dst.dims();
    if (x as usize) < w && (y as usize) < h {
        let s = src.read(x - 1, y) + src.read(x, y) + src.read(x + 1, y);
        dst.write(x, y, s / 3.0);
    }
}

#[test]
fn nukernel_with_images() {
    let (w, h) = (19usize, 7usize);
    let src = NuImage2::<f32>::from_fn((w, h), |(x, y)| (x * x + y) as f32);
    let mut want = Vec::new();
    for y in 0..h as i32 {
        for x in 0..w as i32 {
            want.push((src.read(x - 1, y) + src.read(x, y) + src.read(x + 1, y)) / 3.0);
        }
    }
    for d in common::engines() {
        let mut dst = NuImage2::<f32>::new((w, h));
        nucall!(d.index, [w, h], [4, 4]; blur_image(&mut dst, &src)).unwrap();
        let got = dst.to_vec();
        assert!(
            got.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-4),
            "{}",
            d.name
        );
    }
}

#[nukernel]
fn cube_sum(out: &mut NuArray3<u64>, scale: u64) {
    let (i, j, k) = (global_id(0), global_id(1), global_id(2));
    let (a, b, c) = out.dims();
    if i < a && j < b && k < c {
        out[(i, j, k)] = collatz_steps(scale * (i + j + k + 1) as u64) as u64;
    }
}

#[test]
fn nukernel_three_dimensional_calling_nucode() {
    let d = (3usize, 4usize, 5usize);
    let mut want = Vec::new();
    for i in 0..d.0 {
        for j in 0..d.1 {
            for k in 0..d.2 {
                want.push(collatz_steps(3 * (i + j + k + 1) as u64) as u64);
            }
        }
    }
    for dev in common::engines() {
        let mut out = NuArray3::<u64>::new(d);
        nucall!(dev.index, [d.0, d.1, d.2], [1, 2, 5]; cube_sum(&mut out, 3)).unwrap();
        assert_eq!(out.to_vec(), want, "{}", dev.name);
    }
}

#[test]
fn sgemm_shaped_nest_with_inner_sequential_loop() {
    let n = 24usize;
    let a = NuArray2::<f32>::from_fn((n, n), |(i, j)| ((i * 3 + j) % 7) as f32);
    let b = NuArray2::<f32>::from_fn((n, n), |(i, j)| ((i + 2 * j) % 5) as f32);
    let mut want = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            want[i * n + j] = (0..n).map(|k| a[(k, i)] * b[(k, j)]).sum();
        }
    }
    check(want, || {
        let mut c = NuArray2::<f32>::new((n, n));
        nuwork!(8, 8; nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        }))?;
        Ok(c.to_vec())
    });
}
