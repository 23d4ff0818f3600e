//! Support for code the macros generate. Not a stable API: only `nuda`'s macros call it.

mod native;
mod range;
mod spell;
mod template;

pub use crate::fault::{unchecked_here, Checker, Faults, Site, SiteKind};
pub use crate::proof::{
    keeping_checks, prove, Bin, Cmp, Input, Inputs, Item, Mapped, Op, Ty, NONE,
};
pub use native::{hoist, native_nuwork, rsqrt, witness_barrier, witness_item, Call, Float};
pub use range::{
    group_size, offset, steps, steps_in, trips_host, trips_of as trips, IntoSize, LoopIndex,
    LoopRange, Steps,
};
pub use spell::{division_helpers, literal, trips_helpers};
pub use template::{fill, instantiate, CaptureDesc, Cx, Fill, Nucode, Space, Template, Variant};
