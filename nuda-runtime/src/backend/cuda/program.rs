//! CUDA programs (layer 1, the CUDA backend): a program's text in the CUDA dialect, NVRTC's
//! options, and the CUBIN built for a device's architecture, kept in memory per (program,
//! index type) and on disk keyed by the text, the architecture, NVRTC's and the driver's
//! versions.

use super::{dialect, nvrtc};
use crate::backend::c::prelude::Prelude;
use crate::backend::c::Dialect;
use crate::backend::{IndexType, KernelSource};

/// The whole program in CUDA C++: nuda's prelude (its CUDA parts) and the source, through
/// the dialect.
pub(crate) fn cuda_text(source: &KernelSource, index: IndexType) -> String {
    let prelude = Prelude {
        index,
        images: true,
        cpu: false,
        dialect: Dialect::Cuda,
    };
    let (text, _fp64) = prelude.for_source(source.source);
    dialect::translate(&(text + source.source))
}

/// NVRTC's options for `arch` (`sm_90` builds CUBIN, `compute_90` PTX): the prelude's
/// helpers are device functions by default, and no `a * b + c` is fused, as Rust never does.
/// Two warnings are off, as clang's defaults have them off for OpenCL C: a variable never
/// read (177) or set and never read (550), which flattened tuples and structs leave where
/// the Rust code used the value whole.
pub(crate) fn options(arch: &str) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        "--device-as-default-execution-space".into(),
        "--std=c++17".into(),
        "--fmad=false".into(),
        "--diag-suppress=177,550".into(),
    ]
}

/// NVRTC's version, for cache keys and device descriptions.
pub(crate) fn nvrtc_version() -> String {
    nvrtc::version().unwrap_or_else(|e| e)
}
