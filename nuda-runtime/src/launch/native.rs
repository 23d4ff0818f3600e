//! Native launches (layer 5, see `backend/README.md`): an NDRange and a Rust closure per
//! work-item, run on a device whose backend runs the native form, in groups, each group a
//! task of the backend's. Kernels that call `barrier()` run a group at a time: split at their
//! barriers into loops over its work-items, or as a coroutine per work-item.

use crate::backend::native::{run_group_with_barrier, wide, Group, GroupShape, NativeEngine};
use crate::backend::{Backend, Geometry, Timing};
use crate::device::{native_device, Device};
use crate::error::{Error, Result};
use crate::fault::Faults;
use crate::stats::{nanos, record, Event};
use crate::{GroupBarrier, WorkItem};
use std::sync::atomic::{AtomicBool, Ordering};

/// The largest work-group a kernel that calls `barrier()` runs in natively, as on GPUs.
const MAX_BARRIER_GROUP: usize = 1024;
use std::time::Instant;

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
    device: Option<Device>,
}

impl NativeLaunch {
    /// An NDRange of 1 to 3 global sizes.
    pub fn new(global: impl AsRef<[usize]>) -> Self {
        NativeLaunch {
            global: global.as_ref().to_vec(),
            local: None,
            name: "native kernel".into(),
            device: None,
        }
    }

    /// Runs on `device`, which must run kernels' native form, instead of the first such
    /// device in `nuda::devices()`.
    pub fn on(mut self, device: &Device) -> Self {
        self.device = Some(device.clone());
        self
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
        // Each group in code built for the CPU's widest vector unit, as `nuwork!`'s segments.
        let group = |g: usize| {
            wide::run(
                #[inline(always)]
                || shape.run_group(g, &kernel),
            )
        };
        run_tasks(&self.name, device.as_ref(), faults, shape.groups(), &group)
    }

    /// Runs a kernel that calls `barrier()`: a group's work-items as coroutines on one thread.
    pub fn run_with_barrier(
        self,
        kernel: impl Fn(&WorkItem, &GroupBarrier) + Sync,
    ) -> Result<Timing> {
        self.run_with_barrier_recording(&Faults::new(), kernel)
    }

    /// As `run_with_barrier`, with the faults the kernel records in `faults`.
    pub fn run_with_barrier_recording(
        self,
        faults: &Faults,
        kernel: impl Fn(&WorkItem, &GroupBarrier) + Sync,
    ) -> Result<Timing> {
        let (shape, device) = self.barrier_shape()?;
        let group = |g: usize| run_group_with_barrier(&shape, g, faults, &kernel);
        run_tasks(&self.name, device.as_ref(), faults, shape.groups(), &group)
    }

    /// Runs a kernel split at its barriers (`#[nukernel]`'s native form of a body that calls
    /// `barrier()`): `kernel` runs a whole work-group, walking its work-items in loops. A
    /// panic is caught once per task of groups, not per work-item.
    pub fn run_phased_recording(
        self,
        faults: &Faults,
        kernel: impl Fn(&Group) + Sync,
    ) -> Result<Timing> {
        let (shape, device) = self.barrier_shape()?;
        let group = |g: usize| {
            wide::run(
                #[inline(always)]
                || Group::new(&shape, g).run(&kernel),
            )
        };
        run_tasks(&self.name, device.as_ref(), faults, shape.groups(), &group)
    }

    /// The NDRange of a kernel that calls `barrier()`, whose groups are at most
    /// `MAX_BARRIER_GROUP` work-items on every native form, as on GPUs. (The coroutine form
    /// enters a group's coroutines one scope inside the other, so the bound also bounds that
    /// recursion on the worker's stack.)
    fn barrier_shape(&self) -> Result<(GroupShape, Option<Device>)> {
        let (shape, device) = self.shape()?;
        if shape.group_size() > MAX_BARRIER_GROUP {
            return Err(Error::DimsMismatch {
                what: format!(
                    "`{}`, which calls barrier(), on the native engine",
                    self.name
                ),
                expected: format!("work-groups of at most {MAX_BARRIER_GROUP} work-items"),
                found: format!("{} work-items", shape.group_size()),
            });
        }
        Ok((shape, device))
    }

