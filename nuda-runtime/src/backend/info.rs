//! What a device is, whatever backend runs it: the description `nuda::devices()` lists.
//! Layer 0 of the runtime (see `README.md` in this folder): no backend, no registry.

use std::fmt;

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
    /// The backend that runs it: `CUDA`, `OpenCL`, `native`, or a registered provider's
    /// name (the registry sets it). A GPU that two backends see is listed once by each.
    pub backend: &'static str,
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
    /// Whether 64-bit integer atomics work in kernels (OpenCL: `cl_khr_int64_base_atomics`
    /// and `cl_khr_int64_extended_atomics`).
    pub int64_atomics: bool,
    /// Bytes of `let`s (private arrays) one work-item may hold; a launch past it is an
    /// error, where the device would crash or fail (see [`private_limits`]).
    pub private_memory: u64,
    /// Bytes of `let`s a work-group's items may hold together (`u64::MAX`: no such limit).
    pub private_group_memory: u64,
}

/// The private-memory limits of a device of kind `kind`: `(per work-item, per work-group)`.
///
/// - GPUs: 64 KiB per work-item. Private arrays live in registers or spill to a per-thread
///   memory (NVIDIA allows 512 KiB, but reserves it for every resident thread).
/// - OpenCL CPU devices: 256 KiB per work-item and 1 MiB per work-group. PoCL runs a
///   group's items on one worker thread's stack, with copies per item: measured on PoCL 3.1,
///   2 MiB per group ran and 4 MiB crashed, and one item of 1 MiB crashed.
/// - The native engine: 256 KiB per work-item, on rayon's 2 MiB worker stacks, where debug
///   builds keep temporaries of an array beside it.
pub fn private_limits(kind: DeviceKind) -> (u64, u64) {
    match kind {
        DeviceKind::Cpu => (256 << 10, 1 << 20),
        DeviceKind::Native => (256 << 10, u64::MAX),
        DeviceKind::Gpu | DeviceKind::Accelerator => (64 << 10, u64::MAX),
    }
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gib = self.global_memory as f64 / (1u64 << 30) as f64;
        write!(
            f,
            "{}: {} [{}] ({}, {:?}, {}) {} CUs, {gib:.1} GiB, work-group <= {}, fp64 {}, images {}",
            self.index,
            self.name,
            self.backend,
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
