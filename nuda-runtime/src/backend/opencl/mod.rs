//! The OpenCL backend (layer 1, see `../README.md`): device enumeration, one context and
//! in-order profiling queue per device, device memory, programs with their two caches, the
//! device-side fault record, and kernel launch. It runs the source form of kernels.
//!
//! OpenCL is reached through `opencl3` with its `dynamic` feature: `libOpenCL.so.1` is loaded
//! at first use, so a machine without it gets the native engine instead of a link error.

pub(crate) mod amdgcn;
mod enumerate;
mod launch;
mod memory;
mod program;
pub(crate) mod record;
mod staging;
pub(crate) mod subgroups;

use super::{
    Backend, Buffer, DeviceInfo, Form, Found, IndexType, KernelSource, Layout, Provider,
    SourceLaunch, Timing,
};
use crate::error::{Error, Result};
use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::Device as RawDevice;
use opencl3::error_codes::{
    CL_INVALID_BUFFER_SIZE, CL_INVALID_IMAGE_SIZE, CL_MEM_OBJECT_ALLOCATION_FAILURE,
    CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_RESOURCES,
};
use program::ProgramCache;
use record::RecordPool;
use std::sync::{Arc, OnceLock};

/// The OpenCL provider, registered in `backend::builtin`.
pub(crate) static OPENCL: OpenCl = OpenCl;

/// Finds the OpenCL devices of every platform.
pub(crate) struct OpenCl;

impl Provider for OpenCl {
    fn name(&self) -> &'static str {
        "OpenCL"
    }

    fn form(&self) -> Form {
        Form::Source
    }

    fn devices(&self) -> std::result::Result<Vec<Found>, String> {
        let found = enumerate::enumerate()?;
        let open = |raw: RawDevice| -> Box<dyn FnOnce(DeviceInfo) -> Arc<dyn Backend> + Send> {
            Box::new(move |info| Arc::new(ClDevice::new(&info, raw)))
        };
        Ok(found
            .into_iter()
            .map(|(info, raw)| Found {
                info,
                open: open(raw),
            })
            .collect())
    }
}

impl Backend for ClDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn form(&self) -> Form {
        Form::Source
    }

    fn alloc(&self, bytes: usize, layout: Layout) -> Result<Box<dyn Buffer>> {
        Ok(Box::new(memory::alloc(self, bytes, layout)?))
    }

    fn upload(&self, buf: &mut dyn Buffer, data: &[u8]) -> Result<()> {
        memory::upload(self, memory::own_mut(buf), data)
    }

    fn download(&self, buf: &dyn Buffer, out: &mut [u8]) -> Result<()> {
        memory::download(self, memory::own(buf), out)
    }

    fn upload_at(&self, buf: &mut dyn Buffer, offset: usize, data: &[u8]) -> Result<()> {
        memory::upload_at(self, memory::own_mut(buf), offset, data)
    }

    fn download_at(&self, buf: &dyn Buffer, offset: usize, out: &mut [u8]) -> Result<()> {
        memory::download_at(self, memory::own(buf), offset, out)
    }

    fn fill_zero(&self, buf: &mut dyn Buffer, bytes: usize) -> Result<()> {
        memory::fill_zero(self, memory::own_mut(buf), bytes)
    }

    fn prepare(&self, source: &KernelSource, index: IndexType, kernel: &str) -> Result<()> {
        self.program(source, index, kernel).map(drop)
    }

    fn launch(&self, launch: &mut SourceLaunch<'_, '_>) -> Result<Timing> {
        launch::enqueue(self, launch)
    }

    fn raw_launch_time(&self, reps: usize) -> Option<Result<std::time::Duration>> {
        Some(launch::raw_launch(self, reps))
    }
}

/// One OpenCL device; its context and queue are made at first use.
pub(crate) struct ClDevice {
    pub index: usize,
    pub label: String,
    pub info: DeviceInfo,
    raw: RawDevice,
    ctx: OnceLock<Result<ClContext>>,
    /// The warp macros the device can take (`subgroups.rs`); `NUDA_CL_SUBGROUPS` chooses
    /// whether its programs do.
    warps: Option<&'static str>,
}

