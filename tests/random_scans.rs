//! Property test of the single-pass scan (issue 49): drawn element types, sizes (0, 1, one
//! under, at and over a tile: a CPU driver's tile is a group, a GPU's 2048 or 4096
//! iterations), group sizes (whole warps and not), start values and data; every operator of
//! the type in one nest, inclusive and exclusive, against plain Rust. Integers are exact;
//! floats within the documented reassociation and the same bits on a second run. A filter
//! (`push`) over the same data too. On PoCL and the native engine here, and on Oclgrind's
//! GPU path (warp steps through local memory) in `scripts/oclgrind`.

mod common;

use nuda::prelude::*;
use proptest::prelude::*;

/// Sizes: the edges of a tile on either kind of device, then any up to a few tiles.
fn size() -> impl Strategy<Value = usize> {
    let edges = [0usize, 1, 47, 63, 64, 65, 2047, 2049, 4095, 4096, 4097];
    let most: usize = if common::sizes(&[true], &[false])[0] {
        20_000
    } else {
        9_000
    };
    prop_oneof![prop::sample::select(edges.to_vec()), 0..most]
}

/// Group sizes: whole warps of 32 and not (the warp steps' two paths).
fn group() -> impl Strategy<Value = usize> {
    prop::sample::select(vec![32usize, 48, 64, 96, 256])
}

/// Every integer operator on `$t`, each from its own start: `+ * | max` inclusive, `- & ^
/// min` exclusive; the eight running values per element and the finals.
macro_rules! integer_case {
    ($name:ident, $t:ty) => {
        fn $name(data: &[$t], s0: [$t; 8], g: usize) -> nuda::Result<(Vec<$t>, [$t; 8])> {
            let n = data.len();
            let a = NuArray1::<$t>::from_fn(n, |i| data[i]);
            let mut out = NuArray2::<$t>::new((n, 8));
            let [mut add, mut mul, mut or, mut hi, mut sub, mut and, mut xor, mut lo] = s0;
            nuwork!(g; nfor!(i in n {
                add += a[i];
                mul *= a[i] | 1;
                or |= a[i];
                hi = hi.max(a[i]);
                out[(i, 0)] = add;
                out[(i, 1)] = mul;
                out[(i, 2)] = or;
                out[(i, 3)] = hi;
                out[(i, 4)] = sub;
                out[(i, 5)] = and;
                out[(i, 6)] = xor;
                out[(i, 7)] = lo;
                sub -= a[i];
                and &= a[i] | 16;
                xor ^= a[i];
                lo = lo.min(a[i]);
            }))?;
            Ok((out.to_vec(), [add, mul, or, hi, sub, and, xor, lo]))
        }
    };
}

integer_case!(run_i32, i32);
integer_case!(run_u8, u8);
integer_case!(run_i16, i16);
integer_case!(run_u64, u64);

/// The same operators in plain Rust, wrapping.
macro_rules! integer_want {
    ($name:ident, $t:ty) => {
        fn $name(data: &[$t], s0: [$t; 8]) -> (Vec<$t>, [$t; 8]) {
            let mut s = s0;
            let mut out = Vec::with_capacity(data.len() * 8);
            for &x in data {
                s[0] = s[0].wrapping_add(x);
                s[1] = s[1].wrapping_mul(x | 1);
                s[2] |= x;
                s[3] = s[3].max(x);
                out.extend_from_slice(&s);
                s[4] = s[4].wrapping_sub(x);
                s[5] &= x | 16;
                s[6] ^= x;
                s[7] = s[7].min(x);
            }
            (out, s)
        }
    };
}

integer_want!(want_i32, i32);
integer_want!(want_u8, u8);
integer_want!(want_i16, i16);
integer_want!(want_u64, u64);

/// A float sum (inclusive) and maximum (exclusive).
fn run_f32(data: &[f32], s0: [f32; 2], g: usize) -> nuda::Result<(Vec<f32>, [f32; 2])> {
    let n = data.len();
    let a = NuArray1::<f32>::from_fn(n, |i| data[i]);
    let mut out = NuArray2::<f32>::new((n, 2));
    let [mut s, mut m] = s0;
    nuwork!(g; nfor!(i in n {
        s += a[i];
        out[(i, 0)] = s;
        out[(i, 1)] = m;
        m = m.max(a[i]);
    }))?;
    Ok((out.to_vec(), [s, m]))
}

