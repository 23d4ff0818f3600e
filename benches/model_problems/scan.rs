//! An inclusive prefix sum of 2^24 u32: the loop a Rust user writes (`acc += a[i];
//! out[i] = acc;`), recognised as a scan. Against a hand-written OpenCL C scan (the same
//! reduce-then-scan: per-group totals, their prefixes on the host, then each group's block
//! again), a hand-written device copy of the same bytes (the device's bandwidth in this run),
//! and threaded Rust on the host (per-thread totals, then each chunk again from its offset).

use super::peers::{copy, copy_peer, exclusive, groups, GROUP};
use super::problem::{source_lines, Check, Variant};
use super::spec::{streaming, Bench, Peer, Spec};
use super::threaded::threads;
use nuda::prelude::*;

/// The input and output of one run.
pub struct Scan {
    pub n: usize,
    pub a: NuArray1<u32>,
    pub out: NuArray1<u32>,
}

/// The loop as a nuda user writes it.
pub fn scan(s: &mut Scan) -> Result<()> {
    let (n, a, out) = (s.n, &s.a, &mut s.out);
    let mut acc = 0u32;
    nuwork!(256; nfor!(i in n { acc += a[i]; out[i] = acc; }))
}

const VARIANTS: &[Variant<Scan>] = &[Variant {
    name: "nuwork! scan",
    function: "scan",
    run: scan,
}];

// SAFETY: `hand_cl` launches both kernels over `groups` groups of GROUP work-items, with `a`
// and `out` of n elements, `tot` and `pre` of `groups` elements and a local buffer of GROUP
// uints; every global access is below n or the group count (the block bounds are clamped to
// n), every local one below GROUP.
static HAND: KernelSource = unsafe {
    KernelSource::new(
        "kernel void totals(global const uint* restrict a, nu_idx n0, global uint* restrict tot,
                     nu_idx t0, local uint* s, int cpu) {
         nu_idx g = get_group_id(0), l = get_local_id(0), L = get_local_size(0);
         nu_idx blk = (n0 + get_num_groups(0) - 1) / get_num_groups(0);
         nu_idx lo = min(g * blk, n0), hi = min(lo + blk, n0);
         uint acc = 0;
         nu_idx sub = (hi - lo + L - 1) / L, a0 = min(lo + l * sub, hi), b0 = min(a0 + sub, hi);
         if (cpu) for (nu_idx i = a0; i < b0; i++) acc += a[i];
         else for (nu_idx i = lo + l; i < hi; i += L) acc += a[i];
         s[l] = acc;
         barrier(CLK_LOCAL_MEM_FENCE);
         for (nu_idx h = L / 2; h > 0; h /= 2) {
             if (l < h) s[l] += s[l + h];
             barrier(CLK_LOCAL_MEM_FENCE);
         }
         if (l == 0) tot[g] = s[0];
     }
     kernel void scan(global const uint* restrict a, nu_idx n0, global uint* restrict out,
                   nu_idx o0, global const uint* restrict pre, nu_idx p0, local uint* s, int cpu) {
         nu_idx g = get_group_id(0), l = get_local_id(0), L = get_local_size(0);
         nu_idx blk = (n0 + get_num_groups(0) - 1) / get_num_groups(0);
         nu_idx lo = min(g * blk, n0), hi = min(lo + blk, n0);
         uint carry = pre[g];
         if (cpu) {
             nu_idx sub = (hi - lo + L - 1) / L, a0 = min(lo + l * sub, hi), b0 = min(a0 + sub, hi);
             uint t = 0;
             for (nu_idx i = a0; i < b0; i++) t += a[i];
             s[l] = t;
             barrier(CLK_LOCAL_MEM_FENCE);
             for (nu_idx d = 1; d < L; d *= 2) {
                 uint v = l >= d ? s[l - d] : 0;
                 barrier(CLK_LOCAL_MEM_FENCE);
                 s[l] += v;
                 barrier(CLK_LOCAL_MEM_FENCE);
             }
             uint run = carry + s[l] - t;
             for (nu_idx i = a0; i < b0; i++) { run += a[i]; out[i] = run; }
         } else {
             for (nu_idx base = lo; base < hi; base += L) {
                 nu_idx i = base + l;
                 uint x = i < hi ? a[i] : 0;
                 s[l] = x;
                 barrier(CLK_LOCAL_MEM_FENCE);
                 for (nu_idx d = 1; d < L; d *= 2) {
                     uint v = l >= d ? s[l - d] : 0;
                     barrier(CLK_LOCAL_MEM_FENCE);
                     s[l] += v;
                     barrier(CLK_LOCAL_MEM_FENCE);
                 }
                 if (i < hi) out[i] = carry + s[l];
                 carry += s[L - 1];
                 barrier(CLK_LOCAL_MEM_FENCE);
             }
         }
     }",
    )
};

