//! Issue 14's `stage(..)`: tiles of arrays copied into local memory by the work-group. Each
//! kernel runs on an OpenCL device (PoCL in CI), where the copies happen, and on the native
//! engine, where the annotation leaves the loops as written, and is compared with plain Rust
//! exactly: staging moves data, never arithmetic.

#![allow(missing_docs)] // the test types are documented by their tests
#![allow(clippy::needless_range_loop)] // the Rust references mirror the kernels, which index

mod common;

use common::{bounds, check, engines};
use nuda::prelude::*;

fn gemm_t(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    gemm_t_by(a, b, n, |x, y, s| s + x * y)
}

/// C = AᵀB in plain Rust, each step `s = step(a, b, s)` (`f32::mul_add` for fused ones).
fn gemm_t_by(a: &[f32], b: &[f32], n: usize, step: fn(f32, f32, f32) -> f32) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0f32;
            for k in 0..n {
                s = step(a[k * n + i], b[k * n + j], s);
            }
            c[i * n + j] = s;
        }
    }
    c
}

/// A and B of an n x n sgemm, exact in binary.
fn gemm_inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..n * n)
        .map(|x| ((x * 7) % 11) as f32 * 0.5 - 2.0)
        .collect();
    let b = (0..n * n).map(|x| ((x * 5) % 13) as f32 * 0.25).collect();
    (a, b)
}

/// Runs the sgemm kernel `run` (C = AᵀB into its third array) at size `n` on every engine,
/// against Rust.
fn check_gemm(
    n: usize,
    run: impl Fn(&NuArray2<f32>, &NuArray2<f32>, &mut NuArray2<f32>) -> nuda::Result<()>,
) {
    let (ha, hb) = gemm_inputs(n);
    check(gemm_t(&ha, &hb, n), || {
        let a = NuArray2::from_fn((n, n), |(i, j)| ha[i * n + j]);
        let b = NuArray2::from_fn((n, n), |(i, j)| hb[i * n + j]);
        let mut c = NuArray2::<f32>::new((n, n));
        run(&a, &b, &mut c)?;
        Ok(c.to_vec())
    });
}

/// sgemm with A and B staged in 16-deep slices, at sizes with and without full tiles, and
/// with a remainder of the staged loop.
#[test]
fn staged_sgemm_matches_rust() {
    for n in [32usize, 40, 13, 48] {
        check_gemm(n, |a, b, c| {
            nuwork!(16, 16; annot!(tilem(16, 16), stage(a, b, k: 16); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            })))
        });
    }
}

/// `buffers: 2`: two copies of each box, the next slice copied while the last is read, one
/// barrier a slice. Several slices, a remainder of the staged loop and partial tiles.
#[test]
fn double_buffered_stage_matches_rust() {
    for n in [32usize, 40, 13, 48] {
        check_gemm(n, |a, b, c| {
            nuwork!(16, 16; annot!(tilem(16, 16), stage(a, b, k: 8, buffers: 2); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            })))
        });
    }
}

/// The GPU's sgemm chain: 128 x 128 tiles, an 8 x 8 block a work-item (8 rows by `dmine`,
/// 8 columns as lanes), 8-deep slices double-buffered, fused multiply-adds. Exact against
/// Rust's `mul_add`, with partial tiles and a remainder of the staged loop; 16 and 32 deep
/// too.
#[test]
fn the_gpu_sgemm_chain_matches_rusts_mul_add() {
    // 42: rows 168 bytes long, so most of the four-element copies are not 16-byte aligned,
    // and the last of each row is cut short by the array's edge.
    for n in common::sizes(&[128usize, 136, 40, 42], &[136, 42]) {
        let (ha, hb) = gemm_inputs(n);
        check(gemm_t_by(&ha, &hb, n, f32::mul_add), || {
            let a = NuArray2::from_fn((n, n), |(i, j)| ha[i * n + j]);
            let b = NuArray2::from_fn((n, n), |(i, j)| hb[i * n + j]);
            let mut c = NuArray2::<f32>::new((n, n));
            nuwork!(16, 16; annot!(tilem(128, 128), stage(a, b, k: 8, buffers: 2), dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                c[(i, j)] = s;
            })))?;
            let first = c.to_vec();
            // 16 deep, as the model problem's GPU variant: the same C.
            nuwork!(16, 16; annot!(tilem(128, 128), stage(a, b, k: 16, buffers: 2), dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                c[(i, j)] = s;
            })))?;
            assert_eq!(first, c.to_vec(), "k: 8 and k: 16 differ at n = {n}");
            // 32 deep: 64 KiB of tiles, past the 48 KiB a CUDA kernel may declare, so there
            // they are dynamic shared memory (`backend/cuda/shared.rs`): the same C again,
            // where the device has that much (not Oclgrind's or NVIDIA OpenCL's 48 KiB).
            if nuda::current_device()?.info().local_memory < 65536 {
                return Ok(c.to_vec());
            }
            nuwork!(16, 16; annot!(tilem(128, 128), stage(a, b, k: 32, buffers: 2), dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                c[(i, j)] = s;
            })))?;
            assert_eq!(first, c.to_vec(), "k: 8 and k: 32 differ at n = {n}");
            Ok(c.to_vec())
        });
    }
}

