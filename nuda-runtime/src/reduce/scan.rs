//! Scans of `nuwork!` (see `nuda-transforms/src/checks/reduce/README.md`): the group count of a scan
//! launch, the first pass's per-group totals turned into each group's exclusive prefix on the
//! host (a few KiB; the data stays on the device), and the native engine's two passes over
//! the same fixed tasks.

use super::launch::{GROUPS_PER_UNIT, NATIVE_TASKS};
use super::{RedOp, Reduce};
use crate::array::NuArray1;
use crate::device::Device;
use crate::error::Result;
use crate::fault::Faults;
use crate::launch::{run_tasks, Launch, Split};
use std::sync::Mutex;

/// The 1-D NDRange of a scan nest over `trips` iterations in groups of `local`: whole groups,
/// at most `GROUPS_PER_UNIT` per compute unit, one block of iterations each.
pub fn scan_global<const K: usize>(dev: &Device, trips: [usize; K], local: usize) -> [usize; 1] {
    let n = trips
        .iter()
        .try_fold(1usize, |a, &t| a.checked_mul(t))
        .unwrap_or(usize::MAX);
    let cap = (dev.info().compute_units.max(1) as usize).saturating_mul(GROUPS_PER_UNIT);
    let groups = n.div_ceil(local.max(1)).min(cap);
    [groups.saturating_mul(local)]
}

/// One scan variable's first pass: its arguments and its groups' totals.
pub struct ScanTotals<T: Reduce> {
    op: RedOp,
    groups: usize,
    group_size: usize,
    array: NuArray1<T::Dev>,
}

impl<T: Reduce> ScanTotals<T> {
    /// Totals for a launch of `global` work-items in groups of `local`.
    pub fn new(op: RedOp, _like: &T, global: [usize; 1], local: [usize; 1]) -> Self {
        let groups = global[0] / local[0].max(1);
        ScanTotals {
            op,
            groups,
            group_size: local[0],
            array: NuArray1::new(groups.max(1)),
        }
    }

    /// The first pass's arguments: the identity, local memory for the tree, the totals.
    pub fn push<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        l.arg(T::identity(self.op).to_dev())
            .local_array::<T::Dev>(self.group_size)
            .array_mut(&mut self.array)
    }

    /// Every group's total combined, from the identity: this launch's contributions (a
    /// `nudist` rank's total, which the ranks scan before the second pass).
    pub fn local_total(&self) -> Result<T> {
        let totals = self.array.try_as_slice()?;
        let op = self.op;
        Ok(totals[..self.groups]
            .iter()
            .fold(T::identity(op), |a, &t| T::combine(op, a, T::from_dev(t))))
    }

    /// Each group's exclusive prefix from `start` (the variable's value before the loop),
    /// and the contributions' total from the identity.
    pub fn prefixes(self, start: T) -> Result<ScanPrefixes<T>> {
        let totals = self.array.try_as_slice()?;
        let (op, mut run) = (self.op, start);
        let mut prefixes = Vec::with_capacity(totals.len());
        let mut total = T::identity(op);
        for &t in &totals[..self.groups] {
            prefixes.push(run.to_dev());
            run = T::combine(op, run, T::from_dev(t));
            total = T::combine(op, total, T::from_dev(t));
        }
        prefixes.resize(totals.len(), run.to_dev());
        let n = prefixes.len();
        Ok(ScanPrefixes {
            op,
            array: NuArray1::from_vec(n, prefixes)?,
            total,
            local: self.group_size.next_power_of_two(),
        })
    }
}

/// One scan variable's second pass: the groups' prefixes, on their way to the device.
pub struct ScanPrefixes<T: Reduce> {
    op: RedOp,
    array: NuArray1<T::Dev>,
    total: T,
    local: usize,
}

impl<T: Reduce> ScanPrefixes<T> {
    /// The second pass's arguments: the prefixes, the identity, local memory for the
    /// work-group's scan (a power of two at least the group size).
    pub fn push<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
        l.array(&self.array)
            .arg(T::identity(self.op).to_dev())
            .local_array::<T::Dev>(self.local)
    }

    /// Every contribution combined, from the identity.
    pub fn total(&self) -> T {
        self.total
    }
}

/// Runs `f(t)` for every task of `split`, keeping each result in task order.
fn per_task<R: Send>(
    dev: &Device,
    faults: &Faults,
    tasks: usize,
    f: &(dyn Fn(usize) -> Option<R> + Sync),
) -> Result<Vec<R>> {
    let slots: Vec<Mutex<Option<R>>> = (0..tasks).map(|_| Mutex::new(None)).collect();
    let task = |t: usize| {
        let r = f(t);
        if let Ok(mut slot) = slots[t].lock() {
            *slot = r;
        }
    };
    run_tasks("nuwork!", Some(dev), faults, tasks, &task)?;
    Ok(slots
        .into_iter()
        .filter_map(|s| s.into_inner().ok().flatten())
        .collect())
}

/// A scan nest's first native pass done: the tasks, each one's prefix, and the total.
pub struct ScanPlan<const K: usize, S> {
    split: Option<Split<K>>,
    prefixes: Vec<S>,
    total: Option<S>,
}

impl<const K: usize, S: Copy> ScanPlan<K, S> {
    /// The scan variables' contributions combined from the identity; `None` without
    /// iterations.
    pub fn total(&self) -> Option<S> {
        self.total
    }
}

