//! What generated code runs on the native engine: `nuwork!` loops as rayon tasks, and
//! `#[nukernel]` launches described by `nucall!`.

use super::program::{Fill, Nucode, Variant};
use super::proof::{Input, Inputs, Op};
use super::range::IntoSize;
use crate::backend::native::{Group, GroupBarrier, WorkItem};
use crate::backend::Form;
use crate::device::{device, Device};
use crate::error::{Error, Result};
use crate::fault::{Faults, Site};
use crate::launch::{check_sizes, run_tasks, KernelSource, Launch, NativeLaunch, Split, Timing};

/// Runs the mapped loops' iterations, `trips` per dimension, in work-groups of `local` as
/// the OpenCL launch would (`global`: its NDRange, which the same limits check). Iterations
/// are independent (checked where the compiler could, else the user's promise, as on a GPU),
/// so they run in parallel: runs of rows, or chunks of the last dimension, are rayon tasks.
/// `body(idx, hi)` runs one segment: the iterations `idx` to `hi - 1` of the last dimension,
/// at the outer dimensions' `idx`, as one plain loop of the generated code. The body records
/// its faults in `faults`; the first one is the launch's error.
pub fn native_nuwork<const K: usize>(
    dev: &Device,
    local: [usize; K],
    global: [usize; K],
    trips: [usize; K],
    faults: &Faults,
    body: impl Fn([usize; K], usize) + Sync,
) -> Result<Timing> {
    check_sizes(dev, &global, &local)?;
    if trips.contains(&0) {
        return Ok(Timing::default());
    }
    // Panels of staged arrays packed by earlier launches are not this one's.
    crate::backend::native::new_launch();
    let split = Split::new(trips, rayon::current_num_threads() * 8);
    // Each task's segments in code built for the CPU's widest vector unit (`wide`).
    let task = |t: usize| {
        // Inlined into each of `wide::run`'s paths, with the body the macro marks the same
        // way, so that each path's loop is compiled for its own vector unit.
        crate::backend::native::wide::run(
            #[inline(always)]
            || {
                for (idx, hi) in split.segments(t) {
                    body(idx, hi);
                }
            },
        )
    };
    run_tasks("nuwork!", Some(dev), faults, split.tasks(), &task)
}

/// The one dispatch entry of generated code: the device names the form of the kernel it
/// runs, and `run` runs that form (the macros emit every form). No generated code asks which
/// backend a device belongs to.
pub fn dispatch<R>(dev: &Device, run: impl FnOnce(Form) -> Result<R>) -> Result<R> {
    run(dev.form())
}

/// The device and sizes `nucall!` passes to a `#[nukernel]`.
#[derive(Debug, Clone)]
pub struct Call {
    device: Result<usize>,
    global: Result<Vec<usize>>,
    local: Result<Vec<usize>>,
    unchecked: bool,
}

fn sizes<T: IntoSize>(what: &str, v: &[T]) -> Result<Vec<usize>> {
    v.iter()
        .map(|x| x.size())
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::DimsMismatch {
            what: format!("nucall! {what} sizes"),
            expected: "non-negative sizes".into(),
            found: format!("{v:?}"),
        })
}

impl Call {
    /// `nucall!(device, [global..], [local..]; ..)`.
    pub fn new<D: IntoSize, G: IntoSize, L: IntoSize>(
        device: D,
        global: &[G],
        local: &[L],
    ) -> Call {
        let dev = device.size().ok_or_else(|| Error::BadSelection {
            source: "nucall!".into(),
            value: format!("{device:?}"),
            reason: "not a device index".into(),
            choices: "an index from `nuda::devices()`".into(),
        });
        Call {
            device: dev,
            global: sizes("global", global),
            local: sizes("local", local),
            unchecked: false,
        }
    }

    /// `nucall!(#[unchecked] ..)`: bounds checks off.
    ///
    /// # Safety
    ///
    /// The contract of [`crate::skip_bounds_checks`]: every array index and image write
    /// coordinate the kernel evaluates is within its array's or image's dims. `nucall!` calls
    /// this only inside the caller's `unsafe` block, which its `#[unchecked]` requires.
    pub unsafe fn unchecked(mut self) -> Call {
        self.unchecked = true;
        self
    }

