//! Backends: what runs kernels and holds device memory. This file and the neutral types beside
//! it are layer 0 of the runtime (the interface); each backend folder under it is layer 1. The
//! layers and the steps for adding a backend are in `README.md` beside this file.
//!
//! A backend is a [`Provider`], which finds devices, and per device a [`Backend`], which runs
//! one [`Form`] of a kernel: OpenCL C source built by its compiler, or the native form (Rust
//! closures over host memory, called per task). Everything here speaks only the neutral types
//! of `info`, `geometry`, `source` and `buffer`; no backend knows another, and nothing here
//! knows the device registry, arrays or the macros above.

mod buffer;
pub(crate) mod c;
pub(crate) mod cuda;
mod geometry;
pub(crate) mod hip;
mod info;
pub mod native;
pub(crate) mod opencl;
mod source;

pub use buffer::{Buffer, HostPin, Layout};
pub use geometry::{Geometry, IndexType, Timing};
pub use info::{private_limits, DeviceInfo, DeviceKind};
pub(crate) use source::FaultInfo;
pub use source::KernelSource;

/// The compilers that see every source-form program before its launch, with no device of
/// theirs, when the environment asks (`NUDA_CUDA_CHECK`, `NUDA_HIP_CHECK`,
/// `NUDA_AMDGCN_CHECK`): one line each.
const CHECKS: [fn(&KernelSource, IndexType, &str) -> crate::error::Result<()>; 3] =
    [cuda::check::check, hip::check::check, opencl::amdgcn::check];

/// Each program's outcome under all of [`CHECKS`] in this process.
static CHECKED: std::sync::OnceLock<c::passed::Seen> = std::sync::OnceLock::new();

/// Runs the offline checks that are on, each on its own thread and beside `build` (the
/// device's own build of the program, or nothing), and answers the first error in the order
/// of [`CHECKS`], then `build`'s. The checkers are separate compilers (NVRTC in this process,
/// hiprtc in a forked child, clang in its own process), so a test run's many new programs
/// cost the slowest of them, not their sum. A program checked before costs a lookup.
pub(crate) fn offline_checks(
    source: &KernelSource,
    index: IndexType,
    kernel: &str,
    build: &(dyn Fn() -> crate::error::Result<()> + Sync),
) -> crate::error::Result<()> {
    if !offline_checks_wanted()? {
        return Ok(());
    }
    let mut built = Ok(());
    let mut threads = Vec::new();
    let checked = c::passed::remembered(&CHECKED, (source, index), || {
        std::thread::scope(|s| {
            let running: Vec<_> = CHECKS
                .iter()
                .map(|&check| {
                    let run = move || check(source, index, kernel);
                    // NVRTC recurses deeply on a big expression: more than a thread's 2 MiB.
                    let thread = std::thread::Builder::new().stack_size(64 << 20);
                    thread.spawn_scoped(s, run).map_err(|_| run)
                })
                .collect();
            threads = running.iter().flatten().map(|t| t.thread().id()).collect();
            built = build();
            running.into_iter().try_for_each(|r| match r {
                Ok(t) => t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                // No thread to be had: the check runs here.
                Err(run) => run(),
            })
        })
    });
    // What the checks left for the static lab belongs to the launch's thread.
    c::amd_lab::adopt(&threads);
    checked.and(built)
}

/// Whether any offline check is on (a bad setting is the error).
pub(crate) fn offline_checks_wanted() -> crate::error::Result<bool> {
    let c = crate::config::config();
    let lists = [&c.cuda_check, &c.hip_check, &c.amdgcn_check];
    lists.into_iter().try_fold(false, |any, l| match l {
        Ok(archs) => Ok(any || !archs.is_empty()),
        Err(e) => Err(e.clone()),
    })
}

use crate::error::{Error, Result};
use std::sync::Arc;
use std::time::Duration;

/// The form of a kernel a backend runs. The macros emit every form; the device picks one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Form {
    /// OpenCL C source ([`KernelSource`]), with arrays in the backend's device memory.
    Source,
    /// Rust closures over the host copies of arrays, run as parallel tasks.
    Native,
}

/// Finds a backend's devices when the registry is built, once per process.
pub trait Provider: Sync {
    /// The backend's name, as `DeviceInfo::platform` prefixes and errors say it.
    fn name(&self) -> &'static str;
    /// Whether `NUDA_ENGINE` lists this backend's devices: `native` keeps only native-form
    /// backends, `opencl` only source-form ones.
    fn form(&self) -> Form;
    /// The devices found, or why there is none. `index` in each `DeviceInfo` is ignored:
    /// the registry numbers devices after sorting them.
    fn devices(&self) -> std::result::Result<Vec<Found>, String>;
}

