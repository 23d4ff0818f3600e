//! sgemm C = AᵀB through `nuwork!` with the annotations of NUDA's sgemm study, each timed on
//! the current device in one run: GFLOP/s and the speedup over the unannotated base.

use nuda::prelude::*;
use std::time::{Duration, Instant};

type Variant = fn(usize, &NuArray2<f32>, &NuArray2<f32>, &mut NuArray2<f32>) -> Result<()>;

fn base(n: usize, a: &NuArray2<f32>, b: &NuArray2<f32>, c: &mut NuArray2<f32>) -> Result<()> {
    nuwork!(16, 16; nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
        c[(i, j)] = s;
    }))
}

fn dmine22(n: usize, a: &NuArray2<f32>, b: &NuArray2<f32>, c: &mut NuArray2<f32>) -> Result<()> {
    nuwork!(16, 16; annot!(dmine(2, 2); nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
        c[(i, j)] = s;
    })))
}

fn dmine44(n: usize, a: &NuArray2<f32>, b: &NuArray2<f32>, c: &mut NuArray2<f32>) -> Result<()> {
    nuwork!(16, 16; annot!(dmine(4, 4); nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
        c[(i, j)] = s;
    })))
}

fn tilem_dmine(
    n: usize,
    a: &NuArray2<f32>,
    b: &NuArray2<f32>,
    c: &mut NuArray2<f32>,
) -> Result<()> {
    nuwork!(16, 16; annot!(tilem(8, 8), dmine(4, 4); nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
        c[(i, j)] = s;
    })))
}

fn inner_unroll4(
    n: usize,
    a: &NuArray2<f32>,
    b: &NuArray2<f32>,
    c: &mut NuArray2<f32>,
) -> Result<()> {
    nuwork!(16, 16; nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        annot!(unroll(4); nfor!(k in n { s += a[(k, i)] * b[(k, j)]; }));
        c[(i, j)] = s;
    }))
}

/// The variants, base first.
pub const VARIANTS: &[(&str, Variant)] = &[
    ("base", base),
    ("dmine(2, 2)", dmine22),
    ("dmine(4, 4)", dmine44),
    ("tilem(8, 8), dmine(4, 4)", tilem_dmine),
    ("inner unroll(4)", inner_unroll4),
];

fn time(
    f: Variant,
    n: usize,
    a: &NuArray2<f32>,
    b: &NuArray2<f32>,
    c: &mut NuArray2<f32>,
    reps: u32,
) -> Result<Duration> {
    f(n, a, b, c)?; // builds the program and moves the data
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        f(n, a, b, c)?;
        best = best.min(t.elapsed());
    }
    Ok(best)
}

/// Times every variant and checks each against the base's result.
pub fn report(device: &Device, quick: bool) -> Result<()> {
    let n = if quick { 256 } else { 1024 };
    let reps = if quick { 2 } else { 3 };
    let a = NuArray2::<f32>::from_fn((n, n), |(i, j)| ((i * 7 + j * 3) % 17) as f32 * 0.125);
    let b = NuArray2::<f32>::from_fn((n, n), |(i, j)| ((i * 5 + j) % 13) as f32 * 0.25);
    println!("\nsgemm C = AᵀB, n = {n}, on {}", device.info().name);
    println!(
        "{:<28} {:>10} {:>10} {:>9}",
        "variant", "time", "GFLOP/s", "speedup"
    );
    let mut reference = None;
    let mut base_time = None;
    for (name, f) in VARIANTS {
        let mut c = NuArray2::<f32>::new((n, n));
        let t = time(*f, n, &a, &b, &mut c, reps)?;
        let result = c.to_vec();
        let ok = reference
            .get_or_insert_with(|| result.clone())
            .iter()
            .zip(&result)
            .all(|(x, y)| (x - y).abs() <= 1e-3 * x.abs().max(1.0));
        let base = *base_time.get_or_insert(t);
        let gflops = 2.0 * (n as f64).powi(3) / t.as_secs_f64() / 1e9;
        let speedup = base.as_secs_f64() / t.as_secs_f64();
        let check = if ok { "" } else { "  RESULT MISMATCH" };
        println!(
            "{name:<28} {:>8.1}ms {gflops:>10.2} {speedup:>8.2}x{check}",
            t.as_secs_f64() * 1e3
        );
    }
    remainders(n, reps)
}

/// The cost of remainder kernels: `dmine(4, 4)` at `n - 1`, which no factor divides, against
/// `n` (no remainder work), as GFLOP/s of the whole product.
fn remainders(n: usize, reps: u32) -> Result<()> {
    for m in [n, n - 1] {
        let a = NuArray2::<f32>::from_fn((m, m), |(i, j)| ((i + j) % 7) as f32);
        let b = a.clone();
        let mut c = NuArray2::<f32>::new((m, m));
        let t = time(dmine44, m, &a, &b, &mut c, reps)?;
        let gflops = 2.0 * (m as f64).powi(3) / t.as_secs_f64() / 1e9;
        let note = if m % 4 == 0 {
            "one kernel"
        } else {
            "main kernel + 2 remainder kernels"
        };
        println!(
            "dmine(4, 4) at n = {m:<5}       {:>8.1}ms {gflops:>10.2}   ({note})",
            t.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
