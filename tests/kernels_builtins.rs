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

/// The sine and cosine of one local, which the OpenCL C computes with one `sincos`
/// (`emit/cl/sincos.rs`), in f32 and f64, up to a few hundred radians as mri-q's are: within
/// a few ulp of Rust's, on every engine.
#[test]
fn sine_and_cosine_of_one_local() {
    let n = 256usize;
    let arg = |i: usize| (i as f32 * 1.173) - 20.0;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (a, b) = (arg(i), f64::from(arg(i)) * 3.0);
            a.sin() * 2.0 + a.cos() + (b.cos() - b.sin()) as f32
        })
        .collect();
    check_close(&want, 2e-6, || {
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(16; nfor!(i in n {
            let a = (i as f32 * 1.173) - 20.0;
            let b = a as f64 * 3.0;
            out[i] = a.sin() * 2.0 + a.cos() + (b.cos() - b.sin()) as f32;
        }))?;
        Ok(vec_of(&out))
    });
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

/// Edge values and a spread of ordinary ones, for the float methods of issue 13.
fn float_inputs() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-30,
        -1e30,
    ];
    v.extend((0..60).map(|i| ((i as f64) * 0.731).sin() * 3.7 + (i % 7) as f64 * 0.11));
    v
}

/// Whether `g` is `w` within `ulps`-ish relative error (NaN matches NaN, infinities match).
fn near(g: f64, w: f64, rel: f64) -> bool {
    (g.is_nan() && w.is_nan())
        || g == w
        || (g - w).abs() <= rel * w.abs().max(1e-30)
        || (g - w).abs() < 1e-37
}

macro_rules! more_float_methods {
    ($name:ident, $t:ty, $rel:expr) => {
        /// tanh, sinh, cosh, asin, acos, atan, atan2, log10, exp2, cbrt, hypot, trunc and
        /// copysign against Rust, edge values included, within the built-ins' ULP.
        #[test]
        fn $name() {
            let xs: Vec<$t> = float_inputs().into_iter().map(|x| x as $t).collect();
            let n = xs.len();
            let rust = |x: $t, y: $t| -> [$t; 13] {
                [x.tanh(), x.sinh(), x.cosh(), x.asin(), x.acos(), x.atan(), x.atan2(y), x.log10(),
                 x.exp2(), x.cbrt(), x.hypot(y), x.trunc(), x.copysign(y)]
            };
            let ys: Vec<$t> = xs.iter().rev().copied().collect();
            let want: Vec<[$t; 13]> = (0..n).map(|i| rust(xs[i], ys[i])).collect();
            let (a, b) = (NuArray1::<$t>::from_vec(n, xs.clone())._or_panic(), NuArray1::<$t>::from_vec(n, ys)._or_panic());
            for d in common::engines() {
                let got = nuda::with_device(d.index, || {
                    let mut out = NuArray2::<$t>::new((n, 13));
                    nuwork!(8; nfor!(i in n {
                        let (x, y) = (a[i], b[i]);
                        out[(i, 0)] = x.tanh(); out[(i, 1)] = x.sinh(); out[(i, 2)] = x.cosh();
                        out[(i, 3)] = x.asin(); out[(i, 4)] = x.acos(); out[(i, 5)] = x.atan();
                        out[(i, 6)] = x.atan2(y); out[(i, 7)] = x.log10(); out[(i, 8)] = x.exp2();
                        out[(i, 9)] = x.cbrt(); out[(i, 10)] = x.hypot(y); out[(i, 11)] = x.trunc();
                        out[(i, 12)] = x.copysign(y);
                    }))?;
                    Ok::<_, nuda::Error>(out.to_vec())
                }).unwrap().unwrap();
                for i in 0..n {
                    for k in 0..13 {
                        let (g, w) = (got[i * 13 + k] as f64, want[i][k] as f64);
                        // trunc and copysign are exact, sign of zero included.
                        let exact = k >= 11;
                        let ok = if exact { g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()) } else { near(g, w, $rel) };
                        assert!(ok, "on {}: method {k} of {}: got {g}, want {w}", d.name, xs[i]);
                    }
                }
            }
        }
    };
}

