//! The CUDA backend (layer 1, see `../README.md`): NVIDIA GPUs through the driver API, with
//! programs compiled by NVRTC from the CUDA dialect of nuda's C (`dialect.rs`), and the
//! NVRTC compile-check mode (`NUDA_CUDA_CHECK`) that runs with no GPU at all.
//!
//! Both libraries are loaded at run time through cudarc's `dynamic-loading`: a machine
//! without them builds and runs nuda, and lists no CUDA device.

pub(crate) mod check;
pub(crate) mod dialect;
mod nvrtc;
mod program;
