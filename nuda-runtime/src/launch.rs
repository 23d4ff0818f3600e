//! The launch path generated code uses: a kernel, its NDRange, and its arguments (scalars,
//! arrays as a pointer plus dims in `global` or `constant` memory, images, local memory).
//!
//! A launch returns after the kernel has completed, as NUDA's stubs do, and reports the
//! kernel's own time from OpenCL profiling events.

use crate::array::{NuArray, NuShared, Shape};
use crate::device::{current_device, Device};
use crate::element::{Element, Pod, Texel};
use crate::error::{Error, Result};
use crate::fault::Site;
use crate::image::NuImage2;
use crate::memory::Storage;
use crate::opencl::{launch::enqueue, ClDevice};
use opencl3::memory::cl_mem;
use std::time::Duration;

/// OpenCL C source embedded in the binary, holding one or more kernels.
#[derive(Debug)]
pub struct KernelSource {
    /// The OpenCL C text, without nuda's prelude (which defines `nu_idx` and `nu_sampler`).
    pub source: &'static str,
    /// For programs the macros generate: the fault record their kernels take first.
    pub(crate) faults: Option<FaultInfo>,
}

/// What a generated program's fault record may report.
#[derive(Debug)]
pub(crate) struct FaultInfo {
    /// The kernel as messages name it.
    pub label: &'static str,
    /// The program's check sites, by the number the device records.
    pub sites: &'static [&'static Site],
    /// Whether any check is compiled in, so the record must be read after each launch.
    pub read_back: bool,
}

impl KernelSource {
    /// Wraps a source text; it is compiled at its first launch on each device.
    ///
    /// # Safety
    ///
    /// nuda checks what the macros generate, but it cannot see inside hand-written OpenCL C.
    /// For every launch of this program's kernels the caller promises:
    /// - every access to global, constant, local or image memory stays within what the launch
    ///   passes: an array's dims are the `nu_idx` values after its pointer, a local buffer's
    ///   size is the one given to `local_array`;
    /// - the parameters match the launch's arguments in order and type (nuda checks their
    ///   number and OpenCL each one's size, not what the bytes mean);
    /// - no work-item writes a location another one reads or writes in the same launch,
    ///   unless atomics or a barrier order them, and every work-item of a group reaches each
    ///   barrier.
    ///
    /// A kernel that breaks these may overwrite any memory the device can reach, including
    /// other arrays and the driver's own, or hang the device.
    pub const unsafe fn new(source: &'static str) -> KernelSource {
        KernelSource {
            source,
            faults: None,
        }
    }

    /// A program the macros generated: each kernel's first parameter is the fault record.
    pub(crate) fn generated(source: &'static str, faults: FaultInfo) -> KernelSource {
        KernelSource {
            source,
            faults: Some(faults),
        }
    }
}

/// The integer type of dims and `.index()` arguments in a kernel: `nu_idx` in the prelude.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexType {
    /// `uint`: chosen whenever every size fits in 32 bits.
    U32,
    /// `ulong`: for arrays or NDRanges beyond 2^32 - 1.
    U64,
}

impl IndexType {
    /// The OpenCL C type name.
    pub fn cl_name(self) -> &'static str {
        match self {
            IndexType::U32 => "uint",
            IndexType::U64 => "ulong",
        }
    }

    /// The signed type of the same width: `nu_sidx`.
    pub fn signed_cl_name(self) -> &'static str {
        match self {
            IndexType::U32 => "int",
            IndexType::U64 => "long",
        }
    }

    /// The narrowest type that holds `max`.
    pub fn for_max(max: u64) -> IndexType {
        if max <= u64::from(u32::MAX) {
            IndexType::U32
        } else {
            IndexType::U64
        }
    }
}

/// How long a launch took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Timing {
    /// The kernel's own run time from profiling events (native engine: the parallel loop).
    pub kernel: Option<Duration>,
    /// Wall time of the whole launch, transfers and argument setting included.
    pub wall: Duration,
}

