//! What ports of Parboil, Rodinia and SDK programs wrote, compiling and agreeing with plain
//! Rust on the OpenCL device and the native engine (issue 27). This file builds with
//! warnings denied: generated code must not warn about what the user wrote.

#![deny(warnings)]

mod common;

use common::check;
use nuda::prelude::*;

/// The SDK's constants, outside any function.
const SCALE: f32 = 2.5;
const SHIFT: i32 = i32::MIN;
const WIDE: u64 = u64::MAX - 1;
const TS: usize = 4;

/// A helper that names constants (item 3): their values are written into its OpenCL C.
#[nucode]
fn scaled(x: f32) -> f32 {
    x * SCALE + (SHIFT / 2) as f32
}

#[nucode]
fn wide_low(x: u64) -> u32 {
    (x ^ WIDE) as u32
}

/// A tuple chosen by `if` (item 4).
#[nucode]
fn ordered(a: f32, b: f32) -> (f32, f32) {
    if a < b {
        (a, b)
    } else if a == b {
        let m = a;
        (m, m)
    } else {
        (b, a)
    }
}

#[test]
fn helpers_name_constants_and_return_tuples_from_if() {
    let n = 33usize;
    let want: Vec<(f32, u32)> = (0..n)
        .map(|i| {
            let x = i as f32;
            let s: f32 = (0..TS).map(|q| x * q as f32).sum();
            let (lo, hi) = if x < 3.0 {
                (x, 3.0)
            } else if x == 3.0 {
                (x, x)
            } else {
                (3.0, x)
            };
            (
                s + (lo * SCALE + (SHIFT / 2) as f32) + hi,
                (i as u64 ^ WIDE) as u32,
            )
        })
        .collect();
    check(want, || {
        let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let (mut o, mut w) = (NuArray1::<f32>::new(n), NuArray1::<u32>::new(n));
        nuwork!(8; nfor!(i in n {
            let mut s = 0.0;
            nfor!(q in TS { s += a[i] * q as f32; });
            let (lo, hi) = ordered(a[i], 3.0);
            o[i] = s + scaled(lo) + hi;
            w[i] = wide_low(i as u64);
        }))?;
        Ok(o.to_vec().into_iter().zip(w.to_vec()).collect())
    });
}

/// A scan whose contribution does not read the loop variable (item 11): no "unused
/// variable" warning, which `deny(warnings)` above would make an error.
#[test]
fn a_scan_that_counts_compiles_without_warnings() {
    let n = 100usize;
    check((1..=n as u32).collect::<Vec<_>>(), || {
        let mut c = 0u32;
        let mut out = NuArray1::<u32>::new(n);
        nuwork!(8; nfor!(i in n { c += 1; out[i] = c; }))?;
        Ok(out.to_vec())
    });
}

#[nucode]
fn plus_one(x: f32) -> f32 {
    x + 1.0
}

#[nuda::nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Params {
    scale: f32,
}

/// `push(e)` for any expression (item 1): a captured scalar, an array element times it, a
/// struct field, a captured private array's element, a `#[nucode]` call, and an
/// unconditional push. (A capture's binding was taken from the wrong index when the vector
/// was captured before the values.)
#[test]
fn push_takes_any_expression() {
    let n = 16usize;
    let mut want: Vec<f32> = (4..16).map(|i| i as f32 * 2.0).collect();
    for _ in 14..16 {
        want.extend([2.0, 3.0]);
    }
    want.extend([196.0, 225.0, 15.0, 16.0, 3.0, 6.0, 3.0, 6.0]);
    want.extend((0..16).map(|i| i as f32));
    check(want, || {
        let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let (k, p, w) = (2.0f32, Params { scale: 3.0 }, [5.0f32, 6.0, 7.0]);
        let mut v = NuVec::<f32>::new();
        nuwork!(8; nfor!(i in n { if a[i] > 3.0 { v.push(a[i] * k); } }))?;
        nuwork!(8; nfor!(i in n { if a[i] > 13.0 { v.push(k); v.push(k + 1.0); } }))?;
        nuwork!(8; nfor!(i in n { if a[i] > 13.0 { v.push(a[i] * a[i]); } }))?;
        nuwork!(8; nfor!(i in n { if a[i] > 13.0 { v.push(plus_one(a[i])); } }))?;
        nuwork!(8; nfor!(i in n { if a[i] > 13.0 { v.push(p.scale); v.push(w[1]); } }))?;
        nuwork!(8; nfor!(i in n { v.push(a[i]); }))?;
        Ok(v.to_vec())
    });
}

