//! Emitters: OpenCL C templates (`cl`), native and witness Rust (`native`), host loops
//! (`host`), and the glue that launches kernels (`launch`).

pub mod cl;
pub mod glue;
pub mod native;
pub mod private;
pub mod template;
