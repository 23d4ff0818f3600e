//! Support for code the macros generate (layer 6, the top, see `backend/README.md`): the
//! launch-time proof, templates, and the native forms' runners. Not a stable API: only
//! `nuda`'s macros call it.

mod alias;
mod barrier_split;
mod native;
mod program;
pub(crate) mod proof;
mod range;
mod stack;
mod template;

/// What `annot!(nudist; ..)` generates calls to.
pub mod dist {
    pub use crate::dist::launch::{any, fold, DistLaunch, Payload};
    pub use crate::dist::phase::{exact, Plan};
    pub use crate::dist::{DistMut, DistRef};
}

pub use crate::backend::c::spell::literal;
pub use crate::backend::native::Group;
pub use crate::backend::native::{
    Lanes, NoPanel, NoPanelBuf, PackArray, PackOther, Panel, PanelBuf, Probe, StagedView, Walk,
};
pub use crate::backend::Form;
pub use crate::element::Sealed;
pub use crate::fault::{unchecked_here, Checker, Faults, Site, SiteKind};
pub use crate::kernel::{
    c_offset, declare_struct, decode_each, element_at, encode_each, private_index, Field,
    PrivateLoad, StructDecl,
};
pub use crate::reduce::{
    combine, dev_size, identity, lookback_test, native_nuwork_reduce, native_scan_body,
    native_scan_totals, privatised_global, push_capacity, push_guard, push_len, push_start,
    reduce_cl_type, reduce_global, reduced, reduction_var, scan_global, scan_tiling, CopyView,
    NativeCopies, NativeCopy, Partials, Privatised, PushCount, RedOp, Reduce, ScanPlan,
    ScanPrefixes, ScanTickets, ScanTiles, ScanTiling, ScanTotals,
};
pub use crate::tune::{Saved, Tunable, TuneSame, TuneSite, TuneStep};
pub use alias::{distinct, AliasPair};
pub use barrier_split::{agree, Done, Slots};
pub use native::{
    dispatch, hoist, inlined, native_nuwork, rsqrt, witness_barrier, witness_item, Call, Float,
};
pub use program::{
    const_fill, nucode_instance, nucode_of, Baked, BakedFill, CaptureDesc, ConstValue, Fill,
    Nucode, NucodeFn, PlainFill, Space, Variant,
};
pub use proof::{keeping_checks, prove, Bin, Cmp, Input, Inputs, Item, Mapped, Op, Ty, NONE};
pub use range::{
    group_size, offset, steps, steps_in, trips_host, trips_of as trips, IntoSize, LoopIndex,
    LoopRange, RangeElement, Steps,
};
pub use stack::{check_private, slot_bytes, PrivateLet};
pub use template::{check_native, fill, instantiate, Cx, Template};
