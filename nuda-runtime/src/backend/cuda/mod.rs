//! The CUDA backend (layer 1, see `../README.md`): NVIDIA GPUs through the driver API, with
//! programs compiled by NVRTC from the CUDA dialect of nuda's C (`dialect.rs`), and the
//! NVRTC compile-check mode (`NUDA_CUDA_CHECK`, `check.rs`) that needs no GPU at all.
//!
//! Both libraries are loaded at run time through cudarc's `dynamic-loading`: a machine
//! without them builds and runs nuda, and lists no CUDA device; `NUDA_ENGINE=cuda` there is
//! an error that says no CUDA driver was found.

pub(crate) mod check;
pub(crate) mod dialect;
mod driver;
mod flight;
pub mod lab;
mod launch;
mod memory;
mod nvrtc;
mod pins;
mod program;
pub mod sass;
mod slots;
mod transfer;

use super::{Backend, Buffer, DeviceInfo, Form, Found, Layout, Provider, SourceLaunch, Timing};
use crate::error::Result;
use crate::stats::{record, Event};
use cudarc::driver::sys;
use driver::{error, Context};
use memory::Staging;
use std::sync::Arc;

/// The CUDA provider, registered in `backend::builtin`.
pub(crate) static CUDA: Cuda = Cuda;

/// Finds the GPUs the CUDA driver sees.
pub(crate) struct Cuda;

impl Provider for Cuda {
    fn name(&self) -> &'static str {
        "CUDA"
    }

    fn form(&self) -> Form {
        Form::Source
    }

    fn devices(&self) -> std::result::Result<Vec<Found>, String> {
        let found = driver::enumerate()?;
        Ok(found
            .into_iter()
            .map(|(info, dev)| Found {
                info,
                open: Box::new(move |info| -> Arc<dyn Backend> {
                    Arc::new(CuDevice::open(info, dev))
                }),
            })
            .collect())
    }
}

/// One CUDA GPU: its primary context, memory bookkeeping and loaded programs.
pub(crate) struct CuDevice {
    info: DeviceInfo,
    label: String,
    /// `None` when the primary context could not be retained; every call then says why.
    ctx: Arc<Context>,
    ctx_error: Option<crate::error::Error>,
    staging: Staging,
    modules: program::Modules,
    /// Launches' fault records and events, reused (`slots.rs`).
    slots: slots::Slots,
}

// SAFETY: the raw pointers inside (the pinned staging buffer, modules) are used only under
// their mutexes or with the device's context current, which the driver serialises.
unsafe impl Send for CuDevice {}
// SAFETY: as above.
unsafe impl Sync for CuDevice {}

impl CuDevice {
    fn open(info: DeviceInfo, dev: sys::CUdevice) -> CuDevice {
        let label = format!("device {} ({})", info.index, info.name);
        let (ctx, ctx_error) = match Context::primary(dev) {
            Ok(c) => (Arc::new(c), None),
            Err(e) => (
                Arc::new(Context::none()),
                Some(error(e, "opening the device", &label)),
            ),
        };
        CuDevice {
            info,
            label,
            ctx,
            ctx_error,
            staging: Staging::default(),
            modules: program::Modules::default(),
            slots: slots::Slots::default(),
        }
    }

    /// Makes the device's context current on this thread.
    fn enter(&self) -> Result<()> {
        if let Some(e) = &self.ctx_error {
            return Err(e.clone());
        }
        self.ctx
            .enter()
            .map_err(|e| error(e, "making the device current", &self.label))
    }
}

impl Backend for CuDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn form(&self) -> Form {
        Form::Source
    }

    fn alloc(&self, bytes: usize, layout: Layout) -> Result<Box<dyn Buffer>> {
        self.allocate(bytes, layout)
    }

    fn upload(&self, buf: &mut dyn Buffer, data: &[u8]) -> Result<()> {
        self.write(buf, data)?;
        // Counted as OpenCL's transfers are, so `nuda::stats()` proves lazy sync here too.
        record(Some(self.info.index), Event::ToDevice(data.len() as u64));
        Ok(())
    }

    fn download(&self, buf: &dyn Buffer, out: &mut [u8]) -> Result<()> {
        self.read(buf, out)?;
        record(Some(self.info.index), Event::ToHost(out.len() as u64));
        Ok(())
    }

    fn upload_at(&self, buf: &mut dyn Buffer, offset: usize, data: &[u8]) -> Result<()> {
        self.write_at(buf, offset, data)
    }

    fn download_at(&self, buf: &dyn Buffer, offset: usize, out: &mut [u8]) -> Result<()> {
        self.read_at(buf, offset, out)
    }

    fn fill_zero(&self, buf: &mut dyn Buffer, bytes: usize) -> Result<()> {
        self.zero(buf, bytes)
    }

    fn launch(&self, launch: &mut SourceLaunch<'_, '_>) -> Result<Timing> {
        launch::run(self, launch)
    }

    unsafe fn pin_host(&self, ptr: *mut u8, bytes: usize) -> Option<Box<dyn super::HostPin>> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.pin(ptr, bytes) }
    }

    fn pins_host(&self) -> bool {
        self.pins()
    }

    fn raw_transfer_rates(&self, bytes: usize, reps: usize) -> Option<Result<(f64, f64)>> {
        Some(self.raw_rates(bytes, reps))
    }

    fn raw_pin_rate(&self, bytes: usize, reps: usize) -> Option<Result<f64>> {
        Some(self.pin_rate(bytes, reps))
    }

    fn raw_launch_time(&self, reps: usize) -> Option<Result<std::time::Duration>> {
        Some(self.raw_launch(reps))
    }
}