/// Device memory a kernel argument refers to.
pub(crate) trait DeviceArg: Sync {
    fn prepare(&self, dev: &ClDevice) -> Result<cl_mem>;
    /// As `prepare`, inside a shared-write scope (`NuShared`).
    fn prepare_shared(&self, dev: &ClDevice, write: bool) -> Result<cl_mem>;
    fn wrote(&mut self, device: usize);
    fn bytes(&self) -> u64;
}

impl<T: Pod> DeviceArg for Storage<T> {
    fn prepare(&self, dev: &ClDevice) -> Result<cl_mem> {
        Storage::prepare(self, dev)
    }
    fn prepare_shared(&self, dev: &ClDevice, write: bool) -> Result<cl_mem> {
        Storage::prepare_shared(self, dev, write)
    }
    fn wrote(&mut self, device: usize) {
        self.device_wrote(device);
    }
    fn bytes(&self) -> u64 {
        (self.len() * size_of::<T>()) as u64
    }
}

/// One kernel argument, in the order the kernel declares them.
pub(crate) enum Arg<'a> {
    Scalar(Vec<u8>),
    Index(u64),
    SIndex(i64),
    Mem {
        mem: &'a dyn DeviceArg,
        dims: Vec<usize>,
        constant: bool,
    },
    MemMut {
        mem: &'a mut dyn DeviceArg,
        dims: Vec<usize>,
    },
    /// An array in a shared-write scope, read or written.
    MemShared {
        mem: &'a dyn DeviceArg,
        dims: Vec<usize>,
        write: bool,
    },
    Image(&'a dyn DeviceArg),
    ImageMut(&'a mut dyn DeviceArg),
    Local(usize),
}

impl Arg<'_> {
    /// Makes a memory argument valid on `dev` and returns its handle.
    pub(crate) fn prepare(&self, dev: &ClDevice) -> Option<Result<cl_mem>> {
        match self {
            Arg::MemShared { mem, write, .. } => Some(mem.prepare_shared(dev, *write)),
            _ => self.memory().map(|(mem, _)| mem.prepare(dev)),
        }
    }

    /// The memory an array or image argument refers to, with the dims passed after it.
    pub(crate) fn memory(&self) -> Option<(&dyn DeviceArg, &[usize])> {
        match self {
            Arg::Mem { mem, dims, .. } => Some((*mem, dims)),
            Arg::MemMut { mem, dims } => Some((&**mem, dims)),
            Arg::MemShared { mem, dims, .. } => Some((*mem, dims)),
            Arg::Image(mem) => Some((*mem, &[])),
            Arg::ImageMut(mem) => Some((&**mem, &[])),
            _ => None,
        }
    }
}

/// A kernel launch being described; `run` executes it.
///
/// ```no_run
/// # use nuda_runtime::*;
/// // SAFETY: the one access is guarded by the array's dim `n`.
/// static SRC: KernelSource = unsafe { KernelSource::new(
///     "kernel void scale(global float* a, nu_idx n, float s) {
///          nu_idx i = get_global_id(0); if (i < n) a[i] *= s; }") };
/// let mut a = NuArray1::<f32>::from_vec(1000, vec![1.0; 1000])?;
/// Launch::new(&SRC, "scale").global([1000]).local([64]).array_mut(&mut a).arg(2.0f32).run()?;
/// # Ok::<(), Error>(())
/// ```
pub struct Launch<'a> {
    pub(crate) source: &'a KernelSource,
    pub(crate) kernel: &'a str,
    pub(crate) global: Vec<usize>,
    pub(crate) local: Option<Vec<usize>>,
    pub(crate) index_type: Option<IndexType>,
    pub(crate) device: Option<Device>,
    pub(crate) args: Vec<Arg<'a>>,
}

impl<'a> Launch<'a> {
    /// Starts a launch of kernel `kernel` in `source`.
    pub fn new(source: &'a KernelSource, kernel: &'a str) -> Self {
        Launch {
            source,
            kernel,
            global: vec![1],
            local: None,
            index_type: None,
            device: None,
            args: vec![],
        }
    }

    /// The NDRange: 1 to 3 sizes. Each is rounded up to a multiple of the local size.
    pub fn global(mut self, sizes: impl AsRef<[usize]>) -> Self {
        self.global = sizes.as_ref().to_vec();
        self
    }

