//! The CUDA driver API as the backend uses it (layer 1, the CUDA backend): whether libcuda is
//! there at all, driver errors as `nuda::Error`, each device's primary context, and the
//! description of each device as a `DeviceInfo`.

use crate::backend::{DeviceInfo, DeviceKind};
use crate::error::Error;
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

/// Why there is no CUDA device, or `Ok` when the driver library loads.
pub(crate) fn loaded() -> Result<(), String> {
    // SAFETY: only tries to open the library; no symbol is called.
    if unsafe { sys::is_culib_present() } {
        return Ok(());
    }
    Err(
        "no CUDA driver (libcuda.so.1) was found; install NVIDIA's driver, or choose \
         NUDA_ENGINE=opencl or native"
            .into(),
    )
}

/// A driver failure as `nuda::Error`: running out of memory is `OutOfResources`.
pub(crate) fn error(e: DriverError, during: &str, device: &str) -> Error {
    let name = e.error_name().map_or_else(
        |_| format!("{:?}", e.0),
        |n| n.to_string_lossy().into_owned(),
    );
    match e.0 {
        sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => Error::OutOfResources {
            device: device.into(),
            what: during.into(),
            detail: name,
        },
        code => Error::Backend {
            backend: "CUDA".into(),
            during: during.into(),
            device: device.into(),
            status: code as i32,
            status_name: name,
        },
    }
}

/// Every CUDA device, described; or why there is none.
pub(crate) fn enumerate() -> Result<Vec<(DeviceInfo, sys::CUdevice)>, String> {
    loaded()?;
    result::init().map_err(|e| format!("the CUDA driver did not start ({e:?})"))?;
    let count =
        result::device::get_count().map_err(|e| format!("cuDeviceGetCount failed ({e:?})"))?;
    if count == 0 {
        return Err("the CUDA driver sees no GPU".into());
    }
    let version = driver_version();
    (0..count)
        .map(|k| {
            let dev =
                result::device::get(k).map_err(|e| format!("cuDeviceGet({k}) failed ({e:?})"))?;
            Ok((
                describe(dev, &version)
                    .map_err(|e| format!("describing CUDA device {k} ({e:?})"))?,
                dev,
            ))
        })
        .collect()
}

/// The driver's version, as `cuda-12.4`.
fn driver_version() -> String {
    let mut v = 0;
    // SAFETY: the library is loaded and initialised; `v` is a live integer.
    let r = unsafe { sys::cuDriverGetVersion(&mut v) };
    match r {
        sys::CUresult::CUDA_SUCCESS => format!("cuda-{}.{}", v / 1000, v % 1000 / 10),
        _ => "cuda-unknown".into(),
    }
}

/// An attribute of `dev`.
pub(crate) fn attribute(
    dev: sys::CUdevice,
    a: sys::CUdevice_attribute,
) -> Result<i32, DriverError> {
    // SAFETY: `dev` came from cuDeviceGet.
    unsafe { result::device::get_attribute(dev, a) }
}

fn describe(dev: sys::CUdevice, version: &str) -> Result<DeviceInfo, DriverError> {
    use sys::CUdevice_attribute as A;
    let at = |a| attribute(dev, a).map(|v| v.max(0) as u64);
    // SAFETY: `dev` came from cuDeviceGet.
    let memory = unsafe { result::device::total_mem(dev) }? as u64;
    let (major, minor) = (
        at(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        at(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    let dims = [
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
    ];
    let (private_memory, private_group_memory) = crate::backend::private_limits(DeviceKind::Gpu);
    Ok(DeviceInfo {
        index: 0,
        backend: "CUDA",
        name: result::device::get_name(dev)?,
        vendor: "NVIDIA Corporation".into(),
        kind: DeviceKind::Gpu,
        platform: format!("CUDA sm_{major}{minor}"),
        driver_version: version.into(),
        compute_units: at(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        global_memory: memory,
        max_alloc: memory,
        // Past 48 KiB, local memory is dynamic shared memory (`nulocal!` arrays always,
        // `stage` tiles through `shared.rs`), which a launch opts in to (`launch.rs`).
        local_memory: at(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
        constant_memory: at(A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY)?,
        max_work_group_size: at(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as usize,
        max_work_item_sizes: dims
            .iter()
            .map(|&d| at(d).map(|v| v as usize))
            .collect::<Result<_, _>>()?,
        fp64: true,
        images: true,
        int64_atomics: true,
        private_memory,
        private_group_memory,
    })
}

/// The architecture NVRTC compiles for on `dev`, as `sm_90`.
pub(crate) fn architecture(info: &DeviceInfo) -> String {
    info.platform.trim_start_matches("CUDA ").to_string()
}

/// A device's primary context, retained for the process and made current on a thread
/// before each use.
pub(crate) struct Context(sys::CUcontext);

// SAFETY: a CUDA context may be made current on any thread; the driver serialises its use.
unsafe impl Send for Context {}
// SAFETY: as above.
unsafe impl Sync for Context {}

impl Context {
    /// Retains `dev`'s primary context.
    pub fn primary(dev: sys::CUdevice) -> Result<Context, DriverError> {
        // SAFETY: `dev` came from cuDeviceGet; the context is never released (the process
        // keeps its devices open until it exits).
        unsafe { result::primary_ctx::retain(dev) }.map(Context)
    }

    /// No context: a device whose context could not be retained, which never enters it.
    pub fn none() -> Context {
        Context(std::ptr::null_mut())
    }

    /// Makes the context current on this thread.
    pub fn enter(&self) -> Result<(), DriverError> {
        // SAFETY: the context was retained and is never released.
        unsafe { result::ctx::set_current(self.0) }
    }
}
