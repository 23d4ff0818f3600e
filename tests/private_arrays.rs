//! Issue 13's private arrays: `[v; N]` and `[a, b, c]` values in kernels, indexed by any
//! expression and checked as captured arrays are (#7), nested, in `#[nustruct]` fields,
//! captured by value and passed to and returned from `#[nucode]` functions. Each kernel runs
//! on an OpenCL device (PoCL in CI) and on the native engine and is compared with plain Rust.

#![allow(missing_docs)] // the test types are documented by their tests
#![allow(clippy::needless_range_loop)] // the Rust references mirror the kernels, which index

mod common;

use common::{bounds, check, engines, vec_of};
use nuda::prelude::*;

const N: usize = 8;

/// Fills a private array, then reads it at indices that depend on the work-item.
fn shuffle(a: &[f32], i: usize) -> f32 {
    let mut t = [0.0f32; N];
    for k in 0..N {
        t[k] = a[i] * k as f32 + 1.0;
    }
    t[(i * 3) % N] += 0.5;
    let mut s = 0.0f32;
    for k in 0..N {
        s += t[(k * 5 + i) % N] * (k + 1) as f32;
    }
    s
}

#[test]
fn variable_indices_read_and_write_as_in_rust() {
    let n = 300usize;
    let host: Vec<f32> = (0..n).map(|i| (i % 13) as f32 * 0.25).collect();
    let want: Vec<f32> = (0..n).map(|i| shuffle(&host, i)).collect();
    check(want, || {
        let a = NuArray1::from_fn(n, |i| host[i]);
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(64; nfor!(i in n {
            let mut t = [0.0f32; N];
            for k in 0..N {
                t[k] = a[i] * k as f32 + 1.0;
            }
            t[(i * 3) % N] += 0.5;
            let mut s = 0.0f32;
            for k in 0..N {
                s += t[(k * 5 + i) % N] * (k + 1) as f32;
            }
            out[i] = s;
        }))?;
        Ok(vec_of(&out))
    });
}

/// A 3x3 matrix product per work-item, on nested private arrays and array literals.
fn matrices(i: usize) -> i32 {
    let v = i as i32;
    let a = [[v, 1, 2], [3, v - 4, 5], [6, 7, v * 2]];
    let mut m = [[0i32; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            for k in 0..3 {
                m[r][c] += a[r][k] * a[k][(c + i) % 3];
            }
        }
    }
    let row = m[i % 3];
    row[0] - row[1] * 2 + row[2] + m[2][i % 3]
}

#[test]
fn nested_arrays_and_literals() {
    let n = 100usize;
    let want: Vec<i32> = (0..n).map(matrices).collect();
    check(want, || {
        let mut out = NuArray1::<i32>::new(n);
        nuwork!(32; nfor!(i in n {
            let v = i as i32;
            let a = [[v, 1, 2], [3, v - 4, 5], [6, 7, v * 2]];
            let mut m = [[0i32; 3]; 3];
            for r in 0..3 {
                for c in 0..3 {
                    for k in 0..3 {
                        m[r][c] += a[r][k] * a[k][(c + i) % 3];
                    }
                }
            }
            let row = m[i % 3];
            out[i] = row[0] - row[1] * 2 + row[2] + m[2][i % 3];
        }))?;
        Ok(vec_of(&out))
    });
}

/// An array parameter and an array result.
#[nucode]
fn reversed(v: [u32; 4]) -> [u32; 4] {
    [v[3], v[2], v[1], v[0]]
}

#[nucode]
fn weighted(v: [u32; 4], w: [u32; 4]) -> u32 {
    let mut s = 0u32;
    for k in 0..4 {
        s += v[k] * w[k];
    }
    s
}

#[test]
fn arrays_pass_to_and_return_from_nucode_and_are_captured_by_value() {
    let n = 77usize;
    let w = [1u32, 10, 100, 1000];
    let want: Vec<u32> = (0..n as u32)
        .map(|i| weighted(reversed([i, i + 1, i % 3, 7]), w))
        .collect();
    check(want, || {
        let mut out = NuArray1::<u32>::new(n);
        nuwork!(16; nfor!(i in n {
            let x = i as u32;
            out[i] = weighted(reversed([x, x + 1, x % 3, 7]), w);
        }))?;
        Ok(vec_of(&out))
    });
}

/// A polynomial with its coefficients in an array field.
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Poly {
    pub tag: u8,
    pub c: [f64; 3],
    pub flags: [bool; 2],
}

