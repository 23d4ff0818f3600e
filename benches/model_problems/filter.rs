//! Stream compaction of 2^24 f32, keeping 10% and 50%: the loop a Rust user writes
//! (`if a[i] > t { kept.push(a[i]); }`), recognised as an order-preserving filter. Against a
//! hand-written OpenCL C compaction (counts per group, their prefixes on the host, then each
//! group's block again, writing each kept element at its slot), and threaded Rust on the host
//! (a vector per thread, concatenated).

use super::peers::{exclusive, groups, GROUP};
use super::problem::{source_lines, Check, Variant};
use super::spec::{streaming, Bench, Peer, Spec};
use super::threaded::threads;
use nuda::prelude::*;

/// The input, the threshold, and the output of one run.
pub struct Filter {
    pub n: usize,
    pub a: NuArray1<f32>,
    pub t: f32,
    pub kept: NuVec<f32>,
    /// The hand-written peers' output, with its length.
    pub out: NuArray1<f32>,
    pub len: usize,
}

/// The loop as a nuda user writes it.
pub fn filter(f: &mut Filter) -> Result<()> {
    let (n, a, t) = (f.n, &f.a, f.t);
    let mut kept = NuVec::new();
    nuwork!(256; nfor!(i in n { if a[i] > t { kept.push(a[i]); } }))?;
    f.kept = kept;
    Ok(())
}

const VARIANTS: &[Variant<Filter>] = &[Variant {
    name: "nuwork! push",
    function: "filter",
    run: filter,
}];

// SAFETY: `hand_cl` launches both kernels over `groups` groups of GROUP work-items, with `a`
// of n elements, `cnt` and `pre` of `groups`, `out` of the total count the first kernel found
// (every slot written is below it) and a local buffer of GROUP uints; every other global
// access is below n or the group count, every local one below GROUP.
static HAND: KernelSource = unsafe {
    KernelSource::new(
        "kernel void count(global const float* restrict a, nu_idx n0, float t,
                    global uint* restrict cnt, nu_idx c0, local uint* s, int cpu) {
         nu_idx g = get_group_id(0), l = get_local_id(0), L = get_local_size(0);
         nu_idx blk = (n0 + get_num_groups(0) - 1) / get_num_groups(0);
         nu_idx lo = min(g * blk, n0), hi = min(lo + blk, n0);
         uint c = 0;
         nu_idx sub = (hi - lo + L - 1) / L, a0 = min(lo + l * sub, hi), b0 = min(a0 + sub, hi);
         if (cpu) for (nu_idx i = a0; i < b0; i++) c += a[i] > t;
         else for (nu_idx i = lo + l; i < hi; i += L) c += a[i] > t;
         s[l] = c;
         barrier(CLK_LOCAL_MEM_FENCE);
         for (nu_idx h = L / 2; h > 0; h /= 2) {
             if (l < h) s[l] += s[l + h];
             barrier(CLK_LOCAL_MEM_FENCE);
         }
         if (l == 0) cnt[g] = s[0];
     }
     kernel void scatter(global const float* restrict a, nu_idx n0, float t,
                         global float* restrict out, nu_idx o0, global const uint* restrict pre,
                         nu_idx p0, local uint* s, int cpu) {
         nu_idx g = get_group_id(0), l = get_local_id(0), L = get_local_size(0);
         nu_idx blk = (n0 + get_num_groups(0) - 1) / get_num_groups(0);
         nu_idx lo = min(g * blk, n0), hi = min(lo + blk, n0);
         uint carry = pre[g];
         if (cpu) {
             nu_idx sub = (hi - lo + L - 1) / L, a0 = min(lo + l * sub, hi), b0 = min(a0 + sub, hi);
             uint c = 0;
             for (nu_idx i = a0; i < b0; i++) c += a[i] > t;
             s[l] = c;
             barrier(CLK_LOCAL_MEM_FENCE);
             for (nu_idx d = 1; d < L; d *= 2) {
                 uint v = l >= d ? s[l - d] : 0;
                 barrier(CLK_LOCAL_MEM_FENCE);
                 s[l] += v;
                 barrier(CLK_LOCAL_MEM_FENCE);
             }
             uint k = carry + s[l] - c;
             for (nu_idx i = a0; i < b0; i++) { float x = a[i]; if (x > t) out[k++] = x; }
         } else {
             for (nu_idx base = lo; base < hi; base += L) {
                 nu_idx i = base + l;
                 float x = i < hi ? a[i] : 0.0f;
                 uint f = i < hi && x > t;
                 s[l] = f;
                 barrier(CLK_LOCAL_MEM_FENCE);
                 for (nu_idx d = 1; d < L; d *= 2) {
                     uint v = l >= d ? s[l - d] : 0;
                     barrier(CLK_LOCAL_MEM_FENCE);
                     s[l] += v;
                     barrier(CLK_LOCAL_MEM_FENCE);
                 }
                 if (f) out[carry + s[l] - 1] = x;
                 carry += s[L - 1];
                 barrier(CLK_LOCAL_MEM_FENCE);
             }
         }
     }",
    )
};

