//! Atomic read-modify-write on array elements: what `a.atomic_add(i, v)` and its siblings do
//! in kernels (on the native engine through the element's atomic cell) and on the host.
//! Layer 0 of the runtime (see `backend/README.md`).
//!
//! Every operation returns the element's previous value and is relaxed, as OpenCL 1.x
//! atomics are: it orders nothing but itself, and concurrent updates of one element never
//! lose one another. Integers wrap, as everywhere in nuda's kernels. `f32` has add, sub,
//! min, max and the exchanges (a compare-and-swap loop on its bits, on every engine);
//! compare-exchange compares bits, so `-0.0` and `0.0` differ and a NaN matches itself.

use crate::element::Pod;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64};

/// An atomic read-modify-write operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `old + v`, wrapping for integers.
    Add,
    /// `old - v`, wrapping for integers.
    Sub,
    /// The smaller (floats: `f32::min`, which ignores a NaN operand, as OpenCL's `fmin`).
    Min,
    /// The larger (floats: `f32::max`).
    Max,
    /// `old & v`.
    And,
    /// `old | v`.
    Or,
    /// `old ^ v`.
    Xor,
    /// `v`.
    Xchg,
}

/// Elements with atomics: `i32`, `u32`, `i64` and `u64` (every operation) and `f32` (add,
/// sub, min, max, exchanges). OpenCL devices need `cl_khr_int64_base_atomics` and
/// `cl_khr_int64_extended_atomics` for the 64-bit ones.
#[diagnostic::on_unimplemented(
    message = "arrays of `{Self}` have no atomics in nuda",
    label = "atomics work on arrays of i32, u32, i64, u64 and f32",
    note = "OpenCL has no atomics on narrower integers or on doubles; use a u32 or i32 array"
)]
pub trait Atomic: Pod {
    /// The new value `op` makes of `old` and `v`.
    fn combine(op: AtomicOp, old: Self, v: Self) -> Self;
    /// Applies `op` with `v` to `cell` atomically; returns the previous value.
    fn rmw(cell: &Self::Cell, op: AtomicOp, v: Self) -> Self;
    /// Stores `new` if `cell` holds `expected` (bitwise); returns the previous value.
    fn cmpxchg(cell: &Self::Cell, expected: Self, new: Self) -> Self;
}

/// Integer elements, which also have the bitwise operations.
#[diagnostic::on_unimplemented(
    message = "`atomic_and`, `atomic_or` and `atomic_xor` need an integer array, not `{Self}`",
    label = "bitwise atomics work on arrays of i32, u32, i64 and u64"
)]
pub trait AtomicBits: Atomic {}

macro_rules! atomic_int {
    ($($t:ty => $cell:ty),*) => {$(
        impl Atomic for $t {
            #[inline]
            fn combine(op: AtomicOp, old: $t, v: $t) -> $t {
                match op {
                    AtomicOp::Add => old.wrapping_add(v),
                    AtomicOp::Sub => old.wrapping_sub(v),
                    AtomicOp::Min => old.min(v),
                    AtomicOp::Max => old.max(v),
                    AtomicOp::And => old & v,
                    AtomicOp::Or => old | v,
                    AtomicOp::Xor => old ^ v,
                    AtomicOp::Xchg => v,
                }
            }
            #[inline]
            fn rmw(cell: &$cell, op: AtomicOp, v: $t) -> $t {
                match op {
                    AtomicOp::Add => cell.fetch_add(v, Relaxed),
                    AtomicOp::Sub => cell.fetch_sub(v, Relaxed),
                    AtomicOp::Min => cell.fetch_min(v, Relaxed),
                    AtomicOp::Max => cell.fetch_max(v, Relaxed),
                    AtomicOp::And => cell.fetch_and(v, Relaxed),
                    AtomicOp::Or => cell.fetch_or(v, Relaxed),
                    AtomicOp::Xor => cell.fetch_xor(v, Relaxed),
                    AtomicOp::Xchg => cell.swap(v, Relaxed),
                }
            }
            #[inline]
            fn cmpxchg(cell: &$cell, expected: $t, new: $t) -> $t {
                match cell.compare_exchange(expected, new, Relaxed, Relaxed) {
                    Ok(v) | Err(v) => v,
                }
            }
        }
        impl AtomicBits for $t {}
    )*};
}

