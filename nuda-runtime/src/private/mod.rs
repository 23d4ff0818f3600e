//! Support for code the macros generate. Not a stable API: only `nuda`'s macros call it.

mod capture;
mod native;
mod range;
mod template;

pub use capture::{
    cl_type, witness_mut, witness_ref, ByMut, ByShared, ClType, KernelMut, KernelRef,
};
pub use native::{native_nuwork, rsqrt, witness_barrier, witness_item, Call, Float};
pub use range::{
    group_size, offset, steps, trips_of as trips, IntoSize, LoopIndex, LoopRange, Steps,
};
pub use template::{fill, instantiate, literal, spell, CaptureDesc, Fill, Nucode, Space, Template};
