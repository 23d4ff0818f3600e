//! One Jacobi step of the heat equation on a grid split over MPI ranks (`nuda::dist`), with
//! its time split into compute, halo exchange and reduction. Shared by `examples/heat` and
//! `benches/dist_scaling.rs`.

use nuda::prelude::*;
use std::time::{Duration, Instant};

/// Where a rank's time went.
#[derive(Default, Clone, Copy, Debug)]
pub struct Times {
    /// The stencil's launch, less its collective step.
    pub compute: Duration,
    /// The halo exchange: `exchange()` whole, or, overlapped, `exchange_start()` (reading
    /// the boundary rows and posting the messages; the rest completes inside the launch,
    /// after the rows that need no halo, and counts as compute).
    pub halo: Duration,
    /// The launch's waits for other ranks (`nuda::dist::step_time()`): its collective step,
    /// where the largest change is combined over the ranks and the slowest rank is waited
    /// for, and, overlapped, the rest of the halo exchange.
    pub reduce: Duration,
}

/// The initial temperature: a hot top edge, a warm left edge, a cold rest.
pub fn init(i: usize, j: usize) -> f32 {
    match (i, j) {
        (0, _) => 100.0,
        (_, 0) => 50.0,
        _ => ((i * 7 + j * 3) % 11) as f32 * 0.1,
    }
}

/// One step from `u` into `v` (the edges stay as they are), its halo exchange overlapped
/// with the rows that need none (`exchange_start`) or not (`exchange`): the same bits
/// either way; the largest change.
pub fn step_with(
    u: &mut NuDist2<f32>,
    v: &mut NuDist2<f32>,
    t: &mut Times,
    overlap: bool,
) -> nuda::Result<f32> {
    let began = Instant::now();
    match overlap {
        true => u.exchange_start()?,
        false => u.exchange()?,
    }
    t.halo += began.elapsed();
    let (n, m) = u.dims();
    let (steps_before, began) = (nuda::dist::step_time(), Instant::now());
    let mut delta = 0.0f32;
    annot!(nudist; nuwork!(16, 16; nfor!((i, j) in (1 <> n - 2, 1 <> m - 2) {
        v[(i, j)] = 0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
        delta = delta.max((v[(i, j)] - u[(i, j)]).abs());
    })))?;
    let (whole, reduce) = (began.elapsed(), nuda::dist::step_time() - steps_before);
    t.reduce += reduce;
    t.compute += whole.saturating_sub(reduce);
    Ok(delta)
}

/// The same steps in plain Rust on one process: the final grid and each step's change.
#[allow(dead_code)] // the example checks with it; the bench only times
pub fn plain(n: usize, m: usize, steps: usize) -> (Vec<f32>, Vec<f32>) {
    let mut u: Vec<f32> = (0..n * m).map(|k| init(k / m, k % m)).collect();
    let mut v = u.clone();
    let mut deltas = Vec::with_capacity(steps);
    for _ in 0..steps {
        let mut delta = 0.0f32;
        for i in 1..n - 1 {
            for j in 1..m - 1 {
                let x = 0.25
                    * (u[(i - 1) * m + j]
                        + u[(i + 1) * m + j]
                        + u[i * m + j - 1]
                        + u[i * m + j + 1]);
                v[i * m + j] = x;
                delta = delta.max((x - u[i * m + j]).abs());
            }
        }
        deltas.push(delta);
        std::mem::swap(&mut u, &mut v);
    }
    (u, deltas)
}