more_float_methods!(more_float_methods_f32, f32, 1e-5);
more_float_methods!(more_float_methods_f64, f64, 1e-12);

macro_rules! more_integer_methods {
    ($name:ident, $t:ty, $u:ty) => {
        /// trailing_zeros, saturating_add/sub/mul and abs_diff against Rust, MIN, MAX,
        /// 0 and -1 included.
        #[test]
        fn $name() {
            let mut xs: Vec<$t> = vec![0, 1, <$t>::MAX, <$t>::MIN, <$t>::MAX - 1, (0 as $t).wrapping_sub(1)];
            xs.extend((0..40u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7) as $t));
            let n = xs.len();
            let ys: Vec<$t> = xs.iter().rev().copied().collect();
            let want: Vec<(u32, $t, $t, $u, $t)> = (0..n)
                .map(|i| (xs[i].trailing_zeros(), xs[i].saturating_add(ys[i]), xs[i].saturating_sub(ys[i]), xs[i].abs_diff(ys[i]), xs[i].saturating_mul(ys[i])))
                .collect();
            let (a, b) = (NuArray1::<$t>::from_vec(n, xs)._or_panic(), NuArray1::<$t>::from_vec(n, ys)._or_panic());
            check(want, || {
                let (mut tz, mut sa) = (NuArray1::<u32>::new(n), NuArray1::<$t>::new(n));
                let (mut ss, mut ad) = (NuArray1::<$t>::new(n), NuArray1::<$u>::new(n));
                let mut sm = NuArray1::<$t>::new(n);
                nuwork!(8; nfor!(i in n {
                    tz[i] = a[i].trailing_zeros();
                    sa[i] = a[i].saturating_add(b[i]);
                    ss[i] = a[i].saturating_sub(b[i]);
                    ad[i] = a[i].abs_diff(b[i]);
                    sm[i] = a[i].saturating_mul(b[i]);
                }))?;
                let (tz, sa, ss, ad, sm) = (tz.to_vec(), sa.to_vec(), ss.to_vec(), ad.to_vec(), sm.to_vec());
                Ok((0..n).map(|i| (tz[i], sa[i], ss[i], ad[i], sm[i])).collect::<Vec<_>>())
            });
        }
    };
}

more_integer_methods!(more_integer_methods_i8, i8, u8);
more_integer_methods!(more_integer_methods_u16, u16, u16);
more_integer_methods!(more_integer_methods_i32, i32, u32);
more_integer_methods!(more_integer_methods_u32, u32, u32);
more_integer_methods!(more_integer_methods_i64, i64, u64);
more_integer_methods!(more_integer_methods_u64, u64, u64);

macro_rules! typed_helper_methods {
    ($name:ident, $t:ty) => {
        /// signum, pow (wrapping) and swap_bytes against Rust, MIN, MAX, 0 and -1 included.
        #[test]
        fn $name() {
            let mut xs: Vec<$t> = vec![0, 1, 2, 3, <$t>::MAX, <$t>::MIN, (0 as $t).wrapping_sub(1)];
            xs.extend((0..30u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 9) as $t));
            let n = xs.len();
            let want: Vec<($t, $t, $t)> = xs
                .iter()
                .enumerate()
                .map(|(i, &x)| (x.signum(), x.wrapping_pow(i as u32 % 13), x.swap_bytes()))
                .collect();
            let a = NuArray1::<$t>::from_vec(n, xs)._or_panic();
            check(want, || {
                let (mut s, mut p, mut w) = (NuArray1::<$t>::new(n), NuArray1::<$t>::new(n), NuArray1::<$t>::new(n));
                nuwork!(8; nfor!(i in n {
                    s[i] = a[i].signum();
                    p[i] = a[i].pow(i as u32 % 13);
                    w[i] = a[i].swap_bytes();
                }))?;
                let (s, p, w) = (s.to_vec(), p.to_vec(), w.to_vec());
                Ok((0..n).map(|i| (s[i], p[i], w[i])).collect::<Vec<_>>())
            });
        }
    };
}