/// A device a provider found: its description, and how to open it once it has an index.
pub struct Found {
    /// What the device is; the registry sets `index`.
    pub info: DeviceInfo,
    /// Opens the device with its final description.
    pub open: Box<dyn FnOnce(DeviceInfo) -> Arc<dyn Backend> + Send>,
}

/// One device of one backend. Methods of the form a backend does not run answer `Err`.
pub trait Backend: Send + Sync {
    /// The device's description, with its index in `nuda::devices()`.
    fn info(&self) -> &DeviceInfo;

    /// The kernel form this device runs.
    fn form(&self) -> Form;

    /// Device memory for `bytes` bytes laid out as `layout` (source-form backends).
    fn alloc(&self, bytes: usize, layout: Layout) -> Result<Box<dyn Buffer>> {
        let _ = (bytes, layout);
        Err(self.unsupported("allocating device memory"))
    }

    /// Copies `data` into `buf`, blocking until done.
    fn upload(&self, buf: &mut dyn Buffer, data: &[u8]) -> Result<()> {
        let _ = (buf, data);
        Err(self.unsupported("copying to the device"))
    }

    /// Copies `buf` into `out`, blocking until done.
    fn download(&self, buf: &dyn Buffer, out: &mut [u8]) -> Result<()> {
        let _ = (buf, out);
        Err(self.unsupported("copying to the host"))
    }

    /// Copies `data` into the buffer `buf` from byte `offset` on, blocking until done; only
    /// those bytes move (`nuda::dist`'s halo rows).
    fn upload_at(&self, buf: &mut dyn Buffer, offset: usize, data: &[u8]) -> Result<()> {
        let _ = (buf, offset, data);
        Err(self.unsupported("copying part of an array to the device"))
    }

    /// Copies `out.len()` bytes of the buffer `buf`, from byte `offset` on, into `out`.
    fn download_at(&self, buf: &dyn Buffer, offset: usize, out: &mut [u8]) -> Result<()> {
        let _ = (buf, offset, out);
        Err(self.unsupported("copying part of an array to the host"))
    }

    /// Page-locks the `bytes` bytes at `ptr`, an array's host copy that moves to and from
    /// this device again and again, so that its copies run from it directly (no staging
    /// buffer, no host-side copy). `None` where the backend does not (the default) or the
    /// driver refused: transfers then stage as before. Copies of memory that is not pinned
    /// must still work.
    ///
    /// # Safety
    /// The memory stays allocated, and is neither freed nor moved, until the returned pin is
    /// released (`HostPin::release` returned `true`); after a failed release, forever.
    unsafe fn pin_host(&self, ptr: *mut u8, bytes: usize) -> Option<Box<dyn HostPin>> {
        let _ = (ptr, bytes);
        None
    }

    /// Whether `pin_host` may pin (the memory layer counts a host copy's transfers for such
    /// a backend only, so that another backend's `None` is not taken for a refusal).
    fn pins_host(&self) -> bool {
        false
    }

    /// Sets the first `bytes` bytes of `buf` to zero without a transfer.
    fn fill_zero(&self, buf: &mut dyn Buffer, bytes: usize) -> Result<()> {
        let _ = (buf, bytes);
        Err(self.unsupported("zeroing device memory"))
    }

    /// Builds the program, or finds it in its caches, without running it: the launch layer
    /// calls this beside the offline compile checks. A backend that builds only at launch
    /// answers `Ok`.
    fn prepare(&self, source: &KernelSource, index: IndexType, kernel: &str) -> Result<()> {
        let _ = (source, index, kernel);
        Ok(())
    }

    /// Builds (or finds in its caches) the program and runs one kernel of it to completion
    /// (source-form backends).
    fn launch(&self, launch: &mut SourceLaunch<'_, '_>) -> Result<Timing> {
        Err(self.unsupported(&format!("launching `{}`", launch.kernel)))
    }

    /// Runs `task(0)` to `task(tasks - 1)`, in parallel as the backend sees fit, and returns
    /// when all have finished, with the time they took (native-form backends). Each task
    /// catches its own panics.
    fn run_tasks(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) -> Result<Duration> {
        let _ = (tasks, task);
        Err(self.unsupported("running native tasks"))
    }

    /// The best of `reps` raw copies of `bytes` between pinned host memory and the device,
    /// up and down, in GB/s: what the bench compares nuda's transfers with. `None` where the
    /// backend has no such copy to offer (only CUDA's has).
    fn raw_transfer_rates(&self, bytes: usize, reps: usize) -> Option<Result<(f64, f64)>> {
        let _ = (bytes, reps);
        None
    }

    /// The best of `reps` page-lockings of `bytes` of the host's ordinary memory, in GB/s:
    /// what a pinned host copy costs once (`memory/host.rs`). `None` where the backend has
    /// no such lock to time (only CUDA's has).
    fn raw_pin_rate(&self, bytes: usize, reps: usize) -> Option<Result<f64>> {
        let _ = (bytes, reps);
        None
    }

