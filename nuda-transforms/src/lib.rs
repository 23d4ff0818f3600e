//! nuda's compiler, an ordinary library testable without rustc: Rust loop nests become a
//! loop-nest IR, then capture analysis, the annotation chain, and OpenCL C plus native Rust.
