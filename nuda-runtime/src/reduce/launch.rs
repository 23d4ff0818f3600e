//! Launching reductions. OpenCL: the host caps the number of work-groups (each work-item
//! then loops over the iterations a grid-stride apart), each group leaves one partial per
//! variable in a small array, and the host folds the partials in group order. Native: a fixed
//! number of tasks, whatever the thread count, each returning its partials, folded in task
//! order. Either way the result depends only on the device, the sizes and the group size.

use super::{RedOp, Reduce};
use crate::array::NuArray1;
use crate::backend::DeviceKind;
use crate::device::Device;
use crate::error::Result;
use crate::fault::Faults;
use crate::launch::{run_tasks, Launch, Split, Timing};
use std::sync::Mutex;

/// Work-groups per compute unit a reduction launches at most: enough to hide memory latency
/// on GPUs, few enough that each work-item accumulates many iterations before the tree.
pub(super) const GROUPS_PER_UNIT: usize = 32;

/// Native tasks of a reduction: fixed, so partials do not depend on the thread count.
pub(super) const NATIVE_TASKS: usize = 256;

/// The NDRange of a reduction kernel over `trips` iterations with work-groups of `local`:
/// whole groups, at most `GROUPS_PER_UNIT` per compute unit, halving the dimension with the
/// most groups until the cap holds. On a CPU, groups only along the first dimension: each
/// work-item takes a block of every dimension, and a block of the last one is a contiguous
/// run of memory for the usual row-major indexing. Zero where a dimension has no iteration.
pub fn reduce_global<const K: usize>(
    dev: &Device,
    trips: [usize; K],
    local: [usize; K],
) -> [usize; K] {
    capped_global(dev, trips, local, GROUPS_PER_UNIT)
}

/// [`reduce_global`] with at most `per_unit` groups per compute unit.
pub(super) fn capped_global<const K: usize>(
    dev: &Device,
    trips: [usize; K],
    local: [usize; K],
    per_unit: usize,
) -> [usize; K] {
    let cap = (dev.info().compute_units.max(1) as usize).saturating_mul(per_unit);
    let cpu = dev.info().kind == DeviceKind::Cpu;
    let mut groups: [usize; K] = std::array::from_fn(|d| match (cpu && d > 0, trips[d]) {
        (_, 0) => 0,
        (true, _) => 1,
        (false, t) => t.div_ceil(local[d].max(1)),
    });
    while groups.iter().product::<usize>() > cap {
        let widest = (0..K).max_by_key(|&d| (groups[d], K - d)).unwrap_or(0);
        groups[widest] = groups[widest].div_ceil(2);
    }
    std::array::from_fn(|d| groups[d].saturating_mul(local[d]))
}

/// One reduction variable's kernel arguments and partials for one launch.
pub struct Partials<T: Reduce> {
    op: RedOp,
    groups: usize,
    group_size: usize,
    array: NuArray1<T::Dev>,
}

impl<T: Reduce> Partials<T> {
    /// Partials for a launch of `global` work-items in groups of `local`.
    pub fn new<const K: usize>(
        op: RedOp,
        _like: &T,
        global: [usize; K],
        local: [usize; K],
    ) -> Self {
        let groups = (0..K).map(|d| global[d] / local[d].max(1)).product();
        Partials {
            op,
            groups,
            group_size: local.iter().product(),
            // One element at least: no launch takes an empty buffer.
            array: NuArray1::new(usize::max(groups, 1)),
        }
    }

    /// Pushes the kernel's three arguments: the identity (the work-item's accumulator starts
    /// there), local memory for the group's tree, and the partials array.
    pub fn push<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        l.arg(T::identity(self.op).to_dev())
            .local_array::<T::Dev>(self.group_size)
            .array_mut(&mut self.array)
    }

    /// `acc` combined with every group's partial, in group order.
    pub fn fold(self, acc: T) -> Result<T> {
        let parts = self.array.try_as_slice()?;
        let op = self.op;
        Ok(parts[..self.groups]
            .iter()
            .fold(acc, |a, &p| T::combine(op, a, T::from_dev(p))))
    }
}

/// [`native_nuwork`](crate::macro_support::native_nuwork) for a body that returns its partials:
/// at most `NATIVE_TASKS` tasks over the iteration space, each calling `body` on its segments
/// in order, folded with `combine` in segment and task order. `None` when there is no
/// iteration.
pub fn native_nuwork_reduce<const K: usize, R: Send>(
    dev: &Device,
    local: [usize; K],
    trips: [usize; K],
    faults: &Faults,
    body: impl Fn([usize; K], usize) -> R + Sync,
    combine: impl Fn(R, R) -> R + Sync,
) -> Result<(Timing, Option<R>)> {
    // OpenCL launches the groups of `local` (the grid is capped, so only their size counts).
    crate::launch::check_sizes(dev, &local, &local)?;
    if trips.contains(&0) {
        return Ok((Timing::default(), None));
    }
    let split = Split::new(trips, NATIVE_TASKS);
    let slots: Vec<Mutex<Option<R>>> = (0..split.tasks()).map(|_| Mutex::new(None)).collect();
    let task = |t: usize| {
        // As `native_nuwork`'s segments: each of `wide::run`'s paths gets its own copy of
        // the (inlined) body, compiled for its vector unit.
        let r = crate::backend::native::wide::run(
            #[inline(always)]
            || {
                (split.segments(t))
                    .map(|(idx, hi)| body(idx, hi))
                    .reduce(&combine)
            },
        );
        if let Ok(mut slot) = slots[t].lock() {
            *slot = r;
        }
    };
    let timing = run_tasks("nuwork!", Some(dev), faults, split.tasks(), &task)?;
    let parts = slots
        .into_iter()
        .filter_map(|s| s.into_inner().ok().flatten());
    Ok((timing, parts.reduce(combine)))
}