typed_helper_methods!(typed_helpers_i8, i8);
typed_helper_methods!(typed_helpers_i16, i16);
typed_helper_methods!(typed_helpers_i32, i32);
typed_helper_methods!(typed_helpers_i64, i64);

macro_rules! unsigned_helper_methods {
    ($name:ident, $t:ty) => {
        /// pow (wrapping) and swap_bytes of unsigned types against Rust.
        #[test]
        fn $name() {
            let mut xs: Vec<$t> = vec![0, 1, 2, 3, <$t>::MAX];
            xs.extend((0..30u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 9) as $t));
            let n = xs.len();
            let want: Vec<($t, $t)> = xs.iter().enumerate().map(|(i, &x)| (x.wrapping_pow(i as u32 % 13), x.swap_bytes())).collect();
            let a = NuArray1::<$t>::from_vec(n, xs)._or_panic();
            check(want, || {
                let (mut p, mut w) = (NuArray1::<$t>::new(n), NuArray1::<$t>::new(n));
                nuwork!(8; nfor!(i in n { p[i] = a[i].pow(i as u32 % 13); w[i] = a[i].swap_bytes(); }))?;
                let (p, w) = (p.to_vec(), w.to_vec());
                Ok((0..n).map(|i| (p[i], w[i])).collect::<Vec<_>>())
            });
        }
    };
}

unsigned_helper_methods!(unsigned_helpers_u8, u8);
unsigned_helper_methods!(unsigned_helpers_u16, u16);
unsigned_helper_methods!(unsigned_helpers_u32, u32);
unsigned_helper_methods!(unsigned_helpers_u64, u64);

macro_rules! float_flag_methods {
    ($name:ident, $t:ty) => {
        /// signum, is_nan, to_radians and to_degrees against Rust, edge values included.
        #[test]
        fn $name() {
            let xs: Vec<$t> = float_inputs().into_iter().map(|x| x as $t).collect();
            let n = xs.len();
            let want: Vec<[$t; 4]> = xs
                .iter()
                .map(|&x| [x.signum(), if x.is_nan() { 1.0 } else { 0.0 }, x.to_radians(), x.to_degrees()])
                .collect();
            let a = NuArray1::<$t>::from_vec(n, xs.clone())._or_panic();
            for d in common::engines() {
                let got = nuda::with_device(d.index, || {
                    let mut out = NuArray2::<$t>::new((n, 4));
                    nuwork!(8; nfor!(i in n {
                        let x = a[i];
                        out[(i, 0)] = x.signum();
                        out[(i, 1)] = if x.is_nan() { 1.0 } else { 0.0 };
                        out[(i, 2)] = x.to_radians();
                        out[(i, 3)] = x.to_degrees();
                    }))?;
                    Ok::<_, nuda::Error>(out.to_vec())
                }).unwrap().unwrap();
                for i in 0..n {
                    for k in 0..4 {
                        let (g, w) = (got[i * 4 + k], want[i][k]);
                        let ok = g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()) || (k >= 2 && near(g as f64, w as f64, 1e-6));
                        assert!(ok, "on {}: method {k} of {}: got {g}, want {w}", d.name, xs[i]);
                    }
                }
            }
        }
    };
}

float_flag_methods!(float_flags_f32, f32);
float_flag_methods!(float_flags_f64, f64);

