//! The kernel suite, memory: arrays of 1 to 3 dims, images, constant arrays, mapped nests.
//! Each kernel runs on an OpenCL device (PoCL in CI) and on the native engine and is
//! compared with plain Rust.

mod common;

use common::{check, check_close, vec_of, OrPanic};
use nuda::prelude::*;

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

/// C-style flattened indexing of a 2-D array in a 1-D buffer, with both loops mapped: the
/// dependence test follows `i * m + j` with `j` in `0..m` (session 45).
#[test]
fn flattened_two_dimensional_indexing() {
    let (n, m) = (13usize, 7usize);
    let want: Vec<f32> = (0..n * m).map(|k| (k as f32) * 2.0 + 1.0).collect();
    check(want, || {
        let a = NuArray1::<f32>::from_fn(n * m, |k| k as f32);
        let mut c = NuArray1::<f32>::new(n * m);
        nuwork!(4, 4; nfor!((i, j) in (n, m) { c[i * m + j] = a[i * m + j] * 2.0 + 1.0; }))?;
        Ok(vec_of(&c))
    });
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

/// A `dmine` block of a stencil reads each texel once in OpenCL C (the emitter merges the
/// copies' reads): the same values as plain Rust, at sizes that leave remainders.
#[test]
fn dmine_stencil_blocks_on_images() {
    let (w, h) = (13usize, 11usize);
    let src = NuImage2::<[f32; 4]>::from_fn((w, h), |(x, y)| {
        [x as f32, y as f32, (x * y % 7) as f32, 1.0]
    });
    let wt: Vec<f32> = (0..9).map(|k| k as f32 - 3.5).collect();
    let taps = NuArray1::<f32>::from_vec(9, wt.clone())._or_panic();
    let mut want = Vec::new();
    for y in 0..h as i32 {
        for x in 0..w as i32 {
            let mut s = 0.0f32;
            for (dy, dx) in (0..3).flat_map(|dy| (0..3).map(move |dx| (dy, dx))) {
                let p = src.read(x + dx - 1, y + dy - 1);
                s += wt[(dy * 3 + dx) as usize] * (p[0] + 2.0 * p[1] - p[2]);
            }
            want.push(s + src.read(x, y)[0]);
        }
    }
    check_close(&want, 1e-6, || {
        let mut dst = NuImage2::<f32>::new((w, h));
        nuwork!(1, 4; annot!(dmine(3, 2); nfor!((y, x) in (h as i32, w as i32) {
            let mut s = 0.0f32;
            annot!(inline; nfor!((dy, dx) in (3, 3) {
                let p = src.read(x + dx - 1, y + dy - 1);
                s += taps[(dy * 3 + dx) as usize] * (p[0] + 2.0 * p[1] - p[2]);
            }));
            dst.write(x, y, s + src.read(x, y)[0]);
        })))?;
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

/// An empty image has no texel to clamp to: every read is zero, on every engine.
#[test]
fn reads_of_an_empty_image_are_zero() {
    let n = 6usize;
    check(vec![[0.0f32; 5]; n], || {
        let grey = NuImage2::<f32>::new((0, 3));
        let rgba = NuImage2::<[f32; 4]>::new((4, 0));
        let mut out = NuArray2::<f32>::new((n, 5));
        nuwork!(8; nfor!(i in n {
            let p = rgba.read(i as i32, 1);
            out[(i, 0)] = grey.read(i as i32 - 2, 0);
            out[(i, 1)] = p[0];
            out[(i, 2)] = p[1];
            out[(i, 3)] = p[2];
            out[(i, 4)] = p[3];
        }))?;
        Ok(out
            .to_vec()
            .chunks(5)
            .map(|r| [r[0], r[1], r[2], r[3], r[4]])
            .collect::<Vec<_>>())
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
        if (k < limit && flip) || (k.is_multiple_of(5) && !flip) {
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
