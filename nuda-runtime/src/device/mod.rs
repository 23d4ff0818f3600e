//! Devices and engines: what `nuda::devices()` lists, the process-wide registry, and the
//! per-thread current device.
//!
//! The list holds the OpenCL devices, GPUs first, then CPUs, then the rest, and the native
//! engine last. `NUDA_ENGINE=opencl` drops the native engine; `NUDA_ENGINE=native` keeps only
//! it. Index 0 is thus the default device: the first GPU, else the first CPU, else native.

mod current;
mod select;
#[cfg(test)]
pub(crate) mod test;

pub(crate) use current::{cl_device, native_device, runtime};
pub use current::{current_device, device, devices, init, set_device, with_device};
pub(crate) use select::kind_rank;

use crate::opencl::ClDevice;
use std::fmt;
use std::sync::Arc;

/// What kind of device this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// An OpenCL GPU.
    Gpu,
    /// An OpenCL CPU device (PoCL, Intel, AMD CPU runtimes).
    Cpu,
    /// An OpenCL accelerator or custom device.
    Accelerator,
    /// nuda's native engine: Rust closures on rayon, no OpenCL.
    Native,
}

/// One device, as `nuda::devices()` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Index in `nuda::devices()`, the number `set_device` and `nucall!` take.
    pub index: usize,
    /// Device name.
    pub name: String,
    /// Vendor name.
    pub vendor: String,
    /// GPU, CPU, accelerator or native.
    pub kind: DeviceKind,
    /// OpenCL platform name (`native` for the native engine).
    pub platform: String,
    /// Driver version: part of the disk cache key.
    pub driver_version: String,
    /// Compute units (native: rayon threads).
    pub compute_units: u32,
    /// Global memory in bytes.
    pub global_memory: u64,
    /// Largest single allocation in bytes.
    pub max_alloc: u64,
    /// Local memory per work-group in bytes.
    pub local_memory: u64,
    /// Constant memory in bytes.
    pub constant_memory: u64,
    /// Largest work-group.
    pub max_work_group_size: usize,
    /// Largest work-group extent per dimension.
    pub max_work_item_sizes: Vec<usize>,
    /// Whether `double` works in kernels.
    pub fp64: bool,
    /// Whether images work in kernels.
    pub images: bool,
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gib = self.global_memory as f64 / (1u64 << 30) as f64;
        write!(
            f,
            "{}: {} ({}, {:?}, {}) {} CUs, {gib:.1} GiB, work-group <= {}, fp64 {}, images {}",
            self.index,
            self.name,
            self.vendor,
            self.kind,
            self.platform,
            self.compute_units,
            self.max_work_group_size,
            yes_no(self.fp64),
            yes_no(self.images),
        )
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// A handle on one device: cheap to clone, valid for the whole process.
#[derive(Clone)]
pub struct Device(Arc<DeviceInner>);

struct DeviceInner {
    info: DeviceInfo,
    cl: Option<ClDevice>,
}

impl Device {
    pub(crate) fn opencl(info: DeviceInfo, cl: ClDevice) -> Device {
        Device(Arc::new(DeviceInner { info, cl: Some(cl) }))
    }

    pub(crate) fn native(index: usize) -> Device {
        Device(Arc::new(DeviceInner {
            info: native_info(index),
            cl: None,
        }))
    }

    /// What `nuda::devices()` says about this device.
    pub fn info(&self) -> &DeviceInfo {
        &self.0.info
    }

    /// The device's index in `nuda::devices()`.
    pub fn index(&self) -> usize {
        self.0.info.index
    }

    /// Whether this is the native engine rather than an OpenCL device.
    pub fn is_native(&self) -> bool {
        self.0.cl.is_none()
    }

    pub(crate) fn cl(&self) -> Option<&ClDevice> {
        self.0.cl.as_ref()
    }

    /// A short name for messages: `device 0 (name)`.
    pub fn label(&self) -> String {
        format!("device {} ({})", self.index(), self.0.info.name)
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({})", self.label())
    }
}

pub(crate) fn native_info(index: usize) -> DeviceInfo {
    let threads = rayon::current_num_threads();
    DeviceInfo {
        index,
        name: format!("native engine (rayon, {threads} threads)"),
        vendor: "nuda".into(),
        kind: DeviceKind::Native,
        platform: "native".into(),
        driver_version: env!("CARGO_PKG_VERSION").into(),
        compute_units: threads as u32,
        global_memory: host_memory(),
        max_alloc: host_memory(),
        local_memory: 1 << 20,
        constant_memory: host_memory(),
        max_work_group_size: 4096,
        max_work_item_sizes: vec![4096; 3],
        fp64: true,
        images: true,
    }
}

/// Total host memory from `/proc/meminfo`, or 0 where that does not exist.
fn host_memory() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib = text
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        });
    kib.unwrap_or(0) * 1024
}
