//! saxpy, `z = a * x + y` over f32: a loop with no reuse at all, bound by memory bandwidth,
//! where the native engine should run as fast as hand-written threaded Rust.

use super::problem::{source_lines, Check, Variant};
use super::spec::{streaming, Bench, Peer, Spec};
use super::threaded;
use nuda::prelude::*;

/// The vectors of one run.
pub struct Saxpy {
    pub n: usize,
    pub a: f32,
    pub x: NuArray1<f32>,
    pub y: NuArray1<f32>,
    pub z: NuArray1<f32>,
}

/// The loop as a nuda user writes it.
pub fn base(s: &mut Saxpy) -> Result<()> {
    let (n, a, x, y, z) = (s.n, s.a, &s.x, &s.y, &mut s.z);
    nuwork!(256; nfor!(i in n { z[i] = a * x[i] + y[i]; }))
}

/// The same loop as hand-written threaded Rust (see `threaded::saxpy`).
fn hand_threads(s: &mut Saxpy) -> Result<()> {
    let (x, y) = (s.x.try_as_slice()?, s.y.try_as_slice()?);
    threaded::saxpy(s.a, x, y, s.z.try_as_mut_slice()?);
    Ok(())
}

const VARIANTS: &[Variant<Saxpy>] = &[Variant {
    name: "base",
    function: "base",
    run: base,
}];

/// Exact in binary: a small multiple of 1/8 plus an integer below 2^10, so every engine's
/// result equals plain Rust's bit for bit.
fn setup(n: usize) -> Saxpy {
    let x = NuArray1::<f32>::from_fn(n, |i| (i % 1000) as f32);
    let y = NuArray1::<f32>::from_fn(n, |i| ((i * 7) % 64) as f32 * 0.125);
    let z = NuArray1::new(n);
    Saxpy { n, a: 0.5, x, y, z }
}

fn verify(s: &Saxpy) -> std::result::Result<(), String> {
    let (x, y, z) = (s.x.as_slice(), s.y.as_slice(), s.z.as_slice());
    match (0..s.n).find(|&i| z[i] != s.a * x[i] + y[i]) {
        Some(i) => Err(format!("z[{i}] = {}, want {}", z[i], s.a * x[i] + y[i])),
        None => Ok(()),
    }
}

const CHECK: Check<Saxpy> = Check {
    clear: |s| s.z.fill(f32::NAN),
    verify,
};

/// Runs saxpy over 2^24 elements on a CPU, 2^26 on a GPU (2^16 with `--quick`), rated in GB/s of traffic.
pub fn run(bench: &mut Bench, quick: bool) -> Result<()> {
    let n = super::spec::stream_len(&bench.device, quick, 1 << 24);
    let peer = Peer {
        name: "hand-written threaded Rust",
        run: hand_threads,
        lines: Some(source_lines(include_str!("threaded.rs"), "saxpy")),
    };
    let source = include_str!("saxpy.rs");
    let spec = Spec {
        flops: Some(2.0 * n as f64),
        ..streaming("saxpy", n, 12.0 * n as f64, VARIANTS, &CHECK, source, peer)
    };
    bench.run(&spec, &mut setup(n))
}