fn poly(i: usize) -> Poly {
    Poly {
        tag: i as u8,
        c: [i as f64, 0.5, -(i as f64) / 4.0],
        flags: [i.is_multiple_of(2), i.is_multiple_of(3)],
    }
}

fn step(p: Poly, i: usize) -> Poly {
    let mut q = p;
    let x = (i % 5) as f64;
    let mut y = 0.0f64;
    for k in 0..3 {
        y = y * x + p.c[2 - k];
    }
    q.c[i % 3] = y;
    q.flags[1] = !p.flags[(i / 2) % 2];
    q
}

#[test]
fn array_fields_of_structs_read_and_written() {
    assert_eq!(size_of::<Poly>(), 40);
    let n = 60usize;
    let want: Vec<Poly> = (0..n).map(|i| step(poly(i), i)).collect();
    check(want, || {
        let ps = NuArray1::from_fn(n, poly);
        let mut out = NuArray1::<Poly>::new(n);
        nuwork!(16; nfor!(i in n {
            let p = ps[i];
            let mut q = p;
            let x = (i % 5) as f64;
            let mut y = 0.0f64;
            for k in 0..3 {
                y = y * x + p.c[2 - k];
            }
            q.c[i % 3] = y;
            q.flags[1] = !p.flags[(i / 2) % 2];
            out[i] = q;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn usize_and_bool_private_arrays() {
    let n = 50usize;
    let want: Vec<(usize, bool)> = (0..n)
        .map(|i| {
            let mut seen = [false; 5];
            let mut at = [0usize; 5];
            for k in 0..i % 7 {
                seen[(k * i) % 5] = true;
                at[(k * i) % 5] = k + i;
            }
            (
                at[i % 5] + at[(i + 1) % 5],
                seen[i % 5] && !seen[(i + 2) % 5],
            )
        })
        .collect();
    check(want, || {
        let mut sum = NuArray1::<usize>::new(n);
        let mut flag = NuArray1::<bool>::new(n);
        nuwork!(16; nfor!(i in n {
            let mut seen = [false; 5];
            let mut at = [0usize; 5];
            for k in 0..i % 7 {
                seen[(k * i) % 5] = true;
                at[(k * i) % 5] = k + i;
            }
            sum[i] = at[i % 5] + at[(i + 1) % 5];
            flag[i] = seen[i % 5] && !seen[(i + 2) % 5];
        }))?;
        Ok(vec_of(&sum).into_iter().zip(vec_of(&flag)).collect())
    });
}

#[test]
fn out_of_range_private_indices_are_errors_naming_the_array_and_line() {
    for d in engines() {
        nuda::with_device(d.index, || -> nuda::Result<()> {
            let n = 64usize;
            let mut out = NuArray1::<i32>::from_fn(n, |_| -1);
            let line = line!() + 3;
            let e = nuwork!(16; nfor!(i in n {
                let t = [1i32, 2, 3];
                out[i] = t[i / 20];
            }))
            .unwrap_err();
            let (array, index, dims, at) = bounds(&e);
            assert_eq!(
                (array.as_str(), index, dims),
                ("t", vec!["3".to_string()], vec![3]),
                "{}: {e}",
                d.name
            );
            assert!(
                at.contains(&format!(":{line}:")),
                "{}: {at}, want line {line}",
                d.name
            );
            // The work-items in range computed as in Rust.
            assert_eq!(out[0], 1, "{}", d.name);
            assert_eq!(out[59], 3, "{}", d.name);

            let line = line!() + 4;
            let e = nuwork!(16; nfor!(i in n {
                let mut m = [[0i32; 4]; 2];
                let k = i as i32 - 60;
                m[1][k as usize] = 5;
                out[i] = m[1][0] + m[1][3];
            }))
            .unwrap_err();
            let (array, index, dims, at) = bounds(&e);
            assert_eq!((array.as_str(), dims), ("m[1]", vec![4]), "{}: {e}", d.name);
            assert!(
                index[0].parse::<u64>().is_ok_and(|k| k >= 4),
                "{}: {e}",
                d.name
            );
            assert!(
                at.contains(&format!(":{line}:")),
                "{}: {at}, want line {line}",
                d.name
            );
            assert_eq!((out[60], out[63]), (5, 5), "{}", d.name);
            Ok(())
        })
        .unwrap()
        .unwrap();
    }
}

/// A struct with a `usize` field.
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tagged {
    pub id: usize,
    pub w: f32,
}

/// `usize` values past 32 bits read from a private array and from a struct field: the launch
/// must use 64-bit `usize` (a 32-bit `nu_idx` would drop the high bits).
#[test]
fn usize_values_from_private_arrays_and_fields_keep_64_bits() {
    let n = 16usize;
    let big = [(1usize << 40) + 3, 7];
    let tag = Tagged {
        id: (5usize << 36) + 1,
        w: 0.5,
    };
    // Compared through `usize` locals, into `bool` arrays: nothing else in these kernels
    // needs 64 bits, so only the reads themselves can ask for them.
    let want: Vec<bool> = (0..n).map(|i| big[i % 2] > 4_000_000_000).collect();
    check(want, || {
        let mut out = NuArray1::<bool>::new(n);
        nuwork!(8; nfor!(i in n { let v = big; let x = v[i % 2]; out[i] = x > 4_000_000_000; }))?;
        Ok(vec_of(&out))
    });
    check(vec![true; n], || {
        let mut out = NuArray1::<bool>::new(n);
        nuwork!(8; nfor!(i in n { let y = tag.id; out[i] = y > 4_000_000_000; }))?;
        Ok(vec_of(&out))
    });
}

/// An array literal in a branch is built only when the branch runs: the read of `a[j]`
/// past the end in the branch not taken is neither performed nor a fault.
#[test]
fn literals_in_branches_are_built_only_when_taken() {
    let n = 64usize;
    let want: Vec<(f32, bool)> = (0..n)
        .map(|i| {
            let j = i + 1;
            let v = if j < n { [j as f32, 1.0][0] } else { -1.0 };
            (v, j < n && [j as f32][0] > 10.0)
        })
        .collect();
    check(want, || {
        let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let mut out = NuArray1::<f32>::new(n);
        let mut flag = NuArray1::<bool>::new(n);
        nuwork!(16; nfor!(i in n {
            let j = i + 1;
            out[i] = if j < a.len() { [a[j], 1.0][0] } else { -1.0 };
            flag[i] = j < a.len() && [a[j]][0] > 10.0;
        }))?;
        Ok(vec_of(&out).into_iter().zip(vec_of(&flag)).collect())
    });
}

/// `dmine` copies the body: each copy gets its own private array, accesses included.
#[test]
fn annotations_copy_private_arrays_per_copy() {
    let n = 100usize;
    let want: Vec<f32> = (0..n).map(|i| i as f32 * 2.0 + 1.0).collect();
    check(want, || {
        let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(16; annot!(dmine(2); nfor!(i in n {
            let mut t = [1.0f32; 2];
            t[1] = a[i] * 2.0;
            out[i] = t[1] + t[0];
        })))?;
        Ok(vec_of(&out))
    });
}

/// A captured table indexed directly, as a convolution's weights are, and used whole in the
/// same kernel; out of range, the launch's error names it.
#[test]
fn captured_arrays_are_indexed_directly() {
    let n = 40usize;
    let w = [0.25f32, 0.5, 0.25];
    let taps = [1u32, 10, 100, 1000];
    let host: Vec<f32> = (0..n).map(|i| (i % 9) as f32).collect();
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (l, r) = (i.saturating_sub(1), (i + 1).min(n - 1));
            let t = taps;
            w[0] * host[l] + w[1] * host[i] + w[2] * host[r] + (t[i % 4] + taps[3]) as f32
        })
        .collect();
    check(want, || {
        let a = NuArray1::from_fn(n, |i| host[i]);
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(8; nfor!(i in n {
            let (l, r) = (i.saturating_sub(1), (i + 1).min(n - 1));
            let t = taps;
            out[i] = w[0] * a[l] + w[1] * a[i] + w[2] * a[r] + (t[i % 4] + taps[3]) as f32;
        }))?;
        Ok(vec_of(&out))
    });
    for d in engines() {
        nuda::with_device(d.index, || -> nuda::Result<()> {
            let mut out = NuArray1::<u32>::new(n);
            let e = nuwork!(8; nfor!(i in n { out[i] = taps[i / 8]; })).unwrap_err();
            let (array, index, dims, _) = bounds(&e);
            assert_eq!((array.as_str(), dims), ("taps", vec![4]), "{}: {e}", d.name);
            assert!(
                index[0].parse::<u64>().is_ok_and(|k| k >= 4),
                "{}: {e}",
                d.name
            );
            assert_eq!(out[31], 1000, "{}", d.name);
            Ok(())
        })
        .unwrap()
        .unwrap();
    }
}