/// On `usize`, methods whose results depend on the width (swap_bytes, pow, trailing_zeros,
/// saturating arithmetic) answer as on the host's 64 bits, even where other sizes fit 32.
#[test]
fn usize_methods_answer_in_64_bits() {
    let n = 16usize;
    let big = usize::MAX - 10;
    let want: Vec<[u64; 5]> = (0..n)
        .map(|i| {
            let x = i + 3;
            [
                x.swap_bytes() as u64,
                x.wrapping_pow(20) as u64,
                (x << 40).trailing_zeros() as u64,
                (big - i).saturating_add(x) as u64,
                (i as isize - 5).signum() as u64,
            ]
        })
        .collect();
    check(want, || {
        let mut o = NuArray2::<u64>::new((n, 5));
        nuwork!(8; nfor!(i in n {
            let x = i + 3;
            o[(i, 0)] = x.swap_bytes() as u64;
            o[(i, 1)] = x.pow(20) as u64;
            o[(i, 2)] = (x << 40).trailing_zeros() as u64;
            o[(i, 3)] = (big - i).saturating_add(x) as u64;
            o[(i, 4)] = (i as isize - 5).signum() as u64;
        }))?;
        let v = o.to_vec();
        Ok((0..n)
            .map(|i| <[u64; 5]>::try_from(&v[i * 5..i * 5 + 5]).unwrap())
            .collect::<Vec<_>>())
    });
}

macro_rules! rem_euclid_ints {
    ($name:ident, $t:ty) => {
        /// rem_euclid against Rust on negative and positive operands, MIN and MAX included;
        /// a zero divisor is an error, as `%`'s is.
        #[test]
        fn $name() {
            let mut xs: Vec<$t> = vec![0, 1, 7, <$t>::MAX, <$t>::MIN, (0 as $t).wrapping_sub(7)];
            xs.extend((0..30u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as $t));
            let ds: Vec<$t> = xs.iter().map(|&x| if x == 0 || x == (0 as $t).wrapping_sub(1) { 3 } else { x / 3 + 2 }).collect();
            let (ds, xs): (Vec<$t>, Vec<$t>) = ds.into_iter().zip(xs).filter(|(d, x)| x.checked_rem_euclid(*d).is_some()).unzip();
            let n = xs.len();
            let want: Vec<$t> = (0..n).map(|i| xs[i].rem_euclid(ds[i])).collect();
            let (a, d) = (NuArray1::<$t>::from_vec(n, xs)._or_panic(), NuArray1::<$t>::from_vec(n, ds)._or_panic());
            check(want, || {
                let mut out = NuArray1::<$t>::new(n);
                nuwork!(8; nfor!(i in n { out[i] = a[i].rem_euclid(d[i]); }))?;
                Ok(out.to_vec())
            });
            for dev in common::engines() {
                let r = nuda::with_device(dev.index, || {
                    let mut out = NuArray1::<$t>::new(n);
                    let zero = 0 as $t;
                    nuwork!(8; nfor!(i in n { out[i] = a[i].rem_euclid(zero); }))
                }).unwrap();
                assert!(r.is_err(), "on {}: a zero divisor must be an error", dev.name);
            }
        }
    };
}

rem_euclid_ints!(rem_euclid_i8, i8);
rem_euclid_ints!(rem_euclid_i32, i32);
rem_euclid_ints!(rem_euclid_i64, i64);
rem_euclid_ints!(rem_euclid_u16, u16);
rem_euclid_ints!(rem_euclid_u64, u64);

/// rem_euclid of floats against Rust.
#[test]
fn rem_euclid_floats() {
    let xs: Vec<f64> = float_inputs();
    let ds: Vec<f64> = xs
        .iter()
        .rev()
        .map(|d| if d.is_nan() { 2.5 } else { *d })
        .collect();
    let n = xs.len();
    let want32: Vec<f32> = (0..n)
        .map(|i| (xs[i] as f32).rem_euclid(ds[i] as f32))
        .collect();
    let want64: Vec<f64> = (0..n).map(|i| xs[i].rem_euclid(ds[i])).collect();
    let (a, d) = (
        NuArray1::<f64>::from_vec(n, xs)._or_panic(),
        NuArray1::<f64>::from_vec(n, ds)._or_panic(),
    );
    let bits = |v: &[f64]| {
        v.iter()
            .map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() })
            .collect::<Vec<_>>()
    };
    let bits32 = |v: &[f32]| {
        v.iter()
            .map(|x| if x.is_nan() { u32::MAX } else { x.to_bits() })
            .collect::<Vec<_>>()
    };
    check((bits32(&want32), bits(&want64)), || {
        let (mut o32, mut o64) = (NuArray1::<f32>::new(n), NuArray1::<f64>::new(n));
        nuwork!(8; nfor!(i in n {
            o32[i] = (a[i] as f32).rem_euclid(d[i] as f32);
            o64[i] = a[i].rem_euclid(d[i]);
        }))?;
        Ok((bits32(&o32.to_vec()), bits(&o64.to_vec())))
    });
}

