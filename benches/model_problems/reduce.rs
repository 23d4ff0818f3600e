//! A work-group tree reduction in a `#[nukernel]`, 256 work-items per group and a `barrier()`
//! per level. On the native engine the macro splits a kernel that calls `barrier()` into loops
//! over a group's work-items between its barriers (issue 31; before, each work-item was a
//! coroutine switched at each barrier): this problem measures what a barrier kernel costs
//! against a plain threaded loop.

use super::problem::{source_lines, Check, Variant};
use super::spec::{streaming, Bench, Peer};
use nuda::prelude::*;

/// Work-items per group.
pub const GROUP: usize = 256;

/// The input, a scratch copy the tree works in, and one sum per group.
pub struct Reduce {
    pub n: usize,
    pub a: NuArray1<i32>,
    pub scratch: NuArray1<i32>,
    pub sums: NuArray1<i32>,
}

/// Each group halves its slice of `scratch` until one sum is left.
#[nukernel]
fn group_sums(sums: &mut NuArray1<i32>, a: &NuArray1<i32>, scratch: &mut NuArray1<i32>) {
    let g = global_id(0);
    let l = local_id(0);
    scratch[g] = a[g];
    barrier();
    let mut s = local_size(0) / 2;
    while s > 0 {
        if l < s {
            scratch[g] += scratch[g + s];
        }
        barrier();
        s /= 2;
    }
    if l == 0 {
        sums[group_id(0)] = scratch[g];
    }
}

/// The launch: one group per 256 elements.
pub fn base(r: &mut Reduce) -> Result<()> {
    let dev = nuda::current_device()?.index();
    nucall!(dev, [r.n], [GROUP]; group_sums(&mut r.sums, &r.a, &mut r.scratch))
}

/// The same tree in work-group local memory (`nulocal!`), as one writes it on a GPU.
#[nukernel]
fn local_sums(sums: &mut NuArray1<i32>, a: &NuArray1<i32>) {
    let part = nulocal!(i32, GROUP);
    let l = local_id(0);
    part[l] = a[global_id(0)];
    barrier();
    let mut s = GROUP / 2;
    while s > 0 {
        if l < s {
            part[l] += part[l + s];
        }
        barrier();
        s /= 2;
    }
    if l == 0 {
        sums[group_id(0)] = part[0];
    }
}

/// The launch of the local-memory tree.
pub fn local(r: &mut Reduce) -> Result<()> {
    let dev = nuda::current_device()?.index();
    nucall!(dev, [r.n], [GROUP]; local_sums(&mut r.sums, &r.a))
}

/// Hand-written threaded Rust: each thread sums whole groups' slices.
fn hand_threads(r: &mut Reduce) -> Result<()> {
    let a = r.a.try_as_slice()?;
    let sums = r.sums.try_as_mut_slice()?;
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let per = sums.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (t, out) in sums.chunks_mut(per).enumerate() {
            let a = &a[t * per * GROUP..];
            s.spawn(move || {
                for (k, o) in out.iter_mut().enumerate() {
                    *o = a[k * GROUP..(k + 1) * GROUP].iter().sum();
                }
            });
        }
    });
    Ok(())
}

const VARIANTS: &[Variant<Reduce>] = &[
    Variant {
        name: "base",
        function: "group_sums",
        run: base,
    },
    Variant {
        name: "nulocal! tree",
        function: "local_sums",
        run: local,
    },
];

fn setup(n: usize) -> Reduce {
    let a = NuArray1::<i32>::from_fn(n, |i| (i % 7) as i32 - 3);
    let (scratch, sums) = (NuArray1::new(n), NuArray1::new(n / GROUP));
    Reduce {
        n,
        a,
        scratch,
        sums,
    }
}

fn verify(r: &Reduce) -> std::result::Result<(), String> {
    let (a, sums) = (r.a.as_slice(), r.sums.as_slice());
    for (k, &got) in sums.iter().enumerate() {
        let want: i32 = a[k * GROUP..(k + 1) * GROUP].iter().sum();
        if got != want {
            return Err(format!("sums[{k}] = {got}, want {want}"));
        }
    }
    Ok(())
}

const CHECK: Check<Reduce> = Check {
    clear: |r| r.sums.fill(i32::MIN),
    verify,
};

/// Reduces 2^26 elements on a GPU, 2^16 on a CPU (the size issue 10's and issue 31's native
/// figures were taken at) and 2^14 with
/// `--quick`, in groups of 256, rated in GB/s of input.
pub fn run(bench: &mut Bench, quick: bool) -> Result<()> {
    let n = match quick {
        true => 1 << 14,
        false => super::spec::stream_len(&bench.device, false, 1 << 16),
    };
    let peer = Peer {
        name: "hand-written threaded Rust",
        run: hand_threads,
        lines: Some(source_lines(include_str!("reduce.rs"), "hand_threads")),
    };
    let source = include_str!("reduce.rs");
    let spec = streaming("reduce", n, 4.0 * n as f64, VARIANTS, &CHECK, source, peer);
    bench.run(&spec, &mut setup(n))
}