/// A scan nest's first pass on the native engine: `totals` runs a segment of a task and
/// returns its scan variables' totals; a task's segments combine in order, and the tasks'
/// totals are scanned in task order from `rank(start, total)`, with `scan`. `rank` is
/// called once, with the total of every task (`None` without iterations): a `nudist` launch
/// moves the start past the ranks before this one there; otherwise it returns `start`.
pub fn native_scan_totals<const K: usize, S: Copy + Send + Sync>(
    dev: &Device,
    local: [usize; K],
    trips: [usize; K],
    faults: &Faults,
    totals: impl Fn([usize; K], usize) -> S + Sync,
    scan: impl Fn(S, S) -> S + Sync,
    (start, rank): (S, impl FnOnce(S, Option<S>) -> Result<S>),
) -> Result<ScanPlan<K, S>> {
    // OpenCL runs the scan in one-dimensional groups of every work-item of `local`.
    let group = [local.iter().product::<usize>()];
    crate::launch::check_sizes(dev, &group, &group)?;
    if trips.contains(&0) {
        rank(start, None)?;
        let (split, prefixes, total) = (None, Vec::new(), None);
        return Ok(ScanPlan {
            split,
            prefixes,
            total,
        });
    }
    let split = Split::new(trips, NATIVE_TASKS);
    let sums = per_task(dev, faults, split.tasks(), &|t| {
        split
            .segments(t)
            .map(|(idx, hi)| totals(idx, hi))
            .reduce(&scan)
    })?;
    let total = sums.iter().copied().reduce(&scan);
    let mut prefixes = Vec::with_capacity(sums.len());
    let mut run = rank(start, total)?;
    for &s in &sums {
        prefixes.push(run);
        run = scan(run, s);
    }
    Ok(ScanPlan {
        split: Some(split),
        prefixes,
        total,
    })
}

/// The second pass: `body` runs each segment of a task from the scan's value before it and
/// returns its reductions' partials and the scan's value after it; the partials fold in
/// order with `combine`. `None` without iterations.
pub fn native_scan_body<const K: usize, S: Copy + Send + Sync, R: Send>(
    dev: &Device,
    faults: &Faults,
    plan: &ScanPlan<K, S>,
    body: impl Fn([usize; K], usize, S) -> (R, S) + Sync,
    combine: impl Fn(R, R) -> R + Sync,
) -> Result<Option<R>> {
    let Some(split) = &plan.split else {
        return Ok(None);
    };
    let parts = per_task(dev, faults, split.tasks(), &|t| {
        let mut run = plan.prefixes[t];
        let mut part: Option<R> = None;
        for (idx, hi) in split.segments(t) {
            let (r, after) = body(idx, hi, run);
            run = after;
            part = Some(match part {
                Some(p) => combine(p, r),
                None => r,
            });
        }
        part
    })?;
    Ok(parts.into_iter().reduce(combine))
}

/// A push counter's type: `u32` where the pushes per iteration are known at compile time
/// (the launch checks the count fits), else `usize`.
pub trait PushCount: Copy {
    /// The counter's start for a vector of `len` elements; a length past the type
    /// saturates, which `push_guard` reports.
    fn start(len: usize) -> Self;
    /// The vector's length after the pushes.
    fn vec_len(self) -> usize;
}

impl PushCount for u32 {
    fn start(len: usize) -> u32 {
        u32::try_from(len).unwrap_or(u32::MAX)
    }
    fn vec_len(self) -> usize {
        self as usize
    }
}

impl PushCount for usize {
    fn start(len: usize) -> usize {
        len
    }
    fn vec_len(self) -> usize {
        self
    }
}

/// The length a vector of `len` elements may reach when each of the `trips` iterations
/// pushes at most `bound` times (`push_guard` checked it fits a 32-bit counter): the room a
/// single-pass launch reserves before it runs.
pub fn push_capacity<const K: usize>(len: usize, trips: [usize; K], bound: u64) -> usize {
    let most = trips
        .iter()
        .try_fold(bound as usize, |a, &t| a.checked_mul(t))
        .unwrap_or(usize::MAX);
    len.saturating_add(most)
}

/// The counter's start for a vector of `len` elements.
pub fn push_start<C: PushCount>(len: usize) -> C {
    C::start(len)
}

/// The vector's length from its counter.
pub fn push_len<C: PushCount>(c: C) -> usize {
    c.vec_len()
}

/// Checks that a vector of `len` elements, pushed at most `bound` times in each of the
/// `trips` iterations, stays within a 32-bit counter.
pub fn push_guard<const K: usize>(
    name: &str,
    len: usize,
    trips: [usize; K],
    bound: u64,
) -> Result<()> {
    let most = trips
        .iter()
        .try_fold(bound as u128, |a, &t| a.checked_mul(t as u128));
    match most.map(|m| m + len as u128) {
        Some(m) if m <= u32::MAX as u128 => Ok(()),
        _ => Err(crate::error::Error::DimsMismatch {
            what: format!("nuwork!: the pushes to `{name}`"),
            expected: format!(
                "at most {} elements in one NuVec, counting every push the nest may make \
                 (its iterations times the pushes of one; the counters are 32-bit, which \
                 keeps a GPU's scan in 32-bit index arithmetic)",
                u32::MAX
            ),
            found: format!("{len} elements plus up to {bound} pushes in each of {trips:?} iterations; split the loop or push into several vectors"),
        }),
    }
}