macro_rules! clamp_tests {
    ($name:ident, $t:ty, $xs:expr, $bad:expr) => {
        /// clamp against Rust; bounds out of order (or a NaN bound) are the launch's error,
        /// where Rust panics.
        #[test]
        fn $name() {
            let xs: Vec<$t> = $xs;
            let n = xs.len();
            let (lo, hi) = (xs[n / 3], xs[n / 3].max(xs[2 * n / 3]));
            let want: Vec<$t> = xs.iter().map(|&x| x.clamp(lo, hi)).collect();
            let a = NuArray1::<$t>::from_vec(n, xs)._or_panic();
            let bits = |v: Vec<$t>| v.into_iter().map(|x| format!("{x:?}")).collect::<Vec<_>>();
            check(bits(want), || {
                let mut out = NuArray1::<$t>::new(n);
                nuwork!(8; nfor!(i in n { out[i] = a[i].clamp(lo, hi); }))?;
                Ok(bits(out.to_vec()))
            });
            for (blo, bhi) in $bad {
                for d in common::engines() {
                    let r = nuda::with_device(d.index, || {
                        let mut out = NuArray1::<$t>::new(n);
                        nuwork!(8; nfor!(i in n { out[i] = a[i].clamp(blo, bhi); }))
                    })
                    .unwrap();
                    let e = r.expect_err("bounds out of order");
                    assert!(e.to_string().contains("clamp"), "on {}: {e}", d.name);
                    // Its own advice, not a division's (issue 27, item 10).
                    assert!(e.to_string().contains("min <= max"), "on {}: {e}", d.name);
                    assert!(!e.to_string().contains("divisor"), "on {}: {e}", d.name);
                }
            }
        }
    };
}

clamp_tests!(
    clamp_i32,
    i32,
    (0..50)
        .map(|i| (i * 37 % 101) - 50)
        .chain([i32::MIN, i32::MAX])
        .collect(),
    [(5i32, 4i32)]
);
clamp_tests!(
    clamp_u8,
    u8,
    (0..50).map(|i| (i * 37 % 251) as u8).collect(),
    [(9u8, 3u8)]
);
clamp_tests!(
    clamp_f32,
    f32,
    float_inputs().into_iter().map(|x| x as f32).collect(),
    [(1.0f32, -1.0f32), (f32::NAN, 1.0)]
);
clamp_tests!(
    clamp_f64,
    f64,
    float_inputs(),
    [(2.0f64, 1.0f64), (0.0, f64::NAN)]
);