/// A device's context, queue, program cache and spare fault records.
pub(crate) struct ClContext {
    pub context: Context,
    pub queue: CommandQueue,
    pub programs: ProgramCache,
    pub faults: RecordPool,
    /// Pinned slots for large transfers (`staging.rs`), made at first use.
    pub staging: staging::Staging,
}

impl ClDevice {
    pub fn new(info: &DeviceInfo, raw: RawDevice) -> ClDevice {
        let label = format!("device {} ({})", info.index, info.name);
        ClDevice {
            index: info.index,
            label,
            info: info.clone(),
            warps: subgroups::warps(&raw, info),
            raw,
            ctx: OnceLock::new(),
        }
    }

    /// The context and queue, created on first use.
    pub fn context(&self) -> Result<&ClContext> {
        self.ctx
            .get_or_init(|| self.create_context())
            .as_ref()
            .map_err(Clone::clone)
    }

    fn create_context(&self) -> Result<ClContext> {
        let context =
            Context::from_device(&self.raw).map_err(|e| self.error(e.0, "creating a context"))?;
        // SAFETY: the device is the one the context was just created for.
        let queue =
            unsafe { CommandQueue::create(&context, self.raw.id(), CL_QUEUE_PROFILING_ENABLE) }
                .map_err(|e| self.error(e.0, "creating a command queue"))?;
        Ok(ClContext {
            context,
            queue,
            programs: ProgramCache::default(),
            faults: RecordPool::default(),
            staging: staging::Staging::default(),
        })
    }

    /// Maps an OpenCL error code to `nuda::Error`, resource exhaustion to `OutOfResources`.
    pub fn error(&self, code: i32, during: &str) -> Error {
        cl_error(code, during, &self.label)
    }
}

/// Whether a device of `kind` takes the paths meant for GPUs by default (`GpuScope::Auto`).
pub(crate) fn gpu_like(kind: crate::backend::DeviceKind) -> bool {
    use crate::backend::DeviceKind::{Accelerator, Gpu};
    matches!(kind, Gpu | Accelerator)
}

/// The OpenCL error code's name, such as `CL_OUT_OF_RESOURCES`.
pub(crate) fn code_name(code: i32) -> &'static str {
    opencl3::error_codes::error_text(code)
}

/// Maps an OpenCL error code to `nuda::Error`, resource exhaustion to `OutOfResources`.
pub(crate) fn cl_error(code: i32, during: &str, device: &str) -> Error {
    match code {
        CL_OUT_OF_RESOURCES
        | CL_MEM_OBJECT_ALLOCATION_FAILURE
        | CL_OUT_OF_HOST_MEMORY
        | CL_INVALID_BUFFER_SIZE
        | CL_INVALID_IMAGE_SIZE => Error::OutOfResources {
            device: device.into(),
            what: during.into(),
            detail: format!("the driver answered {} ({code})", code_name(code)),
        },
        _ => Error::Backend {
            backend: "OpenCL".into(),
            during: during.into(),
            device: device.into(),
            status: code,
            status_name: code_name(code).into(),
        },
    }
}

#[cfg(test)]
mod test {
    use super::cl_error;
    use crate::error::Error;

    /// Resource exhaustion says so; any other status is a backend error naming the code.
    #[test]
    fn status_codes_map_to_neutral_errors() {
        let e = cl_error(-5, "running", "device 0 (x)");
        assert!(matches!(e, Error::OutOfResources { .. }), "{e}");
        assert!(e.to_string().contains("CL_OUT_OF_RESOURCES"), "{e}");
        let e = cl_error(-48, "launching", "device 0 (x)");
        let Error::Backend {
            backend,
            status,
            status_name,
            ..
        } = &e
        else {
            panic!("not a backend error: {e}");
        };
        assert_eq!((backend.as_str(), *status), ("OpenCL", -48));
        assert_eq!(status_name, "CL_INVALID_KERNEL");
    }
}