/// GPU Gems 3's nbody tiling on one dimension: the bodies `j` staged per work-group, reads
/// at offsets (a halo), a uniform index position, and a loop that does not start at 0.
#[test]
fn staged_bodies_offsets_and_uniform_positions() {
    let n = 70usize;
    let p: Vec<f32> = (0..n + 2).map(|i| (i as f32 * 0.7).sin()).collect();
    let w: Vec<f32> = (0..3 * (n + 2)).map(|i| (i % 7) as f32 * 0.5).collect();
    let row = 1usize;
    let mut want = vec![0.0f32; n];
    for i in 0..n {
        let mut s = 0.0f32;
        for j in 1..n {
            s += (p[j + 1] - p[j - 1]) * p[i] + w[row * (n + 2) + j];
        }
        want[i] = s;
    }
    check(want, || {
        let pa = NuArray1::from_fn(n + 2, |i| p[i]);
        let wa = NuArray2::from_fn((3, n + 2), |(r, c)| w[r * (n + 2) + c]);
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(8; annot!(tilem(8), stage(pa, wa, j: 8); nfor!(i in n {
            let mut s = 0.0f32;
            let pi = pa[i];
            for j in 1..n {
                s += (pa[j + 1] - pa[j - 1]) * pi + wa[(row, j)];
            }
            out[i] = s;
        })))?;
        Ok(out.to_vec())
    });
}

/// A staged read out of range is the same error as without staging: `Err` naming the array.
#[test]
fn a_staged_read_out_of_range_is_an_error_naming_the_array() {
    let n = 32usize;
    for d in engines() {
        let r = nuda::with_device(d.index, || {
            let a = NuArray2::from_fn((n - 3, n), |(i, j)| (i + j) as f32);
            let mut c = NuArray1::<f32>::new(n);
            nuwork!(16; annot!(tilem(16), stage(a, k: 16); nfor!(i in n {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)]; });
                c[i] = s;
            })))
        })
        .unwrap();
        let e = r.expect_err("rows 29.. of a are out of range");
        let (array, _, _, _) = bounds(&e);
        assert_eq!(array, "a", "on {}: {e}", d.name);
    }
}

/// A staged loop over lanes whose body starts with a `let` of a staged read (or any statement
/// with a value read once for all lanes) builds and matches Rust.
#[test]
fn a_staged_lane_loop_may_start_with_a_let() {
    let n = 64usize;
    check_gemm(n, |a, b, c| {
        nuwork!(16, 16; annot!(tilem(64, 64), stage(a, b, k: 8), dmine(4, 1), vector(4); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n {
                let u = a[(k, i)];
                s += u * b[(k, j)];
            });
            c[(i, j)] = s;
        })))
    });
}

/// A 3x3 stencil on a padded input: the tile plus its halo staged once per work-group, the
/// taps unrolled by `inline` so every read is a loop variable plus a constant.
#[test]
fn stencil_tile_and_halo_staged_once() {
    let (h, w) = (21usize, 30usize);
    let src: Vec<f32> = (0..(h + 2) * (w + 2))
        .map(|i| ((i * 7) % 13) as f32 - 6.0)
        .collect();
    let taps = [0.0f32, -1.0, 0.0, -1.0, 5.0, -1.0, 0.0, -1.0, 0.0];
    let mut want = vec![0.0f32; h * w];
    for y in 0..h {
        for x in 0..w {
            let mut s = 0.0f32;
            for dy in 0..3 {
                for dx in 0..3 {
                    s += taps[dy * 3 + dx] * src[(y + dy) * (w + 2) + x + dx];
                }
            }
            want[y * w + x] = s;
        }
    }
    check(want, || {
        let a = NuArray2::from_fn((h + 2, w + 2), |(y, x)| src[y * (w + 2) + x]);
        let mut out = NuArray2::<f32>::new((h, w));
        nuwork!(8, 8; annot!(tilem(8, 8), stage(a); nfor!((y, x) in (h, w) {
            let mut s = 0.0f32;
            annot!(inline; nfor!((dy, dx) in (3, 3) {
                s += taps[dy * 3 + dx] * a[(y + dy, x + dx)];
            }));
            out[(y, x)] = s;
        })))?;
        Ok(out.to_vec())
    });
}