macro_rules! checked_or_tests {
    ($name:ident, $t:ty) => {
        /// `x.checked_op(y).unwrap_or(v)` for add, sub, mul, div and rem against Rust, with
        /// overflow, zero divisors and `MIN / -1` among the inputs.
        #[test]
        fn $name() {
            let mut xs: Vec<$t> = vec![0, 1, 2, <$t>::MAX, <$t>::MIN, (0 as $t).wrapping_sub(1), <$t>::MAX / 2 + 1];
            xs.extend((0..30u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 13) as $t));
            let n = xs.len();
            let ys: Vec<$t> = xs.iter().rev().copied().collect();
            let v = 42 as $t;
            let want: Vec<[$t; 5]> = (0..n)
                .map(|i| {
                    let (x, y) = (xs[i], ys[i]);
                    [x.checked_add(y).unwrap_or(v), x.checked_sub(y).unwrap_or(v), x.checked_mul(y).unwrap_or(v),
                     x.checked_div(y).unwrap_or(v), x.checked_rem(y).unwrap_or(v)]
                })
                .collect();
            let (a, b) = (NuArray1::<$t>::from_vec(n, xs)._or_panic(), NuArray1::<$t>::from_vec(n, ys)._or_panic());
            check(want, || {
                let mut o = NuArray2::<$t>::new((n, 5));
                nuwork!(8; nfor!(i in n {
                    let (x, y) = (a[i], b[i]);
                    o[(i, 0)] = x.checked_add(y).unwrap_or(v);
                    o[(i, 1)] = x.checked_sub(y).unwrap_or(v);
                    o[(i, 2)] = x.checked_mul(y).unwrap_or(v);
                    o[(i, 3)] = x.checked_div(y).unwrap_or(v);
                    o[(i, 4)] = x.checked_rem(y).unwrap_or(v);
                }))?;
                let o = o.to_vec();
                Ok((0..n).map(|i| <[$t; 5]>::try_from(&o[i * 5..i * 5 + 5]).unwrap()).collect::<Vec<_>>())
            });
        }
    };
}

checked_or_tests!(checked_or_i8, i8);
checked_or_tests!(checked_or_u16, u16);
checked_or_tests!(checked_or_i32, i32);
checked_or_tests!(checked_or_u32, u32);
checked_or_tests!(checked_or_i64, i64);
checked_or_tests!(checked_or_u64, u64);

/// The typed helpers on `usize` (checked, saturating_mul, rem_euclid, clamp): 64-bit answers.
#[test]
fn usize_helpers() {
    let n = 12usize;
    let big = usize::MAX / 3;
    let want: Vec<[u64; 5]> = (0..n)
        .map(|i| {
            let x = big + i;
            [
                x.checked_add(x).unwrap_or(7) as u64,
                x.checked_mul(4).unwrap_or(7) as u64,
                x.saturating_mul(2) as u64,
                x.rem_euclid(i + 1) as u64,
                x.clamp(big + 3, big + 8) as u64,
            ]
        })
        .collect();
    check(want, || {
        let mut o = NuArray2::<u64>::new((n, 5));
        nuwork!(4; nfor!(i in n {
            let x = big + i;
            o[(i, 0)] = x.checked_add(x).unwrap_or(7) as u64;
            o[(i, 1)] = x.checked_mul(4).unwrap_or(7) as u64;
            o[(i, 2)] = x.saturating_mul(2) as u64;
            o[(i, 3)] = x.rem_euclid(i + 1) as u64;
            o[(i, 4)] = x.clamp(big + 3, big + 8) as u64;
        }))?;
        let o = o.to_vec();
        Ok((0..n)
            .map(|i| <[u64; 5]>::try_from(&o[i * 5..i * 5 + 5]).unwrap())
            .collect::<Vec<_>>())
    });
}

macro_rules! neg_abs_tests {
    ($name:ident, $t:ty) => {
        /// `checked_neg`, `checked_abs` (`.unwrap_or(v)`), `saturating_neg` and
        /// `saturating_abs` against Rust, `MIN`, `MAX`, 0 and -1 among the inputs.
        #[test]
        fn $name() {
            let mut xs: Vec<$t> = vec![0, 1, -1, <$t>::MAX, <$t>::MIN, <$t>::MIN + 1];
            xs.extend((0..20u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as $t));
            let n = xs.len();
            let v = 42 as $t;
            let want: Vec<[$t; 4]> = xs
                .iter()
                .map(|&x| [x.checked_neg().unwrap_or(v), x.checked_abs().unwrap_or(v), x.saturating_neg(), x.saturating_abs()])
                .collect();
            let a = NuArray1::<$t>::from_vec(n, xs)._or_panic();
            check(want, || {
                let mut o = NuArray2::<$t>::new((n, 4));
                nuwork!(8; nfor!(i in n {
                    let x = a[i];
                    o[(i, 0)] = x.checked_neg().unwrap_or(v);
                    o[(i, 1)] = x.checked_abs().unwrap_or(v);
                    o[(i, 2)] = x.saturating_neg();
                    o[(i, 3)] = x.saturating_abs();
                }))?;
                let o = o.to_vec();
                Ok((0..n).map(|i| <[$t; 4]>::try_from(&o[i * 4..i * 4 + 4]).unwrap()).collect::<Vec<_>>())
            });
        }
    };
}