/// The hand-written OpenCL C scan: as many groups as nuda launches, per-group totals, their
/// prefixes on the host, then each block again (a contiguous part per work-item on a CPU, as
/// one writes for CPUs; tiles scanned in local memory on a GPU).
fn hand_cl(s: &mut Scan) -> Result<()> {
    let (groups, cpu) = groups(s.n)?;
    let mut tot = NuArray1::<u32>::new(groups);
    Launch::new(&HAND, "totals")
        .global([groups * GROUP])
        .local([GROUP])
        .array(&s.a)
        .array_mut(&mut tot)
        .local_array::<u32>(GROUP)
        .arg(cpu)
        .run()?;
    let pre = NuArray1::from_vec(groups, exclusive(tot.try_as_slice()?).0)?;
    Launch::new(&HAND, "scan")
        .global([groups * GROUP])
        .local([GROUP])
        .array(&s.a)
        .array_mut(&mut s.out)
        .array(&pre)
        .local_array::<u32>(GROUP)
        .arg(cpu)
        .run()
        .map(drop)
}

/// A copy of `a` into `out` on the device: the bytes a scan reads and writes, with no
/// arithmetic. It writes no prefix sums, so the check compares `out` with `a` instead.
fn hand_copy(s: &mut Scan) -> Result<()> {
    copy(&s.a, &mut s.out)
}

/// Hand-written threaded Rust: per-thread totals, then each chunk again from its offset.
fn hand_threads(s: &mut Scan) -> Result<()> {
    let a = s.a.try_as_slice()?;
    let out = s.out.try_as_mut_slice()?;
    let chunk = a.len().div_ceil(threads()).max(1);
    let totals: Vec<u32> = std::thread::scope(|sc| {
        let spawned: Vec<_> = a
            .chunks(chunk)
            .map(|c| sc.spawn(move || c.iter().fold(0u32, |x, &y| x.wrapping_add(y))))
            .collect();
        spawned.into_iter().filter_map(|t| t.join().ok()).collect()
    });
    std::thread::scope(|sc| {
        let mut run = 0u32;
        for ((c, o), t) in a.chunks(chunk).zip(out.chunks_mut(chunk)).zip(&totals) {
            let start = run;
            run = run.wrapping_add(*t);
            sc.spawn(move || {
                let mut acc = start;
                for (x, y) in c.iter().zip(o) {
                    acc = acc.wrapping_add(*x);
                    *y = acc;
                }
            });
        }
    });
    Ok(())
}

fn setup(n: usize) -> Scan {
    let a = NuArray1::<u32>::from_fn(n, |i| ((i as u64 * 2_654_435_761) >> 20) as u32 % 1000);
    Scan {
        n,
        a,
        out: NuArray1::new(n),
    }
}

fn verify(s: &Scan) -> std::result::Result<(), String> {
    let (a, out) = (s.a.as_slice(), s.out.as_slice());
    if out == a {
        return Ok(()); // the copy peer
    }
    let mut acc = 0u32;
    for (i, (&x, &y)) in a.iter().zip(out).enumerate() {
        acc = acc.wrapping_add(x);
        if y != acc {
            return Err(format!("out[{i}] = {y}, want {acc}"));
        }
    }
    Ok(())
}

const CHECK: Check<Scan> = Check {
    clear: |s| s.out.fill(u32::MAX),
    verify,
};

/// 2^24 u32 on a CPU, 2^26 on a GPU (2^16 with `--quick`), rated in GB/s of bytes read and written (8 per element).
pub fn run(bench: &mut Bench, quick: bool) -> Result<()> {
    let n = super::spec::stream_len(&bench.device, quick, 1 << 24);
    let source = include_str!("scan.rs");
    let host = Peer {
        name: "hand-written threaded Rust",
        run: hand_threads,
        lines: Some(source_lines(source, "hand_threads")),
    };
    let cl = Peer {
        name: "hand-written OpenCL C scan",
        run: hand_cl,
        lines: Some(source_lines(source, "hand_cl") + 50),
    };
    let copy = copy_peer(hand_copy);
    let spec = Spec {
        same_device_peers: vec![cl, copy],
        ..streaming("scan", n, 8.0 * n as f64, VARIANTS, &CHECK, source, host)
    };
    bench.run(&spec, &mut setup(n))
}
