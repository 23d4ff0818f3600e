//! Stage 7 of the pipeline in `lib.rs`: the entry points, one module per macro form. Each
//! runs the stages before it in turn for its macro; `nuda-macros` only forwards tokens here.
//! `annot` is `annot!` on host loops (the annotation chain itself is stage 4's `crate::annot`).

pub mod annot;
pub mod nfor;
pub mod nucall;
pub mod nucode;
pub mod nukernel;
pub mod nustruct;
pub mod nuwork;