neg_abs_tests!(neg_abs_i8, i8);
neg_abs_tests!(neg_abs_i16, i16);
neg_abs_tests!(neg_abs_i32, i32);
neg_abs_tests!(neg_abs_i64, i64);

/// An unsigned `checked_neg` is `Some` only for 0.
#[test]
fn unsigned_checked_neg() {
    let xs: Vec<u32> = vec![0, 1, u32::MAX, 7];
    let want: Vec<u32> = xs.iter().map(|x| x.checked_neg().unwrap_or(9)).collect();
    let a = NuArray1::from_vec(4, xs)._or_panic();
    check(want, || {
        let mut o = NuArray1::<u32>::new(4);
        nuwork!(4; nfor!(i in 4 { o[i] = a[i].checked_neg().unwrap_or(9u32); }))?;
        Ok(vec_of(&o))
    });
}

macro_rules! pow_tests {
    ($name:ident, $t:ty) => {
        /// `checked_pow(e).unwrap_or(v)` and `saturating_pow(e)` against Rust: overflow in
        /// the last multiplication and in a squaring, negative bases, odd and even exponents.
        #[test]
        fn $name() {
            let bases: Vec<$t> = vec![0, 1, 2, 3, 7, 10, 16, <$t>::MAX, (0 as $t).wrapping_sub(1), (0 as $t).wrapping_sub(2), (0 as $t).wrapping_sub(3), <$t>::MIN];
            let exps: Vec<u32> = vec![0, 1, 2, 3, 5, 7, 8, 15, 31, 32, 63, 64, 65];
            let pairs: Vec<($t, u32)> = bases.iter().flat_map(|&b| exps.iter().map(move |&e| (b, e))).collect();
            let n = pairs.len();
            let v = 42 as $t;
            let want: Vec<[$t; 2]> = pairs.iter().map(|&(b, e)| [b.checked_pow(e).unwrap_or(v), b.saturating_pow(e)]).collect();
            let xs = NuArray1::<$t>::from_vec(n, pairs.iter().map(|p| p.0).collect())._or_panic();
            let es = NuArray1::<u32>::from_vec(n, pairs.iter().map(|p| p.1).collect())._or_panic();
            check(want, || {
                let mut o = NuArray2::<$t>::new((n, 2));
                nuwork!(8; nfor!(i in n {
                    let (x, e) = (xs[i], es[i]);
                    o[(i, 0)] = x.checked_pow(e).unwrap_or(v);
                    o[(i, 1)] = x.saturating_pow(e);
                }))?;
                let o = o.to_vec();
                Ok((0..n).map(|i| [o[i * 2], o[i * 2 + 1]]).collect::<Vec<_>>())
            });
        }
    };
}

pow_tests!(pow_i8, i8);
pow_tests!(pow_u8, u8);
pow_tests!(pow_i32, i32);
pow_tests!(pow_u32, u32);
pow_tests!(pow_i64, i64);
pow_tests!(pow_u64, u64);

