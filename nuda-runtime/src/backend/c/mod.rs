//! The C every source-form backend starts from (layer 1, shared by the backends beside it;
//! see `../README.md`): nuda's prelude of typedefs, fault record and helpers, the spellings
//! of Rust's semantics per type that the template filler uses, the fault record's layout, and
//! the disk cache of built programs; the dialect seam (`dialect.rs`: how each dialect fills
//! the marks the macros write, `marker.rs`: the same marks found in hand-written OpenCL C),
//! and what the C++ dialects share (`cxx.rs` and its header). The prelude is OpenCL C with a
//! few parts per dialect. Backends import this folder and never each other.

pub(crate) mod amd_lab;
pub(crate) mod amdgpu;
pub(crate) mod amdgpu_flight;
pub(crate) mod cxx;
pub(crate) mod cxx_launch;
pub(crate) mod dialect;
pub(crate) mod disk_cache;
pub(crate) mod helpers;
pub(crate) mod marker;
pub(crate) mod passed;
pub(crate) mod pipeline;
pub(crate) mod prelude;
pub(crate) mod record;
pub(crate) mod spell;
