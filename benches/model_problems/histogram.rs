//! A 256-bin histogram of u32 values: atomics under contention. nuda's `nuwork!` with
//! `atomic_add` on the histogram (which nuda privatises: each group counts in local memory,
//! over many elements, and adds its counts once), and the textbook way in a `#[nukernel]`: per-group
//! sub-histograms in `nulocal!` memory merged with one global atomic per bin; against a
//! hand-written OpenCL C kernel doing the latter and hand-written threaded Rust with a
//! histogram per thread.

use super::problem::{source_lines, Check, Variant};
use super::spec::{streaming, Bench, Peer, Spec};
use super::threaded::threads;
use nuda::prelude::*;

/// Bins.
pub const BINS: usize = 256;

/// The input and histogram of one run.
pub struct Histogram {
    pub n: usize,
    pub v: NuArray1<u32>,
    pub hist: NuArray1<u32>,
}

/// The loop as a nuda user writes it: one atomic per element.
pub fn atomics(h: &mut Histogram) -> Result<()> {
    h.hist.fill(0)?;
    let (n, v, hist) = (h.n, &h.v, &mut h.hist);
    nuwork!(256; nfor!(i in n { hist.atomic_add((v[i] % 256) as usize, 1u32); }))
}

#[nukernel]
fn sub_histograms(hist: &mut NuArray1<u32>, v: &NuArray1<u32>) {
    let part = nulocal!(u32, BINS);
    let l = local_id(0);
    part[l] = 0;
    barrier();
    let i = global_id(0);
    if i < v.len() {
        part.atomic_add((v[i] % 256) as usize, 1u32);
    }
    barrier();
    if part[l] != 0 {
        hist.atomic_add(l, part[l]);
    }
}

/// The same as a user writes it with local memory: groups of 256 work-items.
pub fn local(h: &mut Histogram) -> Result<()> {
    h.hist.fill(0)?;
    let dev = nuda::current_device()?.index();
    nucall!(dev, [h.n], [BINS]; sub_histograms(&mut h.hist, &h.v))
}

const VARIANTS: &[Variant<Histogram>] = &[
    Variant {
        name: "atomic_add",
        function: "atomics",
        run: atomics,
    },
    Variant {
        name: "nulocal! sub-histograms",
        function: "sub_histograms",
        run: local,
    },
];

// SAFETY: `hand_cl` launches `hist256` with `v` of n elements and `hist` of 256, global size
// n rounded up to 256, local size 256 and a local buffer of 256 uints; every access is
// guarded by n or below 256.
static HAND: KernelSource = unsafe {
    KernelSource::new(
        "kernel void hist256(global const uint* restrict v, nu_idx n0,
                      global uint* restrict hist, nu_idx h0, local uint* part) {
         nu_idx l = get_local_id(0), i = get_global_id(0);
         part[l] = 0;
         barrier(CLK_LOCAL_MEM_FENCE);
         if (i < n0) atomic_inc(&part[v[i] % 256u]);
         barrier(CLK_LOCAL_MEM_FENCE);
         if (part[l] != 0) atomic_add(&hist[l], part[l]);
     }",
    )
};

/// The hand-written OpenCL C peer on the current device.
fn hand_cl(h: &mut Histogram) -> Result<()> {
    h.hist.fill(0)?;
    Launch::new(&HAND, "hist256")
        .global([h.n])
        .local([BINS])
        .array(&h.v)
        .array_mut(&mut h.hist)
        .local_array::<u32>(BINS)
        .run()
        .map(drop)
}

/// Hand-written threaded Rust: a histogram per thread, summed at the end.
fn hand_threads(h: &mut Histogram) -> Result<()> {
    let v = h.v.try_as_slice()?;
    let chunk = v.len().div_ceil(threads()).max(1);
    let parts: Vec<[u32; BINS]> = std::thread::scope(|s| {
        let spawned: Vec<_> = v
            .chunks(chunk)
            .map(|c| {
                s.spawn(move || {
                    let mut part = [0u32; BINS];
                    for x in c {
                        part[(*x % 256) as usize] += 1;
                    }
                    part
                })
            })
            .collect();
        spawned.into_iter().filter_map(|t| t.join().ok()).collect()
    });
    let hist = h.hist.try_as_mut_slice()?;
    hist.fill(0);
    for p in &parts {
        hist.iter_mut().zip(p).for_each(|(h, p)| *h += p);
    }
    Ok(())
}

/// Values hashed from their index: every bin gets a share, unevenly.
fn setup(n: usize) -> Histogram {
    let v = NuArray1::<u32>::from_fn(n, |i| (i as u32).wrapping_mul(2_654_435_761) >> 5);
    let hist = NuArray1::new(BINS);
    Histogram { n, v, hist }
}

fn verify(h: &Histogram) -> std::result::Result<(), String> {
    let mut want = [0u32; BINS];
    for x in h.v.as_slice() {
        want[(*x % 256) as usize] += 1;
    }
    match (0..BINS).find(|&b| h.hist[b] != want[b]) {
        Some(b) => Err(format!("hist[{b}] = {}, want {}", h.hist[b], want[b])),
        None => Ok(()),
    }
}

const CHECK: Check<Histogram> = Check {
    clear: |h| h.hist.fill(u32::MAX),
    verify,
};

/// Counts 2^26 values (2^22 on a CPU device, 2^16 with `--quick`), rated in GB/s of input.
pub fn run(bench: &mut Bench, quick: bool) -> Result<()> {
    let n = super::spec::stream_len(&bench.device, quick, 1 << 22);
    let source = include_str!("histogram.rs");
    let host = Peer {
        name: "hand-written threaded Rust",
        run: hand_threads,
        lines: Some(source_lines(source, "hand_threads")),
    };
    let cl = Peer {
        name: "hand-written OpenCL C, local sub-histograms",
        run: hand_cl,
        lines: Some(HAND.source.trim().lines().count()),
    };
    let spec = Spec {
        same_device_peers: vec![cl],
        ..streaming(
            "histogram",
            n,
            4.0 * n as f64,
            VARIANTS,
            &CHECK,
            source,
            host,
        )
    };
    bench.run(&spec, &mut setup(n))
}
