//! What code the macros generate calls on the values a kernel captures: how each becomes a
//! kernel parameter ([`Capture`], [`CaptureMut`]), how its type is spelled in OpenCL C
//! ([`ClType`]), and how the native engine computes with it ([`Arith`], [`Shift`]): integers
//! wrap and division by zero faults, exactly as in the generated OpenCL C. Layer 5 of the runtime
//! (see `backend/README.md`), with the launch, below `macro_support`.
//!
//! These traits are implemented for nuda's scalars, arrays, images, constant arrays and
//! shared-write handles. They are public so that rustc's messages about a value a kernel
//! cannot capture name them where users can read their documentation.

mod access;
mod arith;
mod capture;
pub(crate) mod desc;
mod element;
mod launcher;
mod local;
mod nustruct;
mod plain;
mod private_array;
mod reduction;
mod share;
mod slot;
mod value;

#[doc(hidden)]
pub use access::{
    atomic_add, atomic_and, atomic_cmpxchg, atomic_max, atomic_min, atomic_or, atomic_sub,
    atomic_xchg, atomic_xor,
};
pub use access::{index_of, AtomicArray, IndexOf, Indexed};
pub use arith::{Arith, Shift, ShiftAmount};
pub use capture::{
    cl_type, compared, lane, plain_arg, witness_mut, witness_ref, ByMut, ByShared, Capture,
    CaptureMut, ClType, Compared, Lane, PlainArg, Pushed, TypeSlot,
};
pub use element::{Element, Value};
pub use launcher::{NoCall, Nucall};
pub use local::{LocalArray, LocalGroup};
pub(crate) use nustruct::declarations_for;
#[doc(hidden)]
pub use nustruct::{c_offset, declare_struct, decode_each, encode_each, Field, StructDecl};
pub use plain::{ForeignVariable, PlainStores, SharedViewMut};
#[doc(hidden)]
pub use private_array::{array_type, element_at, private_index, Indexable, PrivateLoad};
/// What a `nuwork!` reduction variable's type must implement (rustc names it when one does
/// not).
pub use reduction::{combine, identity, reduce_cl_type, reduced, reduction_var, Reduce};
pub use share::{ShareCopy, ShareMut};
pub use slot::{slot_counter, SlotCounter};
pub use value::{let_copy, witness_number, LetCopy, NumberHint};
