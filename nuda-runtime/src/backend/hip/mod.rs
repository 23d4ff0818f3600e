//! The HIP backend (layer 1, see `../README.md`): AMD GPUs through ROCm's HIP runtime
//! (`libamdhip64`), with programs compiled by hiprtc from the HIP dialect of nuda's C
//! (`dialect.rs`), and the hiprtc compile-check mode (`NUDA_HIP_CHECK`, `check.rs`) that
//! needs no GPU at all.
//!
//! Both are loaded at run time with `libloading`: a machine without ROCm builds and runs
//! nuda and lists no HIP device; `NUDA_ENGINE=hip` there is an error that names HIP and what
//! is missing. No AMD GPU has run this backend yet: it is written from ROCm's API and
//! checked by compiling every kernel with hiprtc, not by running one.

pub(crate) mod check;
pub(crate) mod dialect;
pub(crate) mod hiprtc;
mod image;
mod launch;
mod memory;
mod pins;
mod program;
mod runtime;

use super::{Backend, Buffer, DeviceInfo, Form, Found, Layout, Provider, SourceLaunch, Timing};
use crate::error::{Error, Result};
use crate::stats::{record, Event};
use runtime::{check as status, Api};
use std::sync::{Arc, Mutex};

/// The HIP provider, registered in `backend::builtin`.
pub(crate) static HIP: Hip = Hip;

/// Finds the AMD GPUs the HIP runtime sees.
pub(crate) struct Hip;

impl Provider for Hip {
    fn name(&self) -> &'static str {
        "HIP"
    }

    fn form(&self) -> Form {
        Form::Source
    }

    fn devices(&self) -> std::result::Result<Vec<Found>, String> {
        Ok(runtime::enumerate()?
            .into_iter()
            .map(|(info, ordinal)| Found {
                info,
                open: Box::new(move |info| -> Arc<dyn Backend> {
                    Arc::new(HipDevice::open(info, ordinal))
                }),
            })
            .collect())
    }
}

/// One AMD GPU: its HIP ordinal, loaded programs, and its launches' fault record.
pub(crate) struct HipDevice {
    info: DeviceInfo,
    label: String,
    ordinal: i32,
    modules: program::Modules,
    slot: Mutex<Option<launch::Slot>>,
}

impl HipDevice {
    fn open(info: DeviceInfo, ordinal: i32) -> HipDevice {
        HipDevice {
            label: format!("device {} ({})", info.index, info.name),
            info,
            ordinal,
            modules: program::Modules::default(),
            slot: Mutex::default(),
        }
    }

    /// Makes the device current on this thread; the runtime's calls.
    fn enter(&self) -> Result<&'static Api> {
        let api = runtime::api().map_err(|why| Error::NoDevice { reason: why })?;
        // SAFETY: the ordinal is below the device count the runtime reported.
        let s = unsafe { (api.set_device)(self.ordinal) };
        status(api, s, "making the device current", &self.label)?;
        Ok(api)
    }
}

impl Backend for HipDevice {
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
}
