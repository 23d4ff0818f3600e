//! What the hand-written OpenCL C peers of dot, scan and filter share: the group size and
//! count nuda's reductions and scans use (32 groups per compute unit, fewer for small
//! inputs), whether to take the CPU loop shape, and the host's exclusive scan of per-group
//! totals.

use nuda::{DeviceKind, Result};

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
