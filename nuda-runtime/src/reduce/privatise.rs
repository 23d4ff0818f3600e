//! Privatised atomics of `nuwork!` (a histogram's bins; the macros' `privatise`): whether a
//! launch gives each work-group a copy of the array in local memory, and its arguments.
//! Layer 5 of the runtime (see `backend/README.md`), with the reductions' launch.
//!
//! A copy is given where it is sound and pays: the elements are 32- or 64-bit integers, whose
//! atomics compose exactly in any order (floats would reassociate), and the copy fits in
//! `BUDGET` bytes and half the device's local memory, so that groups still share a compute
//! unit. Otherwise the kernel's atomics go to the array, as without privatisation.
//!
//! The native engine's form is [`NativeCopy`]: each segment of a task counts into a zeroed
//! copy that only its thread touches, so its atomics are a load and a store, and adds the
//! copy's non-zero elements into the array at the segment's end, one atomic each. A
//! histogram's bins then stop bouncing between the cores' caches on every element.
//! `#[nukernel]`'s per-worker copies are `copies.rs`.

use super::launch::capped_global;
use crate::atomic::{Atomic, AtomicOp};
use crate::backend::native::ArrayViewMut;
use crate::device::Device;
use crate::element::Pod;
use crate::kernel::desc::Input;
use crate::launch::Launch;
use std::any::TypeId;

/// The largest copy a group keeps, in bytes: 8192 32-bit bins.
pub const BUDGET: usize = 32 << 10;

/// Work-groups per compute unit with privatised copies: enough to fill a GPU's compute unit
/// with groups of 256, few enough that each group counts many elements per element it adds
/// into the array.
const GROUPS_PER_UNIT: usize = 8;

/// One privatised array's arguments for one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Privatised {
    /// The bytes of the group's copy, or `None` where its atomics go to the array.
    bytes: Option<usize>,
}

impl Privatised {
    /// The decision for captured array `array` (its proof input) on `dev`.
    pub fn new(dev: &Device, array: Input) -> Privatised {
        let Input::Array(dims, rank, ty) = array else {
            return Privatised { bytes: None };
        };
        let width = match ty {
            "int" | "uint" => 4,
            "long" | "ulong" => 8,
            _ => 0,
        };
        let len: usize = dims[..rank.min(3)].iter().product();
        let room = usize::try_from(dev.info().local_memory / 2).unwrap_or(usize::MAX);
        let bytes = len.saturating_mul(width);
        let fits = width > 0 && len > 0 && bytes <= BUDGET.min(room);
        Privatised {
            bytes: fits.then_some(bytes),
        }
    }

    /// Whether the launch gives groups a copy.
    pub fn on(self) -> bool {
        self.bytes.is_some()
    }

    /// The kernel's two arguments: the flag, and local memory for the copy (8 bytes, never
    /// touched, without one: no launch takes an empty local buffer).
    pub fn push(self, l: Launch<'_>) -> Launch<'_> {
        l.arg(u32::from(self.on()))
            .local_array::<u8>(self.bytes.unwrap_or(8))
    }
}

/// The NDRange of a kernel with privatised arrays (and maybe reductions): as
/// [`reduce_global`](super::reduce_global), with fewer groups, since each group's copy costs
/// a zeroing and an atomic per element at its end.
pub fn privatised_global<const K: usize>(
    dev: &Device,
    trips: [usize; K],
    local: [usize; K],
) -> [usize; K] {
    capped_global(dev, trips, local, GROUPS_PER_UNIT)
}

/// One privatised array of a native segment (see the module doc): the array's view and, where
/// a copy is sound and small, the segment's zeroed copy. Its bounds are `Pod`'s alone, so that
/// an atomic on an element type without atomics draws the one error that names the user's
/// call, not others naming this.
pub struct NativeCopy<'a, T: Pod, S: crate::Shape> {
    target: ArrayViewMut<'a, T, S>,
    copy: Option<Box<[T::Cell]>>,
    flush: AtomicOp,
}

impl<'a, T: Pod, S: crate::Shape> NativeCopy<'a, T, S> {
    /// The copy of `target`, whose atomics compose into `flush` (`Add`, `Or` or `Xor`, as
    /// `crate::checks::privatise` found), for a segment of `trips` iterations: only for 32-
    /// and 64-bit integers, whose atomics compose exactly in any order, within `BUDGET`, as on
    /// devices, and only where the segment has at least as many iterations as the array has
    /// elements (a short row of a 2-D nest would pay more to zero and flush than it saves).
    pub fn new(target: &ArrayViewMut<'a, T, S>, flush: AtomicOp, trips: usize) -> Self {
        let pays = copy_pays::<T>(target.len()) && trips >= target.len();
        let copy = pays.then(|| (0..target.len()).map(|_| T::cell(T::default())).collect());
        NativeCopy {
            target: *target,
            copy,
            flush,
        }
    }

    /// What the segment's atomics update: the copy, else the array.
    #[inline(always)]
    pub fn view(&self) -> ArrayViewMut<'_, T, S> {
        match &self.copy {
            Some(cells) => ArrayViewMut::from_group_cells(cells, self.target.dims()),
            None => self.target,
        }
    }

    /// Adds (or-s, xor-s) the copy's non-zero elements into the array, one atomic each, once.
    pub fn flush(&mut self) {
        if let Some(cells) = self.copy.take() {
            flush_cells::<T>(&cells, self.target.raw_cells(), self.flush);
        }
    }
}

/// The segment's end: also when it unwinds, so that what it counted lands as the array's
/// own atomics would have.
impl<T: Pod, S: crate::Shape> Drop for NativeCopy<'_, T, S> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Runs `$body` with `$t` bound to `T` where `T` is one of the integer types with atomics.
macro_rules! each_int {
    ($T:ty, |$t:ident| $body:expr) => {{
        macro_rules! one {
            ($x:ty) => {
                if TypeId::of::<$T>() == TypeId::of::<$x>() {
                    type $t = $x;
                    return $body;
                }
            };
        }
        one!(i32);
        one!(u32);
        one!(i64);
        one!(u64);
    }};
}

/// Whether a copy of `len` elements of `T` is sound and small: 32- or 64-bit integers, whose
/// atomics compose exactly in any order, within `BUDGET` bytes.
pub(super) fn copy_pays<T: Pod>(len: usize) -> bool {
    int_kind::<T>() && len > 0 && len.saturating_mul(size_of::<T>()) <= BUDGET
}

/// Whether `T` is a 32- or 64-bit integer.
fn int_kind<T: Pod>() -> bool {
    each_int!(T, |I| size_of::<I>() > 0);
    false
}

/// `target[i] op= copy[i]` for each non-zero `copy[i]`, with one atomic each.
pub(super) fn flush_cells<T: Pod>(copy: &[T::Cell], target: &[T::Cell], op: AtomicOp) {
    each_int!(T, |I| {
        // SAFETY: `T` is `I` (their `TypeId`s are equal, and both are `'static`), so
        // `T::Cell` is `<I as Pod>::Cell`: the casts change no type, only how rustc names it.
        let (copy, target) = unsafe {
            (
                &*(copy as *const [T::Cell] as *const [<I as Pod>::Cell]),
                &*(target as *const [T::Cell] as *const [<I as Pod>::Cell]),
            )
        };
        for (c, t) in copy.iter().zip(target) {
            let v = <I as Pod>::load(c);
            if v != 0 {
                <I as Atomic>::rmw(t, op, v);
            }
        }
    });
}