    /// The work-group size, one per NDRange dimension. Unset lets the driver choose.
    pub fn local(mut self, sizes: impl AsRef<[usize]>) -> Self {
        self.local = Some(sizes.as_ref().to_vec());
        self
    }

    /// Runs on `device` instead of the calling thread's current device.
    pub fn on(mut self, device: &Device) -> Self {
        self.device = Some(device.clone());
        self
    }

    /// Forces the index type; by default the narrowest that holds every size is used.
    pub fn index_type(mut self, t: IndexType) -> Self {
        self.index_type = Some(t);
        self
    }

    /// A scalar argument, passed by value.
    pub fn arg<T: Element>(mut self, value: T) -> Self {
        self.args.push(Arg::Scalar(value.to_le_bytes_vec()));
        self
    }

    /// A size or index argument of type `nu_idx`.
    pub fn index(mut self, value: usize) -> Self {
        self.args.push(Arg::Index(value as u64));
        self
    }

    /// A signed size or index argument of type `nu_sidx` (`int` or `long`, as `nu_idx`).
    pub fn sindex(mut self, value: isize) -> Self {
        self.args.push(Arg::SIndex(value as i64));
        self
    }

    /// An array the kernel reads: `global const T*` followed by one `nu_idx` per dim.
    pub fn array<T: Element, S: Shape>(mut self, a: &'a NuArray<T, S>) -> Self {
        self.args.push(Arg::Mem {
            mem: a.storage(),
            dims: a.dims().to_vec(),
            constant: false,
        });
        self
    }

    /// An array the kernel may write: `global T*` followed by one `nu_idx` per dim.
    pub fn array_mut<T: Element, S: Shape>(mut self, a: &'a mut NuArray<T, S>) -> Self {
        let dims = a.dims().to_vec();
        self.args.push(Arg::MemMut {
            mem: a.storage_mut(),
            dims,
        });
        self
    }

    /// An array in a shared-write scope the kernel may write: `global T*` followed by one
    /// `nu_idx` per dim. Kernels on other devices may write the same array at once; see
    /// [`NuArray::as_shared`].
    pub fn array_shared<T: Element, S: Shape>(self, a: NuShared<'a, NuArray<T, S>>) -> Self {
        self.shared(a, true)
    }

    pub(crate) fn shared<T: Element, S: Shape>(
        mut self,
        a: NuShared<'a, NuArray<T, S>>,
        write: bool,
    ) -> Self {
        self.args.push(Arg::MemShared {
            mem: a.storage(),
            dims: a.dims().to_vec(),
            write,
        });
        self
    }

    /// An array in constant memory: `constant T*` followed by one `nu_idx` per dim.
    pub fn constant<T: Element, S: Shape>(mut self, a: &'a NuArray<T, S>) -> Self {
        self.args.push(Arg::Mem {
            mem: a.storage(),
            dims: a.dims().to_vec(),
            constant: true,
        });
        self
    }

    /// An image the kernel reads: `read_only image2d_t`, sampled with `nu_sampler`.
    pub fn image<T: Texel>(mut self, img: &'a NuImage2<T>) -> Self {
        self.args.push(Arg::Image(img.storage()));
        self
    }

    /// An image the kernel writes: `write_only image2d_t`.
    pub fn image_mut<T: Texel>(mut self, img: &'a mut NuImage2<T>) -> Self {
        self.args.push(Arg::ImageMut(img.storage_mut()));
        self
    }

    /// Local memory for `count` elements of `T`: a `local T*` argument.
    pub fn local_array<T: Element>(mut self, count: usize) -> Self {
        self.args.push(Arg::Local(count * size_of::<T>()));
        self
    }

    /// Runs the kernel and waits for it to complete.
    pub fn run(mut self) -> Result<Timing> {
        let device = match self.device.take() {
            Some(d) => d,
            None => current_device()?,
        };
        let Some(cl) = device.cl() else {
            return Err(Error::Launch {
                kernel: self.kernel.into(),
                device: device.label(),
                reason: "this is an OpenCL C kernel and the device is the native engine; \
                         choose an OpenCL device (NUDA_DEVICE, set_device) or write the kernel \
                         with nuwork!"
                    .into(),
            });
        };
        enqueue(cl, self)
    }
}