macro_rules! euclid_shift_tests {
    ($name:ident, $t:ty) => {
        /// `checked_shl/shr(s).unwrap_or(v)`, `checked_div_euclid/rem_euclid(y).unwrap_or(v)`
        /// and `saturating_div(y)` against Rust: shifts of the type's bits and past them,
        /// `MIN / -1`, zero divisors (except for `saturating_div`, which panics on them in Rust
        /// and faults in kernels, tested below), negative operands.
        #[test]
        fn $name() {
            let mut xs: Vec<$t> = vec![0, 1, 7, <$t>::MAX, <$t>::MIN, (0 as $t).wrapping_sub(1), (0 as $t).wrapping_sub(7)];
            xs.extend((0..12u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 13) as $t));
            let ys: Vec<$t> = vec![0, 1, 3, (0 as $t).wrapping_sub(1), (0 as $t).wrapping_sub(3), <$t>::MAX, <$t>::MIN];
            let shifts: Vec<u32> = vec![0, 1, <$t>::BITS - 1, <$t>::BITS, <$t>::BITS + 1, 1000];
            let mut cases: Vec<($t, $t, u32)> = Vec::new();
            for &x in &xs {
                for (k, &y) in ys.iter().enumerate() {
                    cases.push((x, y, shifts[k % shifts.len()]));
                }
            }
            let n = cases.len();
            let v = 42 as $t;
            let want: Vec<[$t; 5]> = cases
                .iter()
                .map(|&(x, y, s)| {
                    let sat = if y == 0 { 0 } else { x.saturating_div(y) };
                    [x.checked_shl(s).unwrap_or(v), x.checked_shr(s).unwrap_or(v),
                     x.checked_div_euclid(y).unwrap_or(v), x.checked_rem_euclid(y).unwrap_or(v), sat]
                })
                .collect();
            let xa = NuArray1::<$t>::from_vec(n, cases.iter().map(|c| c.0).collect())._or_panic();
            let ya = NuArray1::<$t>::from_vec(n, cases.iter().map(|c| c.1).collect())._or_panic();
            let sa = NuArray1::<u32>::from_vec(n, cases.iter().map(|c| c.2).collect())._or_panic();
            check(want, || {
                let mut o = NuArray2::<$t>::new((n, 5));
                nuwork!(8; nfor!(i in n {
                    let (x, y, s) = (xa[i], ya[i], sa[i]);
                    o[(i, 0)] = x.checked_shl(s).unwrap_or(v);
                    o[(i, 1)] = x.checked_shr(s).unwrap_or(v);
                    o[(i, 2)] = x.checked_div_euclid(y).unwrap_or(v);
                    o[(i, 3)] = x.checked_rem_euclid(y).unwrap_or(v);
                    if y != 0 {
                        o[(i, 4)] = x.saturating_div(y);
                    }
                }))?;
                let o = o.to_vec();
                Ok((0..n).map(|i| <[$t; 5]>::try_from(&o[i * 5..i * 5 + 5]).unwrap()).collect::<Vec<_>>())
            });
        }
    };
}

euclid_shift_tests!(euclid_shift_i8, i8);
euclid_shift_tests!(euclid_shift_u8, u8);
euclid_shift_tests!(euclid_shift_i16, i16);
euclid_shift_tests!(euclid_shift_u16, u16);
euclid_shift_tests!(euclid_shift_i32, i32);
euclid_shift_tests!(euclid_shift_u32, u32);
euclid_shift_tests!(euclid_shift_i64, i64);
euclid_shift_tests!(euclid_shift_u64, u64);

/// `saturating_div` by zero is the launch's error with Rust's words, where Rust panics.
#[test]
fn saturating_div_by_zero_is_an_error() {
    for d in common::engines() {
        let r = nuda::with_device(d.index, || {
            let a = NuArray1::<i32>::from_fn(16, |i| i as i32 - 8);
            let mut o = NuArray1::<i32>::new(16);
            nuwork!(8; nfor!(i in 16 { o[i] = a[i].saturating_div(a[i] / 4); }))
        })
        .unwrap();
        let e = r.unwrap_err();
        assert!(
            e.to_string().contains("attempt to divide by zero"),
            "{}: {e}",
            d.name
        );
    }
}
