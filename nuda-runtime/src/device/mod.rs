//! Devices: what `nuda::devices()` lists, the process-wide registry, and the per-thread
//! current device. Layer 2 of the runtime (see `backend/README.md`): it asks every backend's
//! provider for devices and hands each caller a [`Device`], a backend behind one handle.
//!
//! The list holds every backend's devices, GPUs first, then CPUs, then the rest, and the
//! native engine last. `NUDA_ENGINE=opencl` drops the native engine; `NUDA_ENGINE=native` keeps only
//! it. Index 0 is thus the default device: the first GPU, else the first CPU, else native.

mod current;
mod select;
#[cfg(test)]
pub(crate) mod test;

pub use crate::backend::{DeviceInfo, DeviceKind};
pub(crate) use current::{backend, native_device};
pub use current::{current_device, device, devices, init, register, set_device, with_device};

use crate::backend::{Backend, Form};
use std::fmt;
use std::sync::Arc;

/// A handle on one device: cheap to clone, valid for the whole process.
#[derive(Clone)]
pub struct Device(Arc<dyn Backend>);

impl Device {
    pub(crate) fn new(backend: Arc<dyn Backend>) -> Device {
        Device(backend)
    }

    /// What `nuda::devices()` says about this device.
    pub fn info(&self) -> &DeviceInfo {
        self.0.info()
    }

    /// The device's index in `nuda::devices()`.
    pub fn index(&self) -> usize {
        self.info().index
    }

    /// The form of a kernel this device runs: the macros' one dispatch entry asks it.
    pub fn form(&self) -> Form {
        self.0.form()
    }

    /// Whether this device runs kernels' native form on host memory (the native engine),
    /// rather than source built by a driver.
    pub fn is_native(&self) -> bool {
        self.form() == Form::Native
    }

    /// The backend behind this device.
    pub fn backend(&self) -> &dyn Backend {
        &*self.0
    }

    /// A short name for messages: `device 0 (name)`.
    pub fn label(&self) -> String {
        format!("device {} ({})", self.index(), self.info().name)
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({})", self.label())
    }
}
