//! nuda's compiler, an ordinary library testable without rustc: Rust loop nests become a
//! loop-nest IR, then capture analysis, the annotation chain, and OpenCL C plus native Rust.
//!
//! The pipeline, one module per phase:
//! `syntax` (parse and lower) → `ir` → `capture` (what a kernel uses from outside) →
//! `annot` (the annotation chain) → `emit` (OpenCL C templates, native Rust, host Rust, and
//! the glue that launches them) and `proof` (the launch-time proof program that drops the
//! checks a launch's values rule out and picks 32-bit `usize` where it changes nothing).
//! `uniform` checks that every work-item of a group reaches each `barrier()`.

pub mod annot;
pub mod capture;
pub mod ctxt;
pub mod disjoint;
pub mod emit;
pub mod ir;
pub mod nfor;
pub mod nucall;
pub mod nucode;
pub mod nukernel;
pub mod nuwork;
pub mod proof;
pub mod syntax;
pub mod uniform;