/// The elements at most `keep`, doubled, pushed in order.
fn run_filter(data: &[i32], keep: i32, g: usize) -> nuda::Result<Vec<i32>> {
    let n = data.len();
    let a = NuArray1::<i32>::from_fn(n, |i| data[i]);
    let mut v = NuVec::<i32>::from(vec![-1]);
    nuwork!(g; nfor!(i in n {
        if a[i] <= keep {
            v.push(a[i] * 2);
        }
    }))?;
    Ok(v.to_vec())
}

/// `f` on every engine, each result checked by `ok` (with the engine's name).
fn on_engines<R>(f: impl Fn() -> nuda::Result<R>, ok: impl Fn(&str, R)) {
    for d in common::engines() {
        let got = nuda::with_device(d.index, &f).unwrap();
        ok(&d.name, got.unwrap_or_else(|e| panic!("{}: {e}", d.name)));
    }
}

/// Checks one integer case on every engine.
macro_rules! check_integers {
    ($run:ident, $want:ident, $t:ty, $data:expr, $s0:expr, $g:expr) => {{
        let data: Vec<$t> = $data.iter().map(|&x| x as $t).collect();
        let s0: [$t; 8] = $s0.map(|x| x as $t);
        let want = $want(&data, s0);
        on_engines(
            || $run(&data, s0, $g),
            |name, got| {
                assert!(
                    got == want,
                    "on {name}: {} n {} group {}",
                    stringify!($t),
                    data.len(),
                    $g
                );
            },
        );
    }};
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if common::sizes(&[true], &[false])[0] { 24 } else { 6 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn single_pass_scans_and_filters_agree_with_rust(
        ty in 0usize..5,
        n in size(),
        g in group(),
        seed in any::<u64>(),
        s0 in prop::array::uniform8(any::<i64>()),
        keep in -60i32..60,
    ) {
        let data: Vec<i64> = (0..n as u64)
            .map(|i| ((i ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as i64 % 101 - 50)
            .collect();
        match ty {
            0 => check_integers!(run_i32, want_i32, i32, data, s0, g),
            1 => check_integers!(run_u8, want_u8, u8, data, s0, g),
            2 => check_integers!(run_i16, want_i16, i16, data, s0, g),
            3 => check_integers!(run_u64, want_u64, u64, data, s0, g),
            _ => check_floats(&data, s0[0] as f32 * 1e-18, g),
        }
        let small: Vec<i32> = data.iter().map(|&x| x as i32).collect();
        let mut want = vec![-1];
        want.extend(small.iter().filter(|&&x| x <= keep).map(|x| x * 2));
        on_engines(|| run_filter(&small, keep, g), |name, got| {
            assert!(got == want, "filter on {name}: n {n} group {g} keep {keep}");
        });
    }
}

/// The float case: within a tolerance of an f64 reference, the maximum exact, the same bits
/// on a second run.
fn check_floats(data: &[i64], start: f32, g: usize) {
    let data: Vec<f32> = data.iter().map(|&x| x as f32 / 7.0).collect();
    let (mut s, mut m) = (start as f64, f32::NEG_INFINITY);
    let mut want = Vec::new();
    for &x in &data {
        s += x as f64;
        want.push([s as f32, m]);
        m = m.max(x);
    }
    let s0 = [start, f32::NEG_INFINITY];
    on_engines(
        || Ok((run_f32(&data, s0, g)?, run_f32(&data, s0, g)?)),
        |name, (first, second)| {
            let bits = |v: &(Vec<f32>, [f32; 2])| {
                v.0.iter()
                    .chain(&v.1)
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                bits(&first),
                bits(&second),
                "on {name}: bits differ between runs"
            );
            let close = |a: f32, b: f32| (a - b).abs() <= 1e-3 * b.abs().max(50.0);
            for (i, w) in want.iter().enumerate() {
                let (gs, gm) = (first.0[2 * i], first.0[2 * i + 1]);
                assert!(
                    close(gs, w[0]),
                    "on {name}: n {} element {i}: {gs} vs {}",
                    data.len(),
                    w[0]
                );
                assert!(gm == w[1], "on {name}: element {i}: max {gm} vs {}", w[1]);
            }
            assert!(
                close(first.1[0], s as f32) && first.1[1] == m,
                "on {name}: {:?}",
                first.1
            );
        },
    );
}