/// The hand-written OpenCL C compaction: counts, host prefixes, scatter; a contiguous part
/// per work-item on a CPU, tiles scanned in local memory on a GPU.
fn hand_cl(f: &mut Filter) -> Result<()> {
    let (groups, cpu) = groups(f.n)?;
    let mut cnt = NuArray1::<u32>::new(groups);
    Launch::new(&HAND, "count")
        .global([groups * GROUP])
        .local([GROUP])
        .array(&f.a)
        .arg(f.t)
        .array_mut(&mut cnt)
        .local_array::<u32>(GROUP)
        .arg(cpu)
        .run()?;
    let (pre, run) = exclusive(cnt.try_as_slice()?);
    let pre = NuArray1::from_vec(groups, pre)?;
    f.out = NuArray1::new(run as usize);
    f.len = run as usize;
    Launch::new(&HAND, "scatter")
        .global([groups * GROUP])
        .local([GROUP])
        .array(&f.a)
        .arg(f.t)
        .array_mut(&mut f.out)
        .array(&pre)
        .local_array::<u32>(GROUP)
        .arg(cpu)
        .run()
        .map(drop)
}

/// Hand-written threaded Rust: a vector per thread's chunk, concatenated in order.
fn hand_threads(f: &mut Filter) -> Result<()> {
    let (a, t) = (f.a.try_as_slice()?, f.t);
    let chunk = a.len().div_ceil(threads()).max(1);
    let parts: Vec<Vec<f32>> = std::thread::scope(|s| {
        let spawned: Vec<_> = a
            .chunks(chunk)
            .map(|c| s.spawn(move || c.iter().copied().filter(|&x| x > t).collect()))
            .collect();
        spawned.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let all = parts.concat();
    f.len = all.len();
    f.out = NuArray1::from_vec(all.len(), all)?;
    Ok(())
}

/// Values spread evenly over 0 to 1000, so `t` keeps a known share.
fn setup(n: usize, keep: f32) -> Filter {
    let a = NuArray1::<f32>::from_fn(n, |i| ((i as u64 * 2_654_435_761) >> 7) as f32 % 1000.0);
    Filter {
        n,
        a,
        t: 1000.0 * (1.0 - keep),
        kept: NuVec::new(),
        out: NuArray1::new(0),
        len: usize::MAX,
    }
}

fn verify(f: &Filter) -> std::result::Result<(), String> {
    let want: Vec<f32> =
        f.a.as_slice()
            .iter()
            .copied()
            .filter(|&x| x > f.t)
            .collect();
    let got = match f.len {
        usize::MAX => f.kept.to_vec(),
        _ => f.out.to_vec(),
    };
    match got == want {
        true => Ok(()),
        false => Err(format!("kept {} elements, want {}", got.len(), want.len())),
    }
}

const CHECK: Check<Filter> = Check {
    clear: |f| {
        f.kept = NuVec::new();
        f.out = NuArray1::new(0);
        f.len = usize::MAX;
        Ok(())
    },
    verify,
};

/// 2^24 f32 on a CPU, 2^26 on a GPU (2^16 with `--quick`), keeping 10% and 50%, rated in GB/s of input.
pub fn run(bench: &mut Bench, quick: bool) -> Result<()> {
    let n = super::spec::stream_len(&bench.device, quick, 1 << 24);
    let source = include_str!("filter.rs");
    for (problem, keep) in [("filter 10%", 0.1f32), ("filter 50%", 0.5)] {
        let host = Peer {
            name: "hand-written threaded Rust",
            run: hand_threads,
            lines: Some(source_lines(source, "hand_threads")),
        };
        let cl = Peer {
            name: "hand-written OpenCL C compaction",
            run: hand_cl,
            lines: Some(source_lines(source, "hand_cl") + 55),
        };
        let spec = Spec {
            same_device_peers: vec![cl],
            ..streaming(problem, n, 4.0 * n as f64, VARIANTS, &CHECK, source, host)
        };
        bench.run(&spec, &mut setup(n, keep))?;
    }
    Ok(())
}
