//! Emitters: OpenCL C templates (`cl`), native and witness Rust (`native`), host loops
//! (`host`), and the glue that launches kernels (`launch`).
//!
//! Stage 5 of the pipeline in `lib.rs` (emitters).

pub mod cl;
pub mod glue;
pub mod native;
pub mod private;
pub mod template;
