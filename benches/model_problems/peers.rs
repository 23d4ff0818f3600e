//! What the hand-written OpenCL C peers of dot, scan and filter share: the group size and
//! count nuda's reductions and scans use (32 groups per compute unit, fewer for small
//! inputs), whether to take the CPU loop shape, the host's exclusive scan of per-group
//! totals, and the copy peer, the device's streaming bandwidth in the same run.

use super::spec::{Peer, Run};
use nuda::{DeviceKind, KernelSource, Launch, NuArray1, Result};

/// Work-items per group, for nuda and the peers alike.
pub const GROUP: usize = 256;

/// The group count for `n` elements on the current device, and 1 on a CPU device (where
/// each work-item takes a contiguous block), else 0.
pub fn groups(n: usize) -> Result<(usize, i32)> {
    let dev = nuda::current_device()?;
    let groups = (dev.info().compute_units as usize * 32)
        .min(n.div_ceil(GROUP))
        .max(1);
    Ok((groups, i32::from(dev.info().kind == DeviceKind::Cpu)))
}

/// Each group's exclusive prefix of `totals` (wrapping), and the total.
pub fn exclusive(totals: &[u32]) -> (Vec<u32>, u32) {
    let mut run = 0u32;
    let mut prefixes = Vec::with_capacity(totals.len());
    for &t in totals {
        prefixes.push(run);
        run = run.wrapping_add(t);
    }
    (prefixes, run)
}

// SAFETY: `copy` takes `a` and `c` of `n0` and `c0` elements, each a whole device allocation
// (aligned to 16 bytes and more on every backend), and `copy` below launches it with equal
// lengths of 4-byte elements: its `uint4` accesses are below n0 / 4 fours, its scalar ones
// below n0.
static COPY: KernelSource = unsafe {
    KernelSource::new(
        "kernel void copy(global const uint* restrict a, nu_idx n0, global uint* restrict c,
                          nu_idx c0) {
             nu_idx g = get_global_id(0), gs = get_global_size(0), q = n0 / 4, i = g;
             global const uint4* a4 = (global const uint4*)a;
             global uint4* c4 = (global uint4*)c;
             for (; i + 3 * gs < q; i += 4 * gs) {
                 uint4 v0 = a4[i], v1 = a4[i + gs], v2 = a4[i + 2 * gs], v3 = a4[i + 3 * gs];
                 c4[i] = v0; c4[i + gs] = v1; c4[i + 2 * gs] = v2; c4[i + 3 * gs] = v3;
             }
             for (; i < q; i += gs) c4[i] = a4[i];
             for (nu_idx k = 4 * q + g; k < n0; k += gs) c[k] = a[k];
         }",
    )
};

/// The 4-byte element types the copy peer moves (the kernel copies bits).
pub trait Word: nuda::Element {}
impl Word for f32 {}
impl Word for u32 {}

/// `a` copied into `c` on the device, as a GPU programmer writes a copy: 128-bit loads and
/// stores, as many groups as nuda's reductions launch (32 a compute unit), each work-item
/// four loads in flight a round before it stores. No arithmetic: its rate is the device's
/// streaming bandwidth in this run.
pub fn copy<T: Word>(a: &NuArray1<T>, c: &mut NuArray1<T>) -> Result<()> {
    assert_eq!(a.len(), c.len(), "the copy peer copies equal lengths");
    let (groups, _) = groups(a.len())?;
    Launch::new(&COPY, "copy")
        .global([groups * GROUP])
        .local([GROUP])
        .array(a)
        .array_mut(c)
        .run()
        .map(drop)
}

/// The copy peer's row, with `run` copying the problem's input (`copy` above).
pub fn copy_peer<S>(run: Run<S>) -> Peer<'static, S> {
    Peer {
        name: "hand-written OpenCL C copy (bandwidth)",
        run,
        lines: None,
    }
}
