//! Hand-written threaded Rust, the peers of the native engine: what a Rust programmer writes
//! without nuda, one `std::thread::scope` thread per core over contiguous chunks, so the
//! compiler sees plain slices and vectorises the inner loop.

use nuda::Result;
use std::ops::{AddAssign, Mul};

/// One thread per core, as `std::thread::available_parallelism` counts them.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `z = a * x + y` over f32 slices, each thread on one contiguous chunk.
pub fn saxpy(a: f32, x: &[f32], y: &[f32], z: &mut [f32]) {
    let chunk = z.len().div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        let parts = z
            .chunks_mut(chunk)
            .zip(x.chunks(chunk))
            .zip(y.chunks(chunk));
        for ((z, x), y) in parts {
            s.spawn(move || {
                for ((z, x), y) in z.iter_mut().zip(x).zip(y) {
                    *z = a * x + y;
                }
            });
        }
    });
}

/// `C = AᵀB` for n x n row-major matrices, in i-k-j order: each thread owns a block of rows
/// of C, and the innermost loop runs along a row of B and of C.
pub fn gemm_ikj<T>(n: usize, a: &[T], b: &[T], c: &mut [T])
where
    T: Copy + Default + Send + Sync + Mul<Output = T> + AddAssign,
{
    let rows = n.div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        for (block, c) in c.chunks_mut(rows * n).enumerate() {
            s.spawn(move || {
                for (r, c_row) in c.chunks_mut(n).enumerate() {
                    let i = block * rows + r;
                    c_row.fill(T::default());
                    for k in 0..n {
                        let aki = a[k * n + i];
                        let b_row = &b[k * n..(k + 1) * n];
                        for (c, &b) in c_row.iter_mut().zip(b_row) {
                            *c += aki * b;
                        }
                    }
                }
            });
        }
    });
}

/// `gemm_ikj` on a bench problem's matrices.
pub fn gemm<T>(
    n: usize,
    a: &nuda::NuArray2<T>,
    b: &nuda::NuArray2<T>,
    c: &mut nuda::NuArray2<T>,
) -> Result<()>
where
    T: nuda::Element + Default + Mul<Output = T> + AddAssign,
{
    let (a, b) = (a.try_as_slice()?, b.try_as_slice()?);
    gemm_ikj(n, a, b, c.try_as_mut_slice()?);
    Ok(())
}
