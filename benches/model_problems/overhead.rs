//! The per-launch cost of `nuwork!` over a raw launch of the same hand-written kernel: the
//! macro's share is the launch-time proof, the instantiation lookup, the range arguments and
//! the captures' traits. The two are timed in alternating batches and compared by their
//! medians, since a CPU device's launch time drifts by more than the difference measured.

use nuda::prelude::*;
use std::time::{Duration, Instant};

// SAFETY: the access is guarded by `b0`, and every launch here passes `a` and `b` of one length.
static RAW: KernelSource = unsafe {
    KernelSource::new(
    "kernel void scale(global float* restrict b, nu_idx b0, global const float* restrict a, nu_idx a0) {
         nu_idx i = get_global_id(0);
         if (i < b0) b[i] = 2.0f * a[i];
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

fn median(mut v: Vec<Duration>) -> Duration {
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

/// Prints the median wall time per launch of both, on `device`.
pub fn report(device: &Device, quick: bool) -> Result<()> {
    let n = 1024;
    let (rounds, reps) = if quick { (5, 40) } else { (21, 100) };
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let mut b = NuArray1::<f32>::new(n);
    let mut b2 = NuArray1::<f32>::new(n);
    let via_macro = || nuwork!(64; nfor!(i in n { b[i] = 2.0 * a[i]; }));
    let (macro_t, raw_t) = if device.is_native() {
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
        alternate(rounds, reps, via_macro, raw)?
    } else {
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
        alternate(rounds, reps, via_macro, raw)?
    };
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "\nnuwork! per launch: {:.1} us; raw launch of the same kernel: {:.1} us; overhead {:+.1} us ({:.2}x); medians of {rounds} alternating batches of {reps}",
        us(macro_t),
        us(raw_t),
        us(macro_t) - us(raw_t),
        macro_t.as_secs_f64() / raw_t.as_secs_f64()
    );
    Ok(())
}
