//! The per-launch cost of `nuwork!` over a raw launch of the same hand-written kernel: the
//! macro's share is the instantiation lookup, the range arguments and the captures' traits.

use nuda::prelude::*;
use std::time::{Duration, Instant};

static RAW: KernelSource = KernelSource::new(
    "kernel void scale(global float* restrict b, nu_idx b0, global const float* restrict a, nu_idx a0) {
         nu_idx i = get_global_id(0);
         if (i < b0) b[i] = 2.0f * a[i];
     }",
);

fn mean(reps: u32, mut f: impl FnMut() -> Result<()>) -> Result<Duration> {
    f()?; // builds the program
    let start = Instant::now();
    for _ in 0..reps {
        f()?;
    }
    Ok(start.elapsed() / reps)
}

/// Prints the mean wall time per launch of both, on `device`.
pub fn report(device: &Device, quick: bool) -> Result<()> {
    let n = 1024;
    let reps = if quick { 200 } else { 2000 };
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let mut b = NuArray1::<f32>::new(n);
    let via_macro = mean(reps, || nuwork!(64; nfor!(i in n { b[i] = 2.0 * a[i]; })))?;
    let raw = if device.is_native() {
        let av = a.read_view()?;
        let bv = b.write_view()?;
        mean(reps, || {
            NativeLaunch::new([n])
                .local([64])
                .run(|w| {
                    let i = w.global_id(0);
                    if i < n {
                        bv.set(i, 2.0 * av[i]);
                    }
                })
                .map(drop)
        })?
    } else {
        mean(reps, || {
            Launch::new(&RAW, "scale")
                .on(device)
                .global([n])
                .local([64])
                .array_mut(&mut b)
                .array(&a)
                .run()
                .map(drop)
        })?
    };
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "\nnuwork! per launch: {:.1} us; raw launch of the same kernel: {:.1} us; overhead {:+.1} us ({:.2}x)",
        us(via_macro),
        us(raw),
        us(via_macro) - us(raw),
        via_macro.as_secs_f64() / raw.as_secs_f64()
    );
    Ok(())
}
