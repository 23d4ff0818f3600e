//! nuda: GPU loops for Rust.
//!
//! Mark a loop nest and it runs as an OpenCL kernel on the best device found, or on the
//! native engine (rayon) where there is none. Arrays and images synchronise between host and
//! devices lazily: data moves only when the side that reads it has a stale copy.
//!
//! ```
//! use nuda::prelude::*;
//!
//! let n = 1 << 16;
//! let a = NuArray1::from_fn(n, |i| i as f32);
//! let mut b = NuArray1::<f32>::new(n);
//! nuwork!(64; nfor!(i in n { b[i] = 2.0 * a[i]; }))?;   // a kernel on the current device
//! assert_eq!(b[3], 6.0);                                 // downloads `b`, once
//! # Ok::<(), nuda::Error>(())
//! ```
//!
//! `use nuda::prelude::*;` brings in everything a program needs. The macros are
//! [`nfor!`], [`nuwork!`], [`annot!`], [`macro@nukernel`] with [`nucall!`], [`macro@nucode`],
//! [`macro@nustruct`] and [`nulocal!`]; the [`guide`] explains devices and engines, arrays
//! and images, the annotations, reductions and scans, filters, lazy synchronisation, shared
//! writes, safety and hand-written kernels, each with examples. The kernel
//! language (every construct, its OpenCL C and native translation, and every diagnostic) is
//! described in `docs/kernel-language.md` in the repository.

// The macros name `::nuda`, which inside this crate is this crate.
extern crate self as nuda;

pub mod guide;
mod ops;

#[doc = include_str!("rustdoc/annot.md")]
pub use nuda_macros::annot;
#[doc = include_str!("rustdoc/nfor.md")]
pub use nuda_macros::nfor;
#[doc = include_str!("rustdoc/nucall.md")]
pub use nuda_macros::nucall;
#[doc = include_str!("rustdoc/nucode.md")]
pub use nuda_macros::nucode;
#[doc = include_str!("rustdoc/nukernel.md")]
pub use nuda_macros::nukernel;
#[doc = include_str!("rustdoc/nulocal.md")]
pub use nuda_macros::nulocal;
#[doc = include_str!("rustdoc/nustruct.md")]
pub use nuda_macros::nustruct;
#[doc = include_str!("rustdoc/nuwork.md")]
pub use nuda_macros::nuwork;
pub use nuda_runtime::*;
pub use ops::{ArrayOps, ScanOp};

#[doc(hidden)]
pub use nuda_runtime::macro_support as __private;

/// Everything a nuda program needs, in one import.
pub mod prelude {
    pub use crate::ops::{ArrayOps, ScanOp};
    pub use crate::{annot, nfor, nucall, nucode, nukernel, nulocal, nustruct, nuwork};
    pub use nuda_runtime::dist::{NuDist1, NuDist2, NuDist3, World};
    pub use nuda_runtime::{
        current_device, devices, set_device, with_device, Device, DeviceInfo, DeviceKind, Error,
        IndexType, KernelSource, Launch, NativeLaunch, NuArray1, NuArray2, NuArray3, NuConst,
        NuImage2, NuShared, NuVec, Result, WorkItem,
    };
}