    /// The NDRange as groups, checked against the device that will run it.
    fn shape(&self) -> Result<(GroupShape, Option<Device>)> {
        let device = self.device.clone().or_else(native_device);
        if let Some(d) = device.as_ref().filter(|d| !d.is_native()) {
            return Err(Error::Launch {
                kernel: self.name.clone(),
                device: d.label(),
                reason: "a native kernel runs only on a device that runs the native form; \
                         choose the native engine"
                    .into(),
            });
        }
        let fallback = || NativeEngine::new(0).info().clone();
        let info = device.as_ref().map_or_else(fallback, |d| d.info().clone());
        let geo = Geometry::new(&self.global, self.local.as_deref(), &info)?;
        Ok((GroupShape::new(&geo), device))
    }
}

/// The most tasks a launch hands its backend: more are run in batches, so that no
/// allocation here grows with the launch (2^32 work-groups would otherwise be 4 GiB of flags).
const MAX_TASKS: usize = 1 << 16;

/// Runs `task(0..tasks)` on `device` (the standalone native engine where the engine choice
/// lists none), in at most `MAX_TASKS` batches, each inside `faults.catch`; counts the launch,
/// and returns the first fault or panic as the launch's error.
pub(crate) fn run_tasks(
    name: &str,
    device: Option<&Device>,
    faults: &Faults,
    tasks: usize,
    task: &(dyn Fn(usize) + Sync),
) -> Result<Timing> {
    let start = Instant::now();
    let standalone;
    let backend: &dyn Backend = match device {
        Some(d) => d.backend(),
        None => {
            standalone = NativeEngine::new(0);
            &standalone
        }
    };
    let batches = tasks.min(MAX_TASKS);
    let batch = |b: usize| {
        let (lo, hi) = (share(tasks, batches, b), share(tasks, batches, b + 1));
        (lo..hi).for_each(task);
    };
    // A backend is safe code: batches it calls out of range or twice are not run, since
    // trusted accesses and plain stores rely on each task running once; batches it skips
    // make the launch an error.
    let claimed: Box<[AtomicBool]> = (0..batches).map(|_| AtomicBool::new(false)).collect();
    let caught = |b: usize| {
        if claimed
            .get(b)
            .is_some_and(|c| !c.swap(true, Ordering::AcqRel))
        {
            faults.catch(|| batch(b));
        }
    };
    let kernel_time = backend.run_tasks(batches, &caught)?;
    let ran = claimed.iter().filter(|c| c.load(Ordering::Acquire)).count();
    if ran != batches {
        return Err(Error::Launch {
            kernel: name.into(),
            device: device.map_or_else(|| "the native engine".into(), Device::label),
            reason: format!("the backend ran {ran} of the launch's {batches} tasks"),
        });
    }
    record(device.map(Device::index), Event::Launch(nanos(kernel_time)));
    let label = || device.map_or_else(|| "the native engine".into(), Device::label);
    faults.check(name, label)?;
    Ok(Timing {
        kernel: Some(kernel_time),
        wall: start.elapsed(),
    })
}

/// The start of batch `b` of `n` tasks in `batches` (`b == batches` gives `n`).
fn share(n: usize, batches: usize, b: usize) -> usize {
    let (base, extra) = (n / batches.max(1), n % batches.max(1));
    b * base + b.min(extra)
}

/// The checks an OpenCL launch of `global` work-items in groups of `local` makes
/// (`Geometry::new`: group size and count within the device's limits), made on every engine,
/// so that every engine refuses the same `nuwork!` launches.
pub(crate) fn check_sizes(dev: &Device, global: &[usize], local: &[usize]) -> Result<()> {
    super::Geometry::new(global, Some(local), dev.info()).map(drop)
}
