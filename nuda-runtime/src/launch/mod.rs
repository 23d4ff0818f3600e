//! Launches (layer 5, see `backend/README.md`): the builders a program or the macros use.
//! [`Launch`] describes a kernel of OpenCL C source, its NDRange and its arguments (scalars,
//! arrays as a pointer plus dims in `global` or `constant` memory, images, local memory),
//! checks it against the device, and hands it to the device's backend; [`NativeLaunch`] runs
//! a Rust closure per work-item on a native-form device.
//!
//! A launch returns after the kernel has completed, as NUDA's stubs do, and reports the
//! kernel's own time from the backend (OpenCL: profiling events).

mod native;
mod split;

pub use crate::backend::{Geometry, IndexType, KernelSource, Timing};
pub use native::NativeLaunch;
pub(crate) use native::{check_sizes, run_tasks};
pub(crate) use split::Split;

use crate::array::{NuArray, NuShared, Shape};
use crate::backend::{Arg, DeviceInfo, Form, SourceLaunch};
use crate::device::{current_device, Device};
use crate::element::Stored;
use crate::element::Texel;
use crate::error::{Error, Result};
use crate::image::NuImage2;
use std::time::{Duration, Instant};

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
    pub fn arg<T: Stored>(mut self, value: T) -> Self {
        self.args.push(Arg::Scalar(value.to_le_bytes_vec()));
        self
    }

    /// A value passed as its bytes: a captured private array (`[T; N]`).
    pub(crate) fn bytes(mut self, bytes: Vec<u8>) -> Self {
        self.args.push(Arg::Scalar(bytes));
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
    pub fn array<T: Stored, S: Shape>(mut self, a: &'a NuArray<T, S>) -> Self {
        self.args.push(Arg::Mem {
            mem: a.storage(),
            dims: a.dims().to_vec(),
            constant: false,
        });
        self
    }

    /// An array the kernel may write: `global T*` followed by one `nu_idx` per dim.
    pub fn array_mut<T: Stored, S: Shape>(mut self, a: &'a mut NuArray<T, S>) -> Self {
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
    pub fn array_shared<T: Stored, S: Shape>(self, a: NuShared<'a, NuArray<T, S>>) -> Self {
        self.shared(a, true)
    }

    pub(crate) fn shared<T: Stored, S: Shape>(
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
    pub fn constant<T: Stored, S: Shape>(mut self, a: &'a NuArray<T, S>) -> Self {
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
    pub fn local_array<T: Stored>(mut self, count: usize) -> Self {
        // Saturating: a size past usize::MAX is past every device's local memory, which the
        // launch then reports.
        self.args
            .push(Arg::Local(count.saturating_mul(size_of::<T>())));
        self
    }

    /// Runs the kernel and waits for it to complete.
    pub fn run(mut self) -> Result<Timing> {
        let device = match self.device.take() {
            Some(d) => d,
            None => current_device()?,
        };
        if device.form() != Form::Source {
            return Err(Error::Launch {
                kernel: self.kernel.into(),
                device: device.label(),
                reason: "this is an OpenCL C kernel and the device is the native engine; \
                         choose an OpenCL device (NUDA_DEVICE, set_device) or write the kernel \
                         with nuwork!"
                    .into(),
            });
        }
        if self.source.int64_atomics && !device.info().int64_atomics {
            return Err(Error::Launch {
                kernel: self.kernel.into(),
                device: device.label(),
                reason: "the kernel uses atomics on a 64-bit integer array, and the device lacks \
                         the OpenCL extensions cl_khr_int64_base_atomics and \
                         cl_khr_int64_extended_atomics; use an i32 or u32 array, or another \
                         device"
                    .into(),
            });
        }
        let start = Instant::now();
        let geometry = Geometry::new(&self.global, self.local.as_deref(), device.info())?;
        let index = self
            .index_type
            .unwrap_or_else(|| IndexType::for_max(largest_size(&self.args, &geometry)));
        check_index_fits(&self, &geometry, index)?;
        check_memory(device.info(), &device.label(), &self.args)?;
        if geometry.is_empty() {
            return Ok(Timing {
                kernel: Some(Duration::ZERO),
                wall: start.elapsed(),
            });
        }
        // NVIDIA's and AMD's compilers see every program first when NUDA_CUDA_CHECK,
        // NUDA_HIP_CHECK or NUDA_AMDGCN_CHECK ask for it, while the device builds it.
        let (source, kernel) = (self.source, self.kernel);
        let build = || device.backend().prepare(source, index, kernel);
        crate::backend::offline_checks(source, index, kernel, &build)?;
        let mut launch = SourceLaunch {
            source: self.source,
            kernel: self.kernel,
            geometry: &geometry,
            index,
            args: &mut self.args,
        };
        let timing = device.backend().launch(&mut launch)?;
        Ok(Timing {
            wall: start.elapsed(),
            ..timing
        })
    }
}

/// The largest size the kernel will see: picks the index type.
fn largest_size(args: &[Arg<'_>], geo: &Geometry) -> u64 {
    let mut max = geo.global.iter().copied().max().unwrap_or(0) as u64;
    for arg in args {
        let m = match arg {
            Arg::Mem { dims, .. } | Arg::MemMut { dims, .. } | Arg::MemShared { dims, .. } => {
                // A dim reaches the kernel on its own (`dims()`), so it must fit as well as
                // the element count: an empty array may have a dim of 2^33.
                let len = dims.iter().map(|&d| d as u64).product::<u64>();
                len.max(dims.iter().copied().max().unwrap_or(0) as u64)
            }
            Arg::Index(v) => *v,
            // A signed value needs twice its magnitude to fit the signed type.
            Arg::SIndex(v) => v.unsigned_abs().saturating_mul(2),
            _ => 0,
        };
        max = max.max(m);
    }
    max
}

fn check_index_fits(l: &Launch<'_>, geo: &Geometry, index: IndexType) -> Result<()> {
    let need = largest_size(&l.args, geo);
    if IndexType::for_max(need) == IndexType::U64 && index == IndexType::U32 {
        return Err(Error::DimsMismatch {
            what: format!("launch of `{}` with 32-bit indices", l.kernel),
            expected: format!("sizes up to {}", u32::MAX),
            found: format!("a size of {need}; use IndexType::U64"),
        });
    }
    Ok(())
}

/// Constant arrays and local memory within the device's limits.
fn check_memory(info: &DeviceInfo, label: &str, args: &[Arg<'_>]) -> Result<()> {
    let constant: u64 = args
        .iter()
        .map(|a| match a {
            Arg::Mem {
                mem,
                constant: true,
                ..
            } => mem.bytes(),
            _ => 0,
        })
        .sum();
    let local: u64 = args
        .iter()
        .map(|a| if let Arg::Local(b) = a { *b as u64 } else { 0 })
        .sum();
    let over = |what: &str, used: u64, limit: u64| Error::OutOfResources {
        device: label.into(),
        what: format!("passing {what}"),
        detail: format!("they take {used} bytes and the device has {limit}"),
    };
    if constant > info.constant_memory {
        return Err(over("constant arrays", constant, info.constant_memory));
    }
    if local > info.local_memory {
        return Err(over("local memory", local, info.local_memory));
    }
    Ok(())
}
