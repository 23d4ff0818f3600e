//! nuda's compiler, an ordinary library testable without rustc: Rust loop nests become a
//! loop-nest IR, then checks, the annotation chain, and OpenCL C plus native Rust.
//!
//! The pipeline, one folder per stage; each uses only the stages before it (`README.md`
//! beside `Cargo.toml` lists every module and says what a new builtin or reduction operator
//! takes):
//! 1. `base`: `ctxt` (errors gathered per expansion), `ir` (the loop-nest IR and the kernel
//!    language's tables: scalar types with their OpenCL C names, builtin functions and
//!    methods with their spellings, in `ir::builtins`), `paths` (the runtime paths generated
//!    code names);
//! 2. `syntax`: parse the macros' input (`nfor!`, `annot!` chains) and lower it to IR;
//! 3. `checks` over the IR: `capture` (what a kernel uses from outside, and whether the
//!    kernel language allows it), `uniform` (every work-item of a group reaches each
//!    `barrier()`), `disjoint` (which arrays work-items store to disjointly), `sites` (the
//!    check sites), `reduce` (the reduction variables of `nuwork!`, which `capture`
//!    recognises), `lanes` (which values of a `vector(w)` nest differ between its lanes),
//!    `privatise` (which arrays only take atomics a work-group may gather in local memory
//!    first), `depend` (loop-carried dependences refused), `zeroing` (which `nulocal!` arrays
//!    are written whole before any read), `barrier_split` (the barrier split of `#[nukernel]`
//!    bodies for the native engine);
//! 4. `annot`: the annotation chain, IR to IR;
//! 5. `emit`: OpenCL C templates, native Rust, and the glue that launches them;
//! 6. `proof`: the launch-time proof program that drops the checks a launch's values rule
//!    out and picks 32-bit `usize` where it changes nothing (it reads the emitter's spelling
//!    of expressions);
//! 7. `entry`, the entry points, one per macro: `nuwork`, `nukernel`, `nucode`, `nucall`,
//!    `nfor`, `annot` (`annot!` on host loops), and `nustruct` (`#[nustruct]`, which touches
//!    no kernel: it lays a struct out for arrays and kernels).
//!
//! Unit tests (`test.rs`, `*_test.rs`) sit above stage 7: they may drive the whole pipeline
//! from a macro's input. `tests/layers.rs` holds all of this to the source.

pub mod annot;
pub mod base;
pub mod checks;
pub mod emit;
pub mod entry;
pub mod proof;
pub mod syntax;
