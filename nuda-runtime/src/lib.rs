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
pub mod kernel;
pub mod launch;
mod memory;
pub mod native;
mod nudevs;
mod opencl;
#[doc(hidden)]
pub mod private;
mod proof;
mod stats;

pub use array::{NuArray, NuArray1, NuArray2, NuArray3, NuConst, NuShared, Shape};
pub use config::{DeviceChoice, EngineChoice};
pub use device::{
    current_device, device, devices, init, set_device, with_device, Device, DeviceInfo, DeviceKind,
};
pub use element::{Element, Pod, Texel};
pub use error::{Error, KernelFault, OutOfBounds, Result};
pub use fault::{skip_bounds_checks, unchecked};
pub use image::NuImage2;
pub use launch::{Geometry, IndexType, KernelSource, Launch, Timing};
pub use native::{
    ArrayView, ArrayViewMut, GroupBarrier, ImageView, ImageViewMut, NativeLaunch, WorkItem,
};
pub use nudevs::nudevs;
pub use stats::{stats, thread_stats, Counts, Stats, Transfers};
