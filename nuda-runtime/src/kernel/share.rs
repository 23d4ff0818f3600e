//! Automatic shared writes in `annot!(nudevs; ..)`: an array that a `nuwork!` inside the loop
//! writes is rebound, before the iterations start, to its shared-write handle, exactly as the
//! user would write `let c = c.as_shared();` (see `NuArray::as_shared` for the merge rule).
//! A handle is already shared and stays itself.

use super::Value;
use crate::array::{NuArray, NuShared, Shape};
use crate::error::Result;

/// An array a `nudevs` body writes from several devices.
pub trait ShareMut {
    /// The shared-write handle (method syntax reborrows a `&mut NuArray` binding too).
    fn __nuda_share(&mut self) -> Result<NuShared<'_, Self>>
    where
        Self: Sized;
}

impl<T: Value, S: Shape> ShareMut for NuArray<T, S> {
    fn __nuda_share(&mut self) -> Result<NuShared<'_, Self>> {
        self.try_as_shared()
    }
}

/// A handle the user took with `as_shared()`: found first, through `&self`, and kept.
pub trait ShareCopy: Copy {
    /// `self`.
    fn __nuda_share(&self) -> Result<Self> {
        Ok(*self)
    }
}

impl<A> ShareCopy for NuShared<'_, A> {}
