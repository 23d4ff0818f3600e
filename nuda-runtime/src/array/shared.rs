//! `NuShared`: a handle through which kernels on several devices, in several host threads,
//! write one array at once. Made with `a.as_shared()`, which borrows the array mutably for as
//! long as any copy of the handle lives, so the host cannot look at the array while devices
//! write it. Writes to disjoint elements merge on the host at the array's next use (see
//! the guide `nuda::guide::shared_writes`).

use super::{NuArray, Shape};
use crate::backend::native::ArrayViewMut;
use crate::element::Stored;
use crate::error::Result;
use crate::memory::Storage;

/// An array several devices write at once; see [`NuArray::as_shared`].
///
/// ```
/// # use nuda_runtime::*;
/// let mut c = NuArray1::<f32>::new(8);
/// let shared = c.as_shared();          // c is borrowed until `shared` and its copies are gone
/// let (left, right) = (shared, shared); // Copy: one per thread or device
/// # let _ = (left, right);
/// assert_eq!(c[0], 0.0);               // the scope ended: c is usable again
/// ```
///
/// Without a handle, two threads cannot write one array: each would need `&mut`.
///
/// ```compile_fail
/// # use nuda_runtime::*;
/// let mut a = NuArray1::<f32>::new(8);
/// std::thread::scope(|s| {
///     s.spawn(|| a[0] = 1.0);
///     s.spawn(|| a[1] = 2.0);          // error: a second mutable borrow of `a`
/// });
/// ```
///
/// A handle cannot outlive its array:
///
/// ```compile_fail
/// # use nuda_runtime::*;
/// let shared = {
///     let mut c = NuArray1::<f32>::new(8);
///     c.as_shared()                    // error: `c` does not live long enough
/// };
/// # let _ = shared;
/// ```
///
/// The host cannot read the array while a handle lives:
///
/// ```compile_fail
/// # use nuda_runtime::*;
/// let mut c = NuArray1::<f32>::new(8);
/// let shared = c.as_shared();
/// let x = c[0];                        // error: `c` is borrowed mutably by `shared`
///  let _ = (shared, x);
///  ```
#[derive(Debug)]
pub struct NuShared<'a, A>(&'a A);

impl<A> Clone for NuShared<'_, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A> Copy for NuShared<'_, A> {}

impl<'a, T: Stored, S: Shape> NuShared<'a, NuArray<T, S>> {
    /// The dims, outermost first.
    pub fn dims(&self) -> S {
        self.0.dims()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }

    /// A writable view for native-engine kernels (`NativeLaunch`), as `write_view` is for an
    /// array: the scope's native copy, which the native engine's writes in every host thread
    /// share and which merges with the devices' writes when the scope ends. Reads see the
    /// scope's starting contents plus the native engine's own writes.
    pub fn write_view(&self) -> ArrayViewMut<'a, T, S> {
        ArrayViewMut::from_cells(self.0.storage().native_shared(true), self.dims())
    }

    /// A view for native-engine kernels that only read (nothing to merge from them).
    pub fn read_view(&self) -> ArrayViewMut<'a, T, S> {
        ArrayViewMut::from_cells(self.0.storage().native_shared(false), self.dims())
    }

    pub(crate) fn storage(&self) -> &'a Storage<T> {
        self.0.storage()
    }

    /// The array's address: the same for every copy of the handle.
    pub(crate) fn address(&self) -> usize {
        std::ptr::from_ref(self.0) as usize
    }
}

impl<T: Stored, S: Shape> NuArray<T, S> {
    /// A handle for writing this array from kernels on several devices at once, as NUDA's
    /// `nudevs` loops do: each device starts from the current contents, and the elements each
    /// one changes merge on the host when the array is next used. Kernels must write disjoint
    /// elements (two devices changing one element leave one of the values). Panics if making
    /// the contents valid on the host fails; see [`NuArray::try_as_shared`].
    pub fn as_shared(&mut self) -> NuShared<'_, Self> {
        self.try_as_shared().unwrap_or_else(|e| panic!("nuda: {e}"))
    }

    /// [`NuArray::as_shared`], returning the download error if the contents were only on a
    /// device and could not be read back.
    pub fn try_as_shared(&mut self) -> Result<NuShared<'_, Self>> {
        self.storage_mut().begin_shared()?;
        Ok(NuShared(self))
    }
}