/// A read the staging cannot predict (here a shadowed loop variable) still reads the right
/// element: from memory, not from the copy.
#[test]
fn a_shadowed_loop_variable_reads_the_right_element() {
    let n = 24usize;
    let src: Vec<f32> = (0..n * (n + 1)).map(|x| (x % 17) as f32 - 8.0).collect();
    let want: Vec<f32> = (0..n)
        .map(|i| (0..n).map(|k| src[k * (n + 1) + i + 1]).sum())
        .collect();
    check(want, || {
        let a = NuArray2::from_fn((n, n + 1), |(r, c)| src[r * (n + 1) + c]);
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(8; annot!(tilem(8), stage(a, k: 8); nfor!(i in n {
            let mut s = 0.0f32;
            for k in 0..n {
                let i = i + 1;
                s += a[(k, i)];
            }
            out[i] = s;
        })))?;
        Ok(out.to_vec())
    });
}

/// myGEMM's scheme, written as the issue writes it: a 64x64 tile of C per work-group of
/// 16x16 work-items, each computing a 4x4 block, with A and B staged 16 rows of k at a time.
#[test]
fn staged_tiles_with_register_blocks() {
    for n in common::sizes(&[64usize, 100, 128], &[64, 100]) {
        check_gemm(n, |a, b, c| {
            nuwork!(16, 16; annot!(tilem(64, 64), stage(a, b, k: 16), dmine(4, 4); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            })))
        });
    }
}

/// The 2D-blocktiling kernel: `stage`, then `dmine` on rows, then `vector` on columns. Each
/// work-item computes a block of rows times a vector of columns, reading B's row fragments as
/// one vector load from local memory and A's elements as scalars broadcast to the lanes.
#[test]
fn staged_tiles_with_register_blocks_and_vectors() {
    for n in common::sizes(&[64usize, 100, 128, 40], &[64, 40]) {
        check_gemm(n, |a, b, c| {
            nuwork!(16, 16; annot!(tilem(64, 64), stage(a, b, k: 16), dmine(4, 1), vector(4); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            })))
        });
        // Vectors along both A's rows and a second width: 8 lanes, no dmine.
        check_gemm(n, |a, b, c| {
            nuwork!(8, 4; annot!(tilem(8, 32), stage(a, b, k: 8), vector(8); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            })))
        });
    }
}

/// The CPU chain of the sgemm example: on the native engine each tile's panels are packed and
/// each work-item's 8 x 16 block walks them (`emit::native::stage`), with full tiles, a tile
/// cut by the array's edge (lanes past it), and a staged loop shifted by one (`k + 1`, whose
/// box starts a row later). Exact against Rust on every engine.
#[test]
fn the_cpu_sgemm_chain_matches_rust() {
    // Under Oclgrind (`small`) 136: a full and a cut tile of rows, one cut tile of columns
    // (200 took 88 s of the simulator's CI time).
    for n in common::sizes(&[256usize, 200], &[136]) {
        check_gemm(n, |a, b, c| {
            nuwork!(16, 16; annot!(tilem(128, 256), stage(a, b, k: 8), dmine(8, 1), vector(16); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            })))
        });
    }
    let n = common::sizes(&[130usize], &[70])[0];
    let (ha, hb) = gemm_inputs(n);
    let mut want = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            want[i * n + j] =
                (0..n - 1).fold(0.0f32, |s, k| s + ha[(k + 1) * n + i] * hb[k * n + j]);
        }
    }
    check(want, || {
        let a = NuArray2::from_fn((n, n), |(i, j)| ha[i * n + j]);
        let b = NuArray2::from_fn((n, n), |(i, j)| hb[i * n + j]);
        let mut c = NuArray2::<f32>::new((n, n));
        let m = n - 1;
        nuwork!(16, 16; annot!(tilem(64, 64), stage(a, b, k: 8), dmine(4, 1), vector(4); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in m { s += a[(k + 1, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        })))?;
        Ok(c.to_vec())
    });
}

/// A vector read of a staged copy with lanes out of range is the scalar loop's error: `Err`
/// naming the array, on every engine.
#[test]
fn a_staged_vector_read_out_of_range_is_an_error_naming_the_array() {
    let n = 32usize;
    for d in engines() {
        let r = nuda::with_device(d.index, || {
            let a = NuArray2::from_fn((n, n - 2), |(i, j)| (i + j) as f32);
            let mut c = NuArray2::<f32>::new((n, n));
            nuwork!(16, 4; annot!(tilem(16, 16), stage(a, k: 8), vector(4); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, j)] * (i as f32); });
                c[(i, j)] = s;
            })))
        })
        .unwrap();
        let e = r.expect_err("columns 30.. of a are out of range");
        let (array, _, _, _) = bounds(&e);
        assert_eq!(array, "a", "on {}: {e}", d.name);
    }
}