/// The flag idiom (item 6, Rodinia's bfs): `if changed { over = true; }` sets the flag if any
/// iteration does, else leaves it; a value other than `true` and a captured value too.
#[test]
fn the_flag_idiom_is_a_reduction() {
    let n = 50usize;
    for threshold in [10u32, 100] {
        let any = threshold < n as u32;
        let want = (
            any,
            if any { 3u32 } else { 7 },
            if any { 2.5f32 } else { -1.0 },
        );
        check(want, || {
            let a = NuArray1::<u32>::from_fn(n, |i| i as u32);
            let (mut over, mut level, mut seen) = (false, 7u32, -1.0f32);
            let mark = 2.5f32;
            nuwork!(8; nfor!(i in n {
                let changed = a[i] > threshold;
                if changed {
                    over = true;
                    level = 3;
                }
                if a[i] == threshold + 1 {
                    seen = mark;
                }
            }))?;
            Ok((over, level, seen))
        });
    }
}

/// A `macro_rules!` wrapper of `nuwork!` (item 7): the generated names take the call site's
/// hygiene, so a wrapper compiles (it failed with "cannot find value `__nuda_fault`").
macro_rules! fill {
    ($out:ident, $n:expr, |$i:ident| $e:expr) => {
        nuwork!(2; nfor!($i in $n { $out[$i] = $e; }))
    };
}

/// A wrapper that takes the loop variable and a body of tokens.
macro_rules! each {
    ($i:ident in $n:expr => $($body:tt)*) => {
        nuwork!(4; nfor!($i in $n { $($body)* }))
    };
}

#[test]
fn macro_rules_wrappers_compile() {
    let want = (
        (1..=8).collect::<Vec<u32>>(),
        (0..8).map(|i| i * 2).collect::<Vec<u32>>(),
    );
    check(want, || {
        let a = NuArray1::<u32>::from_fn(8, |i| i as u32);
        let (mut b, mut c) = (NuArray1::<u32>::new(8), NuArray1::<u32>::new(8));
        fill!(b, 8, |i| a[i] + 1)?;
        each!(i in 8usize => c[i] = a[i] * 2;)?;
        Ok((b.to_vec(), c.to_vec()))
    });
}

/// A host function a mapped range calls (item 8): ranges are evaluated on the host.
fn four() -> usize {
    4
}

