//! The native engine (layer 1, see `../README.md`): kernels as Rust closures over host
//! memory, run as rayon tasks, with the same work-item numbering as OpenCL. It runs the native
//! form of kernels. Work-groups are the unit of parallelism; the work-items of a group run in
//! order on one thread, last dimension fastest.
//!
//! `barrier()` cannot be honoured by running work-items one after another. `#[nukernel]`
//! splits a body that calls it into loops over a group's work-items between its barriers,
//! run a group at a time (`barrier_split.rs`); hand-written kernels, and the shapes the split leaves
//! alone, run a group's work-items as coroutines on the group's one thread (`barrier.rs`).

mod barrier;
mod barrier_split;
mod owned;
mod panel;
#[cfg(test)]
mod test;
mod views;
pub mod wide;

pub(crate) use barrier::run_group_with_barrier;
pub use barrier::GroupBarrier;
pub use barrier_split::Group;
pub(crate) use owned::OwnedCells;
#[cfg(test)]
pub(crate) use owned::FOREIGN;
pub(crate) use panel::new_launch;
pub use panel::{
    Lanes, NoPanel, NoPanelBuf, PackArray, PackOther, Panel, PanelBuf, Probe, StagedView, Walk,
};
pub(crate) use views::clamp;
pub use views::{ArrayView, ArrayViewMut, DisjointViewMut, ImageView, ImageViewMut};

use super::{Backend, DeviceInfo, DeviceKind, Form, Found, Geometry, Provider};
use crate::error::Result;
use rayon::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The native engine's provider, registered in `backend::builtin`.
pub(crate) static NATIVE: Native = Native;

/// Provides the one native device: the rayon pool.
pub(crate) struct Native;

impl Provider for Native {
    fn name(&self) -> &'static str {
        "native"
    }

    fn form(&self) -> Form {
        Form::Native
    }

    fn devices(&self) -> std::result::Result<Vec<Found>, String> {
        Ok(vec![Found {
            info: native_info(0),
            open: Box::new(|info| Arc::new(NativeEngine { info })),
        }])
    }
}

/// The native engine as a device: tasks on rayon's global pool.
pub struct NativeEngine {
    info: DeviceInfo,
}

impl NativeEngine {
    /// The engine, described as device `index`.
    pub fn new(index: usize) -> NativeEngine {
        NativeEngine {
            info: native_info(index),
        }
    }
}

impl Backend for NativeEngine {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn form(&self) -> Form {
        Form::Native
    }

    fn run_tasks(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) -> Result<Duration> {
        let start = Instant::now();
        (0..tasks).into_par_iter().for_each(task);
        Ok(start.elapsed())
    }
}

/// One work-item's coordinates, as OpenCL's `get_global_id` and friends report them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkItem {
    dims: usize,
    global_id: [usize; 3],
    local_id: [usize; 3],
    group_id: [usize; 3],
    global_size: [usize; 3],
    local_size: [usize; 3],
}

impl WorkItem {
    /// Number of NDRange dimensions (1 to 3).
    pub fn work_dim(&self) -> usize {
        self.dims
    }
    /// `get_global_id(d)`; 0 beyond the NDRange's dimensions.
    #[inline]
    pub fn global_id(&self, d: usize) -> usize {
        self.global_id.get(d).copied().unwrap_or(0)
    }
    /// `get_local_id(d)`.
    #[inline]
    pub fn local_id(&self, d: usize) -> usize {
        self.local_id.get(d).copied().unwrap_or(0)
    }
    /// `get_group_id(d)`.
    #[inline]
    pub fn group_id(&self, d: usize) -> usize {
        self.group_id.get(d).copied().unwrap_or(0)
    }
    /// `get_global_size(d)`; 1 beyond the NDRange's dimensions.
    #[inline]
    pub fn global_size(&self, d: usize) -> usize {
        self.global_size.get(d).copied().unwrap_or(1)
    }
    /// `get_local_size(d)`.
    #[inline]
    pub fn local_size(&self, d: usize) -> usize {
        self.local_size.get(d).copied().unwrap_or(1)
    }
    /// `get_num_groups(d)`.
    #[inline]
    pub fn num_groups(&self, d: usize) -> usize {
        self.global_size(d) / self.local_size(d)
    }
}

/// The NDRange as whole groups.
pub(crate) struct GroupShape {
    dims: usize,
    global: [usize; 3],
    local: [usize; 3],
    groups: [usize; 3],
}

impl GroupShape {
    pub(crate) fn new(geo: &Geometry) -> GroupShape {
        let mut global = [1; 3];
        let mut local = [1; 3];
        global[..geo.global.len()].copy_from_slice(&geo.global);
        if let Some(l) = &geo.local {
            local[..l.len()].copy_from_slice(l);
        }
        let groups = [0, 1, 2].map(|d| global[d] / local[d]);
        GroupShape {
            dims: geo.global.len(),
            global,
            local,
            groups,
        }
    }

    pub(crate) fn groups(&self) -> usize {
        self.groups.iter().product()
    }

    fn group_id(&self, linear: usize) -> [usize; 3] {
        let g = self.groups;
        [linear / (g[1] * g[2]), linear / g[2] % g[1], linear % g[2]]
    }

    /// The work-items of group `linear`, last dimension fastest.
    fn items(&self, linear: usize) -> impl Iterator<Item = WorkItem> + '_ {
        let group_id = self.group_id(linear);
        let [l0, l1, l2] = self.local;
        (0..l0 * l1 * l2).map(move |k| {
            let local_id = [k / (l1 * l2), k / l2 % l1, k % l2];
            WorkItem {
                dims: self.dims,
                global_id: [0, 1, 2].map(|d| group_id[d] * self.local[d] + local_id[d]),
                local_id,
                group_id,
                global_size: self.global,
                local_size: self.local,
            }
        })
    }

    pub(crate) fn group_size(&self) -> usize {
        self.local.iter().product()
    }

    pub(crate) fn run_group(&self, linear: usize, kernel: &(impl Fn(&WorkItem) + Sync)) {
        for w in self.items(linear) {
            kernel(&w);
        }
    }
}

/// Local memory per work-group (`nulocal!` arrays), as on a large GPU.
pub(crate) const LOCAL_MEMORY: u64 = 1 << 20;

/// The native engine's description as device `index`.
pub(crate) fn native_info(index: usize) -> DeviceInfo {
    let threads = rayon::current_num_threads();
    DeviceInfo {
        index,
        backend: "native",
        name: format!("native engine (rayon, {threads} threads)"),
        vendor: "nuda".into(),
        kind: DeviceKind::Native,
        platform: "native".into(),
        driver_version: env!("CARGO_PKG_VERSION").into(),
        compute_units: threads as u32,
        global_memory: host_memory(),
        max_alloc: host_memory(),
        local_memory: LOCAL_MEMORY,
        constant_memory: host_memory(),
        max_work_group_size: 4096,
        max_work_item_sizes: vec![4096; 3],
        fp64: true,
        images: true,
        int64_atomics: true,
        private_memory: super::private_limits(DeviceKind::Native).0,
        private_group_memory: super::private_limits(DeviceKind::Native).1,
    }
}

/// Total host memory from `/proc/meminfo`, or 0 where that does not exist.
fn host_memory() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib = text
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        });
    kib.unwrap_or(0) * 1024
}
