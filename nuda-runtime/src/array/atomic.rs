//! Atomics on the host: the same methods kernels call on a captured array, so a loop runs
//! the same code in `nuwork!` and in a host `nfor!`. On the host they take `&mut self` (one
//! thread updates at a time, so a plain read-modify-write is the atomic step) and, like
//! indexing, panic out of range.

use super::NuArray;
use crate::atomic::{host_cmpxchg, host_rmw, Atomic, AtomicBits, AtomicOp};
use crate::element::Stored;
use crate::shape::Shape;

macro_rules! host_atomics {
    ($($name:ident => $op:ident, $bound:ident;)*) => {
        impl<T: Stored, S: Shape> NuArray<T, S> {$(
            #[doc = concat!("`", stringify!($name), "(index, v)`: applies `AtomicOp::", stringify!($op),
                "` with `v` to the element at `index` and returns its previous value.")]
            #[track_caller]
            pub fn $name(&mut self, index: S, v: T) -> T
            where
                T: $bound,
            {
                host_rmw(&mut self[index], AtomicOp::$op, v)
            }
        )*}
    };
}

crate::atomic::for_each_atomic!(host_atomics);

impl<T: Stored + Atomic, S: Shape> NuArray<T, S> {
    /// `atomic_cmpxchg(index, expected, new)`: stores `new` if the element at `index` is
    /// `expected` (bitwise), and returns its previous value either way.
    #[track_caller]
    pub fn atomic_cmpxchg(&mut self, index: S, expected: T, new: T) -> T {
        host_cmpxchg(&mut self[index], expected, new)
    }
}