/// Host values in ranges and bodies (item 8): a host loop variable of inferred type, host
/// functions, host arrays, vectors and slices, the length of an array the body writes, and
/// Rust's `step_by(usize)` on a `u8` range.
#[test]
fn host_values_in_ranges_and_bodies() {
    let mut want: Vec<u32> = (0..16).map(|i| i + 2).collect();
    want[..4].fill(1);
    want[4..8].fill(2);
    want[8..12].fill(3);
    want[12..14].fill(4);
    let doubled: Vec<u32> = (0..16).map(|i| i * 2).collect();
    let stepped: Vec<u8> = (0..=255u8)
        .map(|i| if i >= 250 && i % 2 == 0 { i } else { 0 })
        .collect();
    check((want, doubled, stepped), || {
        let mut t = NuArray1::<u32>::new(16);
        for it in 0..3 {
            nuwork!(4; nfor!(i in 16 { t[i] = (i + it) as u32; }))?;
        }
        nuwork!(4; nfor!(i in four() { t[i] = 1; }))?;
        nuwork!(4; nfor!(i in 0..four() { t[i + 4] = 2; }))?;
        let sizes = [4usize, 8];
        let (v, s) = (vec![2usize], &sizes[..]);
        nuwork!(4; nfor!(i in sizes[0] { t[i + 8] = 3; }))?;
        nuwork!(2; nfor!(i in v[0]..s[0] { t[i + 10] = 4; }))?;
        let mut arr = NuArray1::<u32>::from_fn(16, |i| i as u32);
        nuwork!(4; nfor!(k in arr.len() { arr[k] *= 2; }))?;
        let (st, mut u) = (2usize, NuArray1::<u8>::new(256));
        nuwork!(1; nfor!(i in (250u8..=255).step_by(st) { u[i as usize] = i; }))?;
        Ok((t.to_vec(), arr.to_vec(), u.to_vec()))
    });
}

/// A host array read out of range in a mapped range is the launch's `Err`, naming the array,
/// as a kernel's read would be.
#[test]
fn a_range_reading_past_a_host_array_is_an_error() {
    for d in common::engines() {
        let got = nuda::with_device(d.index, || {
            let (sizes, mut t) = ([4usize, 8], NuArray1::<u32>::new(16));
            let k = sizes.len();
            nuwork!(4; nfor!(i in sizes[k] { t[i] = 1; }))
        })
        .unwrap();
        let e = got.expect_err("sizes[2] is out of range").to_string();
        assert!(
            e.contains("sizes") && e.contains("ports.rs"),
            "on {}: {e}",
            d.name
        );
    }
}

/// `inline` over a named constant's trip count (item 5): accepted; the loop stays a loop, the
/// literal one inside it is unrolled, and the sums are plain Rust's.
#[test]
fn inline_over_a_named_constant() {
    let n = 6usize;
    let a: Vec<u32> = (0..(n * TS * 3) as u32).collect();
    let want: Vec<u32> = (0..n)
        .map(|i| (0..TS * 3).map(|q| a[i * TS * 3 + q]).sum())
        .collect();
    check(want, || {
        let a = NuArray1::from_vec(a.len(), a.clone())?;
        let mut out = NuArray1::<u32>::new(n);
        nuwork!(2; nfor!(i in n {
            let mut s = 0u32;
            annot!(inline; nfor!((q, r) in (TS, 3) { s += a[i * TS * 3 + q * 3 + r]; }));
            out[i] = s;
        }))?;
        Ok(out.to_vec())
    });
}

/// A struct a kernel copies whole (item 9's `let c = a;` rule keeps values working).
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Scale {
    s: f32,
}

/// A generic kernel that copies a capture into a local and adds one captured by reference.
fn add_ref<T: nuda::Element + std::ops::Add<Output = T>>(
    k: T,
    kr: &T,
    out: &mut NuArray1<T>,
) -> nuda::Result<()> {
    nuwork!(4; nfor!(i in 4 { let c = k; out[i] = c + kr; }))
}

/// Captures by value and by reference, copied into locals or used as operands: scalars,
/// fixed-size arrays, `#[nustruct]` values and generic elements.
#[test]
fn captures_copied_into_locals_or_used_by_reference() {
    check((vec![5i32; 4], vec![8.5f32, 9.5, 10.5, 8.5]), || {
        let mut o = NuArray1::<i32>::new(4);
        add_ref(2, &3, &mut o)?;
        let (w, k) = ([1.0f32, 2.0, 3.0], 2.5f32);
        let (kr, p) = (&k, Scale { s: 5.0 });
        let mut b = NuArray1::<f32>::new(4);
        nuwork!(4; nfor!(i in 4 { let c = w; let e = p; b[i] = c[i % 3] + kr + e.s; }))?;
        Ok((o.to_vec(), b.to_vec()))
    });
}
