//! Stage 3 of the pipeline in `lib.rs`: the checks and analyses over the IR, which read it
//! and say what a kernel may do, before the annotations rewrite it. The modules are peers;
//! `lib.rs` says what each one decides.

pub mod barrier_split;
pub mod capture;
pub mod depend;
pub mod disjoint;
pub mod lanes;
pub mod phases;
pub mod privatise;
pub mod reduce;
pub mod sites;
pub mod uniform;
pub mod zeroing;