    /// The mean wall time of `reps` launches of an empty kernel through the driver's own
    /// calls alone (launch, then wait): what the bench compares nuda's empty launch with.
    /// `None` where the backend has no such launch to offer (CUDA's and OpenCL's have).
    fn raw_launch_time(&self, reps: usize) -> Option<Result<std::time::Duration>> {
        let _ = reps;
        None
    }

    /// The error for a method of the form this backend does not run.
    fn unsupported(&self, what: &str) -> Error {
        let info = self.info();
        Error::Launch {
            kernel: what.into(),
            device: format!("device {} ({})", info.index, info.name),
            reason: format!("the {} backend does not do this", info.platform),
        }
    }
}

/// A launch of OpenCL C source, checked and sized by the launch layer: what a source-form
/// backend receives. Memory arguments are already resolved to this device's handles when the
/// backend asks for them.
pub struct SourceLaunch<'l, 'a> {
    /// The program.
    pub source: &'l KernelSource,
    /// The kernel in it.
    pub kernel: &'l str,
    /// The NDRange, checked against the device and rounded up to the work-group size.
    pub geometry: &'l Geometry,
    /// The type of `nu_idx`.
    pub index: IndexType,
    /// The arguments, in the kernel's order.
    pub args: &'l mut [Arg<'a>],
}

/// Memory a kernel argument refers to: an array or image's lazily synchronised storage,
/// which the memory layer implements, and nothing else may (the handles it returns reach
/// the driver as memory objects).
pub trait ArgMemory: Sync + sealed::Storage {
    /// Makes the data valid on device `device` and returns its buffer's handle there.
    fn prepare(&self, device: usize) -> Result<u64>;
    /// As `prepare`, inside a shared-write scope (`NuShared`).
    fn prepare_shared(&self, device: usize, write: bool) -> Result<u64>;
    /// A kernel on device `device` may have written the data.
    fn wrote(&mut self, device: usize);
    /// The data's size in bytes.
    fn bytes(&self) -> u64;
}

/// One kernel argument, in the order the kernel declares them.
pub enum Arg<'a> {
    /// A scalar, as little-endian bytes.
    Scalar(Vec<u8>),
    /// A `nu_idx` value.
    Index(u64),
    /// A `nu_sidx` value.
    SIndex(i64),
    /// An array the kernel reads: a pointer, then one `nu_idx` per dim.
    Mem {
        /// Its storage.
        mem: &'a dyn ArgMemory,
        /// Its dims.
        dims: Vec<usize>,
        /// Whether it is passed in constant memory.
        constant: bool,
    },
    /// An array the kernel may write.
    MemMut {
        /// Its storage.
        mem: &'a mut dyn ArgMemory,
        /// Its dims.
        dims: Vec<usize>,
    },
    /// An array in a shared-write scope, read or written.
    MemShared {
        /// Its storage.
        mem: &'a dyn ArgMemory,
        /// Its dims.
        dims: Vec<usize>,
        /// Whether the kernel may write it.
        write: bool,
    },
    /// An image the kernel reads.
    Image(&'a dyn ArgMemory),
    /// An image the kernel writes.
    ImageMut(&'a mut dyn ArgMemory),
    /// Local memory of this many bytes.
    Local(usize),
}

impl Arg<'_> {
    /// Makes a memory argument valid on device `device` and returns its handle.
    pub fn prepare(&self, device: usize) -> Option<Result<u64>> {
        match self {
            Arg::MemShared { mem, write, .. } => Some(mem.prepare_shared(device, *write)),
            _ => self.memory().map(|(mem, _)| mem.prepare(device)),
        }
    }

    /// The memory an array or image argument refers to, with the dims passed after it.
    pub fn memory(&self) -> Option<(&dyn ArgMemory, &[usize])> {
        match self {
            Arg::Mem { mem, dims, .. } => Some((*mem, dims)),
            Arg::MemMut { mem, dims } => Some((&**mem, dims)),
            Arg::MemShared { mem, dims, .. } => Some((*mem, dims)),
            Arg::Image(mem) => Some((*mem, &[])),
            Arg::ImageMut(mem) => Some((&**mem, &[])),
            _ => None,
        }
    }

    /// Records that a kernel on device `device` ran: arrays and images it may write are
    /// valid there alone.
    pub fn ran(&mut self, device: usize) {
        if let Arg::MemMut { mem, .. } | Arg::ImageMut(mem) = self {
            mem.wrote(device);
        }
    }
}

pub(crate) mod sealed {
    /// Only the memory layer's storage implements `ArgMemory`.
    pub trait Storage {}
}
