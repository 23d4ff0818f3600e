//! sdot: the second program anyone writes. nuda's `nuwork!` reduction (a captured `let mut`
//! updated by `+=`), against a hand-written OpenCL C reduction (grid-stride loop, local-memory
//! tree, partials summed on the host; blocked `float8` loads on CPUs), a hand-written OpenCL C copy moving as many bytes as
//! sdot reads (the device's streaming bandwidth, measured in the same run; it computes no
//! dot, and its check is the copy), and threaded Rust on the host
//! with sixteen accumulators per thread so the compiler vectorises it.

use super::peers::{copy, copy_peer, groups, GROUP};
use super::problem::{source_lines, Check, Variant};
use super::spec::{streaming, Bench, Peer, Spec};
use super::threaded::threads;
use nuda::prelude::*;

/// The inputs and result of one run, and the copy peer's output.
pub struct Dot {
    pub n: usize,
    pub a: NuArray1<f32>,
    pub b: NuArray1<f32>,
    pub copy: NuArray1<f32>,
    pub out: f32,
}

/// The loop as a nuda user writes it.
pub fn reduction(d: &mut Dot) -> Result<()> {
    let (n, a, b) = (d.n, &d.a, &d.b);
    let mut s = 0.0f32;
    nuwork!(256; nfor!(i in n { s += a[i] * b[i]; }))?;
    d.out = s;
    Ok(())
}

const VARIANTS: &[Variant<Dot>] = &[Variant {
    name: "nuwork! reduction",
    function: "reduction",
    run: reduction,
}];

// SAFETY: `hand_cl` launches `sdot` with `a` and `b` of n elements, `part` of one element per
// group, a local buffer of GROUP floats and groups of GROUP work-items; every global access is
// below n or the group count, every local one below the group size..
static HAND: KernelSource = unsafe {
    KernelSource::new(
        "kernel void sdot(global const float* restrict a, nu_idx n0, global const float* restrict b,
                   nu_idx n1, global float* restrict part, nu_idx p0, local float* s, int blocked) {
         float acc = 0.0f;
         nu_idx g = get_global_id(0), gs = get_global_size(0);
         if (blocked) {
             nu_idx c = (n0 + gs - 1) / gs, lo = min(g * c, n0), hi = min(lo + c, n0), i = lo;
             float8 v = (float8)(0.0f);
             for (; i + 8 <= hi; i += 8) v += vload8(0, a + i) * vload8(0, b + i);
             for (; i < hi; i++) acc += a[i] * b[i];
             acc += v.s0 + v.s1 + v.s2 + v.s3 + v.s4 + v.s5 + v.s6 + v.s7;
         } else {
             for (nu_idx i = g; i < n0; i += gs) acc += a[i] * b[i];
         }
         nu_idx l = get_local_id(0);
         s[l] = acc;
         barrier(CLK_LOCAL_MEM_FENCE);
         for (nu_idx h = get_local_size(0) / 2; h > 0; h /= 2) {
             if (l < h) s[l] += s[l + h];
             barrier(CLK_LOCAL_MEM_FENCE);
         }
         if (l == 0) part[get_group_id(0)] = s[0];
     }",
    )
};

/// The hand-written OpenCL C reduction: as many groups as nuda launches (32 per compute unit,
/// fewer for small inputs), the partials summed on the host. On a CPU each work-item takes a
/// contiguous block in `float8` vectors, as one writes for CPUs; on a GPU, a grid stride.
fn hand_cl(d: &mut Dot) -> Result<()> {
    let (groups, blocked) = groups(d.n)?;
    let mut part = NuArray1::<f32>::new(groups);
    Launch::new(&HAND, "sdot")
        .global([groups * GROUP])
        .local([GROUP])
        .array(&d.a)
        .array(&d.b)
        .array_mut(&mut part)
        .local_array::<f32>(GROUP)
        .arg(blocked)
        .run()?;
    d.out = part.try_as_slice()?.iter().sum();
    Ok(())
}

/// A copy of `a` on the device (`peers::copy`): 4n bytes read and 4n written, the 8n bytes
/// sdot reads. It leaves `out` cleared, which tells `verify` to check the copy instead.
fn hand_copy(d: &mut Dot) -> Result<()> {
    copy(&d.a, &mut d.copy)
}

/// One thread's share: sixteen independent sums, which the compiler keeps in vector
/// registers, then the remainder.
fn dot_of(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..16 {
            acc[k] += x[k] * y[k];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// Hand-written threaded Rust: one contiguous chunk per thread, partial sums added in order.
fn hand_threads(d: &mut Dot) -> Result<()> {
    let (a, b) = (d.a.try_as_slice()?, d.b.try_as_slice()?);
    let chunk = a.len().div_ceil(threads()).max(1);
    let parts: Vec<f32> = std::thread::scope(|s| {
        let spawned: Vec<_> = a
            .chunks(chunk)
            .zip(b.chunks(chunk))
            .map(|(x, y)| s.spawn(move || dot_of(x, y)))
            .collect();
        spawned.into_iter().filter_map(|t| t.join().ok()).collect()
    });
    d.out = parts.iter().sum();
    Ok(())
}

/// Positive values, so the relative error of any summation order stays small.
fn setup(n: usize) -> Dot {
    let a = NuArray1::<f32>::from_fn(n, |i| ((i % 13) + 1) as f32 * 0.125);
    let b = NuArray1::<f32>::from_fn(n, |i| ((i % 7) + 1) as f32 * 0.25);
    let copy = NuArray1::new(n);
    Dot {
        n,
        a,
        b,
        copy,
        out: 0.0,
    }
}

fn verify(d: &Dot) -> std::result::Result<(), String> {
    let (a, b) = (d.a.as_slice(), d.b.as_slice());
    if d.out.is_nan() {
        return match d.copy.as_slice() == a {
            true => Ok(()),
            false => Err("no dot, and the copy differs from `a`".into()),
        };
    }
    let exact: f64 = a.iter().zip(b).map(|(&x, &y)| x as f64 * y as f64).sum();
    let err = (d.out as f64 - exact).abs() / exact.max(1.0);
    match err <= 1e-4 {
        true => Ok(()),
        false => Err(format!(
            "dot = {}, want {exact} (relative error {err:.1e})",
            d.out
        )),
    }
}

const CHECK: Check<Dot> = Check {
    clear: |d| {
        d.out = f32::NAN;
        d.copy.fill(f32::NAN)
    },
    verify,
};

/// sdot over 2^24 elements on a CPU, 2^26 on a GPU (2^16 with `--quick`), rated in GB/s of input (8 bytes per
/// element; the copy peer moves the same bytes).
pub fn run(bench: &mut Bench, quick: bool) -> Result<()> {
    let n = super::spec::stream_len(&bench.device, quick, 1 << 24);
    let source = include_str!("dot.rs");
    let host = Peer {
        name: "hand-written threaded Rust, 16 accumulators",
        run: hand_threads,
        lines: Some(source_lines(source, "hand_threads") + source_lines(source, "dot_of")),
    };
    let cl = Peer {
        name: "hand-written OpenCL C reduction",
        run: hand_cl,
        lines: Some(source_lines(source, "hand_cl") + 22),
    };
    let copy = copy_peer(hand_copy);
    let spec = Spec {
        same_device_peers: vec![cl, copy],
        ..streaming("dot", n, 8.0 * n as f64, VARIANTS, &CHECK, source, host)
    };
    bench.run(&spec, &mut setup(n))
}
