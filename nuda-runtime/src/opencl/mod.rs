//! The OpenCL engine: device enumeration, one context and in-order profiling queue per device,
//! device memory, programs with their two caches, and kernel launch.
//!
//! OpenCL is reached through `opencl3` with its `dynamic` feature: `libOpenCL.so.1` is loaded
//! at first use, so a machine without it gets the native engine instead of a link error.

mod disk_cache;
mod enumerate;
pub(crate) mod launch;
pub(crate) mod memory;
mod program;

pub(crate) use enumerate::enumerate;

use crate::device::DeviceInfo;
use crate::error::{Error, Result};
use crate::fault::RecordPool;
use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::Device as RawDevice;
use opencl3::error_codes::{
    CL_INVALID_BUFFER_SIZE, CL_INVALID_IMAGE_SIZE, CL_MEM_OBJECT_ALLOCATION_FAILURE,
    CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_RESOURCES,
};
use program::ProgramCache;
use std::sync::OnceLock;

/// One OpenCL device; its context and queue are made at first use.
pub(crate) struct ClDevice {
    pub index: usize,
    pub label: String,
    pub info: DeviceInfo,
    raw: RawDevice,
    ctx: OnceLock<Result<ClContext>>,
}

/// A device's context, queue, program cache and spare fault records.
pub(crate) struct ClContext {
    pub context: Context,
    pub queue: CommandQueue,
    pub programs: ProgramCache,
    pub faults: RecordPool,
}

impl ClDevice {
    pub fn new(info: &DeviceInfo, raw: RawDevice) -> ClDevice {
        let label = format!("device {} ({})", info.index, info.name);
        ClDevice {
            index: info.index,
            label,
            info: info.clone(),
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
        })
    }

    /// Maps an OpenCL error code to `nuda::Error`, resource exhaustion to `OutOfResources`.
    pub fn error(&self, code: i32, during: &str) -> Error {
        cl_error(code, during, &self.label)
    }
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
            detail: format!("the driver answered {} ({code})", Error::cl_code_name(code)),
        },
        _ => Error::OpenCl {
            during: during.into(),
            device: device.into(),
            code,
        },
    }
}
