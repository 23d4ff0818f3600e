//! The per-launch cost of `nuwork!` over a raw launch of the same hand-written kernel: the
//! macro's share is the launch-time proof, the instantiation lookup, the range arguments and
//! the captures' traits. The two are timed in alternating batches and compared by their
//! medians, since a CPU device's launch time drifts by more than the difference measured.
//! A second pair, a gather whose bounds check stays, adds the fault record's read-back.

use super::table::RuntimeRow;
use nuda::prelude::*;
use std::time::{Duration, Instant};

// SAFETY: each access is guarded by `b0`; every launch here passes `a`, `b` and `idx` of one
// length, and `idx` holds indices below it.
static RAW: KernelSource = unsafe {
    KernelSource::new(
    "kernel void scale(global float* restrict b, nu_idx b0, global const float* restrict a, nu_idx a0) {
         nu_idx i = get_global_id(0);
         if (i < b0) b[i] = 2.0f * a[i];
     }
     kernel void gather(global float* restrict b, nu_idx b0, global const float* restrict a, nu_idx a0,
                        global const uint* restrict idx, nu_idx idx0) {
         nu_idx i = get_global_id(0);
         if (i < b0) b[i] = a[idx[i]];
     }",
)
};

/// Mean time of one launch over a batch of `reps`.
fn batch(reps: u32, f: &mut impl FnMut() -> Result<()>) -> Result<Duration> {
    let start = Instant::now();
    for _ in 0..reps {
        f()?;
    }
    Ok(start.elapsed() / reps)
}

/// The middle of `v`: how alternating batches are compared (`runtime.rs` too).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Medians of `rounds` alternating batches of `a` and `b`, after a warm-up of each.
fn alternate(
    rounds: u32,
    reps: u32,
    mut a: impl FnMut() -> Result<()>,
    mut b: impl FnMut() -> Result<()>,
) -> Result<(Duration, Duration)> {
    a()?;
    b()?;
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        ta.push(batch(reps, &mut a)?);
        tb.push(batch(reps, &mut b)?);
    }
    Ok((median(ta), median(tb)))
}

/// Prints the median wall time per launch of both, on `device`: once for a kernel whose
/// checks the proof removes, once for a gather whose check stays and whose fault record is
/// read back with every launch.
pub fn report(device: &Device, quick: bool) -> Result<Vec<RuntimeRow>> {
    let (rounds, reps) = if quick { (5, 40) } else { (21, 100) };
    let (m, r) = scale(device, rounds, reps)?;
    let figure = "nuwork! launch, b[i] = 2 a[i] (checks proved away), n = 1024";
    println!();
    let mut rows = vec![row(device, "nuwork!", figure, (m, r), (rounds, reps))];
    let (m, r) = gather(device, rounds, reps)?;
    let (what, figure) = (
        "nuwork! with a check kept (gather)",
        "nuwork! launch, b[i] = a[idx[i]] (a check kept), n = 1024",
    );
    rows.push(row(device, what, figure, (m, r), (rounds, reps)));
    Ok(rows)
}

/// Prints one pair and returns it as a row.
fn row(
    device: &Device,
    what: &str,
    figure: &str,
    (macro_t, raw_t): (Duration, Duration),
    (rounds, reps): (u32, u32),
) -> RuntimeRow {
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "{what} per launch: {:.1} us; raw launch of the same kernel: {:.1} us; overhead {:+.1} us ({:.2}x); medians of {rounds} alternating batches of {reps}",
        us(macro_t),
        us(raw_t),
        us(macro_t) - us(raw_t),
        macro_t.as_secs_f64() / raw_t.as_secs_f64()
    );
    RuntimeRow::new(device, figure.into(), us(macro_t), "us").against(
        "raw launch of the same hand-written kernel",
        us(raw_t),
        true,
    )
}

/// `b[i] = 2 a[i]`: the proof removes every check, so no fault record is read back.
fn scale(device: &Device, rounds: u32, reps: u32) -> Result<(Duration, Duration)> {
    let n = 1024;
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let mut b = NuArray1::<f32>::new(n);
    let mut b2 = NuArray1::<f32>::new(n);
    let via_macro = || nuwork!(64; nfor!(i in n { b[i] = 2.0 * a[i]; }));
    if device.is_native() {
        let (av, bv) = (a.read_view()?, b2.write_view()?);
        let raw = || {
            NativeLaunch::new([n])
                .local([64])
                .run(|w| {
                    let i = w.global_id(0);
                    if i < n {
                        bv.set(i, 2.0 * av[i]);
                    }
                })
                .map(drop)
        };
        return alternate(rounds, reps, via_macro, raw);
    }
    let raw = || {
        Launch::new(&RAW, "scale")
            .on(device)
            .global([n])
            .local([64])
            .array_mut(&mut b2)
            .array(&a)
            .run()
            .map(drop)
    };
    alternate(rounds, reps, via_macro, raw)
}

/// `b[i] = a[idx[i]]`: the index is data, so the bounds check stays and every launch reads
/// the fault record back; the raw peer trusts its indices.
fn gather(device: &Device, rounds: u32, reps: u32) -> Result<(Duration, Duration)> {
    let n = 1024;
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let idx = NuArray1::<u32>::from_fn(n, |i| ((i * 7) % n) as u32);
    let mut b = NuArray1::<f32>::new(n);
    let mut b2 = NuArray1::<f32>::new(n);
    let via_macro = || nuwork!(64; nfor!(i in n { b[i] = a[idx[i] as usize]; }));
    if device.is_native() {
        let (av, iv, bv) = (a.read_view()?, idx.read_view()?, b2.write_view()?);
        let raw = || {
            NativeLaunch::new([n])
                .local([64])
                .run(|w| {
                    let i = w.global_id(0);
                    if i < n {
                        bv.set(i, av[iv[i] as usize]);
                    }
                })
                .map(drop)
        };
        return alternate(rounds, reps, via_macro, raw);
    }
    let raw = || {
        Launch::new(&RAW, "gather")
            .on(device)
            .global([n])
            .local([64])
            .array_mut(&mut b2)
            .array(&a)
            .array(&idx)
            .run()
            .map(drop)
    };
    alternate(rounds, reps, via_macro, raw)
}
