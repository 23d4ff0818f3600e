//! `NuConst`: a read-only view of an array that kernels receive in constant memory, NUDA's
//! `nuconstarray`. Made on the host with `a.as_const()` and captured like any array; writing
//! through it in a kernel is a compile error.

use super::{NuArray, Shape};
use crate::element::Stored;
use std::ops::Deref;

/// An array passed to kernels as a `constant` pointer.
#[derive(Debug)]
pub struct NuConst<'a, A>(&'a A);

impl<A> Clone for NuConst<'_, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A> Copy for NuConst<'_, A> {}

impl<'a, A> NuConst<'a, A> {
    /// The array.
    pub fn array(&self) -> &'a A {
        self.0
    }
}

impl<A> Deref for NuConst<'_, A> {
    type Target = A;
    fn deref(&self) -> &A {
        self.0
    }
}

impl<T: Stored, S: Shape> NuArray<T, S> {
    /// This array as kernels' constant memory: small, read-only tables such as filter
    /// coefficients. The device's constant memory is limited (64 KiB is common); a launch with
    /// a larger one fails with `Error::OutOfResources`.
    pub fn as_const(&self) -> NuConst<'_, Self> {
        NuConst(self)
    }
}
