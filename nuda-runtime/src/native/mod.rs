//! The native engine: kernels as Rust closures, run on rayon over an NDRange with the same
//! work-item numbering as OpenCL. Work-groups are the unit of parallelism; the work-items of a
//! group run in order on one thread, last dimension fastest.
//!
//! `barrier()` cannot be honoured by running work-items one after another, so kernels that
//! call it run a group's work-items as coroutines on the group's one thread (`barrier.rs`).

mod barrier;
#[cfg(test)]
mod test;
mod views;

pub use barrier::GroupBarrier;
pub(crate) use views::clamp;
pub use views::{ArrayView, ArrayViewMut, DisjointViewMut, ImageView, ImageViewMut};

use crate::device::{native_device, Device};
use crate::error::Result;
use crate::fault::Faults;
use crate::launch::{Geometry, Timing};
use crate::stats::{nanos, record, Event};
use rayon::prelude::*;
use std::time::Instant;

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

/// A native launch: an NDRange and a closure run once per work-item.
///
/// ```
/// # use nuda_runtime::*;
/// let a = NuArray1::<f32>::from_fn(100, |i| i as f32);
/// let mut b = NuArray1::<f32>::new(100);
/// let (av, bv) = (a.read_view()?, b.write_view()?);
/// NativeLaunch::new([100]).local([32]).run(|w| {
///     let i = w.global_id(0);
///     if i < 100 { bv.set(i, 2.0 * av[i]); }
/// })?;
/// # assert_eq!(b[7], 14.0);
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct NativeLaunch {
    global: Vec<usize>,
    local: Option<Vec<usize>>,
    name: String,
}

impl NativeLaunch {
    /// An NDRange of 1 to 3 global sizes.
    pub fn new(global: impl AsRef<[usize]>) -> Self {
        NativeLaunch {
            global: global.as_ref().to_vec(),
            local: None,
            name: "native kernel".into(),
        }
    }

    /// Work-group sizes; the global sizes are rounded up to multiples of them.
    pub fn local(mut self, local: impl AsRef<[usize]>) -> Self {
        self.local = Some(local.as_ref().to_vec());
        self
    }

    /// A name for error messages.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Runs `kernel` for every work-item and returns when all have finished. A panic in the
    /// kernel (an out-of-range index, say) is returned as `Error::Kernel`, with the panic's
    /// message and location; nothing is printed.
    pub fn run(self, kernel: impl Fn(&WorkItem) + Sync) -> Result<Timing> {
        self.run_recording(&Faults::new(), kernel)
    }

    /// As `run`, with the faults the kernel records in `faults` (generated kernels).
    pub fn run_recording(
        self,
        faults: &Faults,
        kernel: impl Fn(&WorkItem) + Sync,
    ) -> Result<Timing> {
        let (shape, device) = self.shape()?;
        guarded(&self.name, device.as_ref(), faults, || {
            (0..shape.groups()).into_par_iter().for_each(|g| {
                faults.catch(|| shape.run_group(g, &kernel));
            });
        })
    }

    fn shape(&self) -> Result<(GroupShape, Option<Device>)> {
        let device = native_device();
        let info = device
            .as_ref()
            .map_or_else(|| crate::device::native_info(0), |d| d.info().clone());
        let geo = Geometry::new(&self.global, self.local.as_deref(), &info)?;
        Ok((GroupShape::new(&geo), device))
    }
}

/// Runs `work` (which spreads the launch over rayon, each task inside `faults.catch`),
/// counts the launch, and returns the first fault or panic as the launch's error.
pub(crate) fn guarded(
    name: &str,
    device: Option<&Device>,
    faults: &Faults,
    work: impl FnOnce(),
) -> Result<Timing> {
    let start = Instant::now();
    let _ = faults.catch(work);
    let kernel_time = start.elapsed();
    record(device.map(Device::index), Event::Launch(nanos(kernel_time)));
    let label = || device.map_or_else(|| "the native engine".into(), Device::label);
    faults.check(name, label)?;
    Ok(Timing {
        kernel: Some(kernel_time),
        wall: start.elapsed(),
    })
}

/// The NDRange as whole groups.
struct GroupShape {
    dims: usize,
    global: [usize; 3],
    local: [usize; 3],
    groups: [usize; 3],
}

impl GroupShape {
    fn new(geo: &Geometry) -> GroupShape {
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

    fn groups(&self) -> usize {
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

    fn group_size(&self) -> usize {
        self.local.iter().product()
    }

    fn run_group(&self, linear: usize, kernel: &(impl Fn(&WorkItem) + Sync)) {
        for w in self.items(linear) {
            kernel(&w);
        }
    }
}
