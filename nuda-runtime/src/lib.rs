//! nuda's runtime: devices and engines, lazily synchronised arrays and images, the program
//! cache, the launch path, and the native engine.
//!
//! Most users reach this crate through the `nuda` facade and its macros. Hand-written OpenCL C
//! kernels can use it directly: wrap the source in a [`KernelSource`] and start a [`Launch`].

pub mod array;
mod config;
pub mod device;
mod element;
mod error;
mod fault;
pub mod image;
pub mod launch;
mod memory;
pub mod native;
mod nudevs;
mod opencl;
#[doc(hidden)]
pub mod private;
mod stats;

pub use array::{NuArray, NuArray1, NuArray2, NuArray3, NuConst, NuShared, Shape};
pub use config::{DeviceChoice, EngineChoice};
pub use device::{
    current_device, device, devices, init, set_device, with_device, Device, DeviceInfo, DeviceKind,
};
pub use element::{Element, Pod, Texel};
pub use error::{Error, KernelFault, Result};
pub use image::NuImage2;
pub use launch::{Geometry, IndexType, KernelSource, Launch, Timing};
pub use native::{
    ArrayView, ArrayViewMut, GroupBarrier, ImageView, ImageViewMut, NativeLaunch, WorkItem,
};
pub use nudevs::nudevs;
pub use stats::{stats, thread_stats, Counts, Stats, Transfers};

/// The contract of `#[unchecked]` in `nuwork!` and `nucall!`, which call this function so that
/// rustc asks for an `unsafe` block around them. It does nothing itself.
///
/// Without `#[unchecked]`, every array index and image write coordinate a kernel evaluates is
/// checked against the dims where a launch-time proof cannot show it in range, and an
/// out-of-range access touches no memory and makes the launch return [`Error::Kernel`].
/// With it, the bounds checks are left out on OpenCL devices (the native engine keeps them,
/// as they cost it little and cannot be unsound).
///
/// # Safety
///
/// The caller promises that every array index and every image write coordinate the kernel
/// evaluates is within the dims of its array or image. An access outside them reads or writes
/// device memory that belongs to something else: undefined behaviour, which on OpenCL devices
/// may corrupt other arrays, the driver's state or the host process. Division by zero and
/// zero loop steps are still checked.
pub unsafe fn skip_bounds_checks() {}
