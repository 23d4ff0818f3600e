//! nuda: GPU loops for Rust.
//!
//! Mark a loop nest and it runs as an OpenCL kernel on the best device found, or on the
//! native engine (rayon) where there is none. Arrays and images synchronise between host and
//! devices lazily: data moves only when the side that reads it has a stale copy.
//!
//! `use nuda::prelude::*;` brings in everything a program needs.

// The macros name `::nuda`, which inside this crate is this crate.
extern crate self as nuda;

mod ops;

pub use nuda_macros::{annot, nfor, nucall, nucode, nukernel, nulocal, nustruct, nuwork};
pub use nuda_runtime::*;
pub use ops::{ArrayOps, ScanOp};

#[doc(hidden)]
pub use nuda_runtime::private as __private;

/// Everything a nuda program needs, in one import.
pub mod prelude {
    pub use crate::ops::{ArrayOps, ScanOp};
    pub use nuda_macros::{annot, nfor, nucall, nucode, nukernel, nulocal, nustruct, nuwork};
    pub use nuda_runtime::{
        current_device, devices, set_device, with_device, Device, DeviceInfo, DeviceKind, Error,
        IndexType, KernelSource, Launch, NativeLaunch, NuArray1, NuArray2, NuArray3, NuConst,
        NuImage2, NuShared, NuVec, Result, WorkItem,
    };
}