    /// Which checks the kernel's program keeps, proved from the launch's values: its
    /// captures and its work sizes on `dev` (the global size rounded up to the local size).
    pub fn prove(
        &self,
        program: &[Op],
        sites: &[Site],
        fills: &[Fill],
        captures: &[Input],
        calls: &[&'static Nucode],
        dev: &Device,
    ) -> Result<Variant> {
        let (global, local) = (self.global.clone()?, self.local.clone()?);
        let geo = crate::launch::Geometry::new(&global, Some(&local), dev.info())?;
        let inputs = Inputs {
            fills,
            captures,
            mapped: &[],
            work: Some((&geo.global, &local)),
            calls,
            unchecked: self.unchecked || crate::fault::unchecked_here(),
        };
        super::proof::prove(program, sites, &inputs)
    }

    /// Whether each `nulocal!` array needs zeroing at this launch: `covers[k]` lists, for
    /// array `k` whose first store writes it at the work-items' own local ids, those ids'
    /// dimensions (`None`: no such store), and `dims[k]` its dims. The store covers the
    /// array when the group is at least as large along them.
    pub fn zeroing(&self, covers: &[Option<&[u32]>], dims: &[&[usize]]) -> Result<Vec<bool>> {
        let local = self.local.clone()?;
        let size = |d: u32| local.get(d as usize).copied().unwrap_or(1);
        let short = |(cover, dims): (&Option<&[u32]>, &&[usize])| match cover {
            Some(ids) => ids.iter().zip(dims.iter()).any(|(&d, &n)| size(d) < n),
            None => true,
        };
        Ok(covers.iter().zip(dims).map(short).collect())
    }

    /// The number of work-items in one work-group.
    pub fn group_size(&self) -> Result<usize> {
        Ok(self.local.clone()?.iter().product())
    }

    /// The device the call names.
    pub fn device(&self) -> Result<Device> {
        device(self.device.clone()?)
    }

    /// An OpenCL launch of `kernel` in `src` with the call's sizes.
    pub fn launch<'a>(
        &self,
        src: &'a KernelSource,
        kernel: &'a str,
        dev: &Device,
    ) -> Result<Launch<'a>> {
        Ok(Launch::new(src, kernel)
            .on(dev)
            .global(self.global.clone()?)
            .local(self.local.clone()?))
    }

    fn native(&self, name: &str) -> Result<NativeLaunch> {
        Ok(NativeLaunch::new(self.global.clone()?)
            .local(self.local.clone()?)
            .on(&self.device()?)
            .name(name))
    }

    /// Runs a kernel's native form, which records its faults in `faults`.
    pub fn run_native(
        &self,
        name: &str,
        faults: &Faults,
        kernel: impl Fn(&WorkItem) + Sync,
    ) -> Result<Timing> {
        self.native(name)?.run_recording(faults, kernel)
    }

    /// Runs the native form of a kernel split at its barriers: a closure per work-group.
    pub fn run_native_phased(
        &self,
        name: &str,
        faults: &Faults,
        kernel: impl Fn(&Group) + Sync,
    ) -> Result<Timing> {
        self.native(name)?.run_phased_recording(faults, kernel)
    }

    /// Runs the native form of a kernel that calls `barrier()`.
    pub fn run_native_barrier(
        &self,
        name: &str,
        faults: &Faults,
        kernel: impl Fn(&WorkItem, &GroupBarrier) + Sync,
    ) -> Result<Timing> {
        self.native(name)?
            .run_with_barrier_recording(faults, kernel)
    }
}

/// `f` itself: generated code passes its kernel closures through here so that it may mark them
/// `#[inline(always)]` (an attribute a closure takes only as an argument). Inlined into
/// `wide::run`'s paths, each path's loops are compiled for that path's vector unit; left to
/// LLVM's judgement, a big kernel with three callers stays out of line, built for the
/// baseline.
#[inline(always)]
pub fn inlined<F>(f: F) -> F {
    f
}

/// A copy of a native view, scalar or range, for a local inside a chunk's loop (see
/// `native_nuwork`): LLVM keeps a local's fields in registers across the stores of the loop.
#[inline(always)]
pub fn hoist<T: Copy>(v: &T) -> T {
    *v
}

/// A work-item, for the type witness. Never runs.
pub fn witness_item() -> &'static WorkItem {
    unreachable!("nuda: the type witness is never called")
}

/// A barrier, for the type witness. Never runs.
pub fn witness_barrier() -> &'static GroupBarrier<'static> {
    unreachable!("nuda: the type witness is never called")
}

/// Floating-point functions kernels call as free functions.
pub trait Float: Copy {
    /// `1 / sqrt(x)`.
    fn rsqrt(self) -> Self;
}

impl Float for f32 {
    fn rsqrt(self) -> f32 {
        1.0 / self.sqrt()
    }
}

impl Float for f64 {
    fn rsqrt(self) -> f64 {
        1.0 / self.sqrt()
    }
}

/// `rsqrt(x)`: the reciprocal square root, as OpenCL's builtin.
pub fn rsqrt<T: Float>(x: T) -> T {
    x.rsqrt()
}
