//! nuda's ABI: the vocabulary the compiler (`nuda-transforms`, run inside rustc by the
//! macros) and the runtime (`nuda-runtime`) share. Everything here is written once and read by
//! both sides, so the generated code and the runtime that interprets it cannot drift apart:
//!
//! - [`scalar`]: the one table of scalar types (Rust name, C names, width, sign, limits) and
//!   [`for_each_scalar!`](crate::for_each_scalar), from which each side generates its per-type tables and impls;
//! - [`site`]: what a check site checks;
//! - [`reduce`]: the reduction operators;
//! - [`proof`]: the operators of the launch-time proof's programs;
//! - [`placeholder`]: the kernel-template placeholder format, with its one writer and one
//!   reader;
//! - [`dialect`]: the dialect marks, the constructs of generated C whose spelling differs
//!   between OpenCL C, CUDA C++ and HIP C++, with their one writer and reader.
//!
//! Layer: below both crates; it depends on nothing.

pub mod dialect;
pub mod placeholder;
pub mod proof;
pub mod reduce;
pub mod scalar;
pub mod site;

pub use proof::Bin;
pub use reduce::RedOp;
pub use scalar::{Scalar, ScalarInfo, SCALARS};
pub use site::SiteKind;
