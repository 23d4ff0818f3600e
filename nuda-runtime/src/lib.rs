//! nuda's runtime: devices and backends, lazily synchronised arrays and images, the program
//! cache, the launch path, and the native engine.
//!
//! Most users reach this crate through the `nuda` facade and its macros. Hand-written OpenCL C
//! kernels can use it directly: wrap the source in a [`KernelSource`] and start a [`Launch`].
//!
//! The modules form layers, each using only those of its own layer or below, and no two
//! modules use each other; `backend/README.md` draws them, and `tests/layers.rs` checks every
//! import against this list:
//! 0. neutral types: `error`, `element`, `atomic`, `shape`, `config`, `stats`, `fault`, and
//!    `backend`'s interface and neutral types (`Provider`, `Backend`, `DeviceInfo`, `Layout`,
//!    `Geometry`, ..); the vocabulary shared with the macros is the `nuda-abi` crate, below all;
//! 1. backends: `backend::cuda`, `backend::hip`, `backend::opencl`, `backend::native`, sharing
//!    `backend::c`;
//! 2. the device registry, which lists the built-in backends: `device`, `nudevs`;
//! 3. lazily synchronised memory: `memory`;
//! 4. arrays and images: `array`, `image`;
//! 5. launches and what kernels do with values: `launch`, `kernel`, `reduce`, `tune`; and
//!    `dist`, arrays and launches over MPI ranks;
//! 6. the macros' support: `macro_support` (the facade names it `nuda::__private`).
//!
//! Storage and kernel use are apart: arrays hold [`Stored`] types (layer 0); [`Value`] and
//! [`Element`], which add the kernel traits, live with them in `kernel` (layer 5), and so does
//! `Reduce`, which `reduce/` (launching reductions) uses.

pub mod array;
mod atomic;
pub mod backend;
mod config;
pub mod device;
pub mod dist;
mod element;
mod error;
mod fault;
pub mod image;
pub mod kernel;
pub mod lab;
pub mod launch;
#[doc(hidden)]
pub mod macro_support;
mod memory;
mod nudevs;
mod reduce;
mod shape;
mod stats;
mod tune;

pub use array::{NuArray, NuArray1, NuArray2, NuArray3, NuConst, NuShared, NuVec, Shape};
pub use atomic::{Atomic, AtomicBits, AtomicOp};
pub use backend::native;
pub use config::{DeviceChoice, EngineChoice};
pub use device::{
    current_device, device, devices, init, set_device, with_device, Device, DeviceInfo, DeviceKind,
};
pub use element::{Pod, Stored, Texel};
pub use error::{Compiler, Error, KernelFault, OutOfBounds, OutsideRows, Result};
pub use fault::{skip_bounds_checks, unchecked};
pub use image::NuImage2;
pub use kernel::{Element, Value};
pub use launch::{Geometry, IndexType, KernelSource, Launch, NativeLaunch, Timing};
pub use native::{ArrayView, ArrayViewMut, GroupBarrier, ImageView, ImageViewMut, WorkItem};
pub use nudevs::nudevs;
pub use stats::{stats, thread_stats, Counts, Stats, Transfers};
pub use tune::{
    last_tuned, take_learned as take_tune_seeds, with_tune_mode, Seed as TuneSeed, TuneMode,
};
