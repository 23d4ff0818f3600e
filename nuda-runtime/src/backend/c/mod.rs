//! The C every source-form backend starts from (layer 1, shared by the backends beside it;
//! see `../README.md`): nuda's prelude of typedefs, fault record and helpers, the spellings
//! of Rust's semantics per type that the template filler uses, the fault record's layout, and
//! the disk cache of built programs. All of it is OpenCL C, the dialect the macros emit; a
//! backend that compiles another dialect (CUDA) translates this text with its own dialect
//! file. Backends import this folder and never each other.

pub(crate) mod disk_cache;
pub(crate) mod helpers;
pub(crate) mod prelude;
pub(crate) mod record;
pub(crate) mod spell;

/// The C dialect a source-form backend compiles. The prelude and spellings are written once,
/// in OpenCL C; where a dialect needs other text (CUDA's images, pragmas, `offsetof`) the
/// prelude asks this, and the CUDA backend translates the rest (`backend/cuda/dialect.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Dialect {
    /// OpenCL C 1.2.
    OpenCl,
    /// CUDA C++, as NVRTC compiles it.
    Cuda,
}