atomic_int!(i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64);

impl Atomic for f32 {
    #[inline]
    fn combine(op: AtomicOp, old: f32, v: f32) -> f32 {
        match op {
            AtomicOp::Add => old + v,
            AtomicOp::Sub => old - v,
            AtomicOp::Min => old.min(v),
            AtomicOp::Max => old.max(v),
            AtomicOp::Xchg => v,
            // `AtomicBits` is not implemented for f32, so no kernel or host call gets here.
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => old,
        }
    }
    #[inline]
    fn rmw(cell: &AtomicU32, op: AtomicOp, v: f32) -> f32 {
        let step = |bits: u32| Some(f32::combine(op, f32::from_bits(bits), v).to_bits());
        match cell.fetch_update(Relaxed, Relaxed, step) {
            Ok(bits) | Err(bits) => f32::from_bits(bits),
        }
    }
    #[inline]
    fn cmpxchg(cell: &AtomicU32, expected: f32, new: f32) -> f32 {
        let swapped = cell.compare_exchange(expected.to_bits(), new.to_bits(), Relaxed, Relaxed);
        match swapped {
            Ok(bits) | Err(bits) => f32::from_bits(bits),
        }
    }
}

/// Calls `$m!` with every read-modify-write method: its name, its `AtomicOp` and the trait
/// its element type needs. The kernels' views and `NuArray` on the host take the list from
/// here, so both have the same methods.
macro_rules! for_each_atomic {
    ($m:ident) => {
        $m! {
            atomic_add => Add, Atomic;
            atomic_sub => Sub, Atomic;
            atomic_min => Min, Atomic;
            atomic_max => Max, Atomic;
            atomic_and => And, AtomicBits;
            atomic_or => Or, AtomicBits;
            atomic_xor => Xor, AtomicBits;
            atomic_xchg => Xchg, Atomic;
        }
    };
}
pub(crate) use for_each_atomic;

/// The host's version, on a plain element: the same results as one atomic step.
pub(crate) fn host_rmw<T: Atomic>(slot: &mut T, op: AtomicOp, v: T) -> T {
    let old = *slot;
    *slot = T::combine(op, old, v);
    old
}

/// The host's compare-exchange, bitwise like the kernels'.
pub(crate) fn host_cmpxchg<T: Atomic>(slot: &mut T, expected: T, new: T) -> T {
    let old = *slot;
    if T::same_bits(old, expected) {
        *slot = new;
    }
    old
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn cells_and_the_host_agree() {
        let cell = AtomicU32::new(7);
        assert_eq!(u32::rmw(&cell, AtomicOp::Sub, 9), 7);
        assert_eq!(cell.load(Relaxed), 7u32.wrapping_sub(9));
        let mut host = 7u32;
        assert_eq!(host_rmw(&mut host, AtomicOp::Sub, 9), 7);
        assert_eq!(host, cell.load(Relaxed));
        let f = AtomicU32::new(1.5f32.to_bits());
        assert_eq!(f32::rmw(&f, AtomicOp::Add, 2.25), 1.5);
        assert_eq!(f32::from_bits(f.load(Relaxed)), 3.75);
        assert_eq!(
            f32::cmpxchg(&f, 0.0, 9.0),
            3.75,
            "no swap: a different value"
        );
        assert_eq!(f32::cmpxchg(&f, 3.75, 9.0), 3.75);
        assert_eq!(f32::from_bits(f.load(Relaxed)), 9.0);
        let mut z = 0.0f32;
        assert_eq!(host_cmpxchg(&mut z, -0.0, 1.0), 0.0);
        assert_eq!(z, 0.0, "-0.0 and 0.0 differ bitwise");
    }
}