/// NDRange sizes, checked, with the global size rounded up to the work-group size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Global size per dimension, rounded up.
    pub global: Vec<usize>,
    /// Work-group size per dimension, if given.
    pub local: Option<Vec<usize>>,
}

impl Geometry {
    /// Checks the sizes against each other and against the device's limits.
    pub fn new(
        global: &[usize],
        local: Option<&[usize]>,
        info: &crate::DeviceInfo,
    ) -> Result<Self> {
        let bad = |found: String, expected: &str| Error::DimsMismatch {
            what: "a launch's work sizes".into(),
            expected: expected.into(),
            found,
        };
        if !(1..=3).contains(&global.len()) {
            return Err(bad(
                format!("{} global sizes", global.len()),
                "1 to 3 global sizes",
            ));
        }
        let Some(local) = local else {
            check_group_count(global, None)?;
            return Ok(Geometry {
                global: global.to_vec(),
                local: None,
            });
        };
        if local.len() != global.len() {
            let found = format!(
                "{} local sizes for {} global sizes",
                local.len(),
                global.len()
            );
            return Err(bad(found, "one local size per global size"));
        }
        if local.contains(&0) {
            return Err(bad(
                format!("local sizes {local:?}"),
                "local sizes of at least 1",
            ));
        }
        check_group_limits(local, info)?;
        let global = round_up(global, local)?;
        check_group_count(&global, Some(local))?;
        Ok(Geometry {
            global,
            local: Some(local.to_vec()),
        })
    }

    /// Whether the NDRange holds no work-item at all.
    pub fn is_empty(&self) -> bool {
        self.global.contains(&0)
    }
}

/// Each global size rounded up to a multiple of its local size; a size that would pass
/// `usize::MAX` is an error rather than a wrapped (or, in debug builds, panicking) product.
fn round_up(global: &[usize], local: &[usize]) -> Result<Vec<usize>> {
    let up = |(g, l): (&usize, &usize)| g.div_ceil(*l).checked_mul(*l);
    global
        .iter()
        .zip(local)
        .map(up)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::DimsMismatch {
            what: "a launch's work sizes".into(),
            expected: "global sizes that round up to a multiple of the local size".into(),
            found: format!("global sizes {global:?}, local sizes {local:?}"),
        })
}

/// At most `u32::MAX` work-groups per launch, counting a work-group per work-item where the
/// driver picks the local size: PoCL numbers work-groups in 32 bits and aborts the process
/// past that, and a launch that large is better split anyway.
fn check_group_count(global: &[usize], local: Option<&[usize]>) -> Result<()> {
    let per_group = |d: usize| local.map_or(1, |l| l[d]);
    let groups = (0..global.len())
        .map(|d| global[d] / per_group(d))
        .try_fold(1u64, |t, g| t.checked_mul(g as u64));
    if groups.is_some_and(|g| g <= u32::MAX.into()) {
        return Ok(());
    }
    Err(Error::DimsMismatch {
        what: "a launch's work sizes".into(),
        expected: format!(
            "at most {} work-groups; give a larger local size or split the launch",
            u32::MAX
        ),
        found: match local {
            Some(l) => format!("global sizes {global:?} in work-groups of {l:?}"),
            None => format!("global sizes {global:?} with no local size"),
        },
    })
}

fn check_group_limits(local: &[usize], info: &crate::DeviceInfo) -> Result<()> {
    // A product past usize::MAX is certainly past the device's limit.
    let total = local.iter().try_fold(1usize, |t, l| t.checked_mul(*l));
    let per_dim = local
        .iter()
        .zip(&info.max_work_item_sizes)
        .find(|(l, m)| l > m);
    if total.is_some_and(|t| t <= info.max_work_group_size) && per_dim.is_none() {
        return Ok(());
    }
    let total = total.map_or("more than usize::MAX".to_string(), |t| t.to_string());
    Err(Error::DimsMismatch {
        what: format!("a launch on device {} ({})", info.index, info.name),
        expected: format!(
            "a work-group of at most {} work-items, at most {:?} per dimension",
            info.max_work_group_size, info.max_work_item_sizes
        ),
        found: format!("local sizes {local:?} ({total} work-items)"),
    })
}
