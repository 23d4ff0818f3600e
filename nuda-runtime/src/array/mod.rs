//! `NuArray1<T>`, `NuArray2<T>`, `NuArray3<T>`: arrays that live on the host, on devices, or
//! both, and move between them only when needed (see the guide `nuda::guide::lazy_sync`). Layer 4 of the
//! runtime (see `backend/README.md`), above memory.

mod atomic;
mod constant;
mod shared;
#[cfg(test)]
mod test;
mod vec;

pub use crate::shape::Shape;
pub use constant::NuConst;
pub use shared::NuShared;
pub use vec::NuVec;

use crate::backend::native::{ArrayView, ArrayViewMut};
use crate::backend::Layout;
use crate::device::Device;
use crate::element::Stored;
use crate::error::{Error, Result};
use crate::memory::Storage;
use std::fmt;
use std::ops::{Index, IndexMut};

/// A lazily synchronised array of `T` with shape `S`; use the aliases below.
pub struct NuArray<T: Stored, S: Shape> {
    dims: S,
    storage: Storage<T>,
}

/// A 1-D array, indexed by `usize`.
pub type NuArray1<T> = NuArray<T, usize>;
/// A 2-D array, indexed by `(usize, usize)`, row-major.
pub type NuArray2<T> = NuArray<T, (usize, usize)>;
/// A 3-D array, indexed by `(usize, usize, usize)`, row-major.
pub type NuArray3<T> = NuArray<T, (usize, usize, usize)>;

fn len_of<S: Shape>(dims: S) -> usize {
    match dims.checked_len() {
        Some(n) => n,
        None => panic!("nuda: array dims {dims:?} have more elements than usize can count"),
    }
}

impl<T: Stored, S: Shape> NuArray<T, S> {
    /// A zeroed array. Nothing is allocated until the host or a device first uses it.
    pub fn new(dims: S) -> Self {
        NuArray {
            dims,
            storage: Storage::zeroed(len_of(dims), Layout::Buffer),
        }
    }

    /// An array with `f(index)` at each index, filled on the host in row-major order.
    pub fn from_fn(dims: S, mut f: impl FnMut(S) -> T) -> Self {
        let data = (0..len_of(dims)).map(|i| f(dims.unflatten(i))).collect();
        NuArray {
            dims,
            storage: Storage::from_vec(data, Layout::Buffer),
        }
    }

    /// An array holding `data` in row-major order; its length must match the dims.
    pub fn from_vec(dims: S, data: Vec<T>) -> Result<Self> {
        let len = dims.checked_len();
        if len != Some(data.len()) {
            return Err(Error::DimsMismatch {
                what: format!("NuArray{}::from_vec", S::RANK),
                expected: format!("{} elements for dims {dims:?}", display_len(len)),
                found: format!("{} elements", data.len()),
            });
        }
        Ok(NuArray {
            dims,
            storage: Storage::from_vec(data, Layout::Buffer),
        })
    }

    /// The dims, outermost first.
    pub fn dims(&self) -> S {
        self.dims
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.storage.len()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements in row-major order, downloaded first if a device wrote them.
    pub fn try_as_slice(&self) -> Result<&[T]> {
        self.storage.host()
    }

    /// The elements for writing; every device copy becomes stale.
    pub fn try_as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.storage.host_mut()
    }

    /// The elements in row-major order. Panics if a download fails; see `try_as_slice`.
    pub fn as_slice(&self) -> &[T] {
        self.try_as_slice().unwrap_or_else(|e| panic!("nuda: {e}"))
    }

    /// The elements for writing. Panics if a download fails; see `try_as_mut_slice`.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.try_as_mut_slice()
            .unwrap_or_else(|e| panic!("nuda: {e}"))
    }

    /// A copy of the elements in row-major order.
    pub fn to_vec(&self) -> Vec<T> {
        self.as_slice().to_vec()
    }

    /// Overwrites every element from `src`, which must have `len()` elements. Nothing is
    /// downloaded, since nothing of the old contents survives.
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<()> {
        if src.len() != self.len() {
            return Err(Error::DimsMismatch {
                what: format!("NuArray{}::copy_from_slice", S::RANK),
                expected: format!("{} elements (dims {:?})", self.len(), self.dims),
                found: format!("{} elements", src.len()),
            });
        }
        self.storage.host_overwrite()?.copy_from_slice(src);
        Ok(())
    }

    /// Sets every element to `value` on the host. Nothing is downloaded first, since nothing
    /// of the old data survives; every device copy becomes stale. An `Err` if the host cannot
    /// allocate the array's host copy.
    pub fn fill(&mut self, value: T) -> Result<()> {
        self.storage.host_overwrite()?.fill(value);
        Ok(())
    }

    /// Copies elements `start..start + out.len()` (row-major) into `out`. Only those move:
    /// from the host copy if it is valid, else from a device holding the data; no copy
    /// becomes valid or stale. `nuda::dist` reads halo rows this way.
    pub fn read_range(&self, start: usize, out: &mut [T]) -> Result<()> {
        self.storage.read_range(start, out)
    }

    /// Overwrites elements `start..start + data.len()` (row-major) in every copy that is
    /// valid, the host's and each device's, moving only those bytes: nothing becomes stale.
    pub fn write_range(&mut self, start: usize, data: &[T]) -> Result<()> {
        self.storage.write_range(start, data)
    }

    /// Makes the data valid on `device` now (allocating and uploading only if needed), so a
    /// later launch finds it there. The native engine works on the host copy.
    pub fn prefetch(&self, device: &Device) -> Result<()> {
        match device.is_native() {
            false => self.storage.prepare(device.index()).map(drop),
            true => self.storage.host().map(drop),
        }
    }

    /// A read-only view on the host for the native engine.
    pub fn read_view(&self) -> Result<ArrayView<'_, T, S>> {
        Ok(ArrayView::new(self.storage.host()?, self.dims))
    }

    /// A shared writable view on the host for the native engine.
    pub fn write_view(&mut self) -> Result<ArrayViewMut<'_, T, S>> {
        let dims = self.dims;
        Ok(ArrayViewMut::new(self.storage.host_mut()?, dims))
    }

    crate::memory::storage_accessors!();

    #[inline]
    fn offset(&self, index: S) -> usize {
        match self.dims.offset(index) {
            Some(o) => o,
            None => panic!(
                "nuda: index {index:?} out of bounds for NuArray{} of dims {:?}",
                S::RANK,
                self.dims
            ),
        }
    }
}

fn display_len(len: Option<usize>) -> String {
    len.map_or_else(|| "more than usize::MAX".into(), |n| n.to_string())
}

impl<T: Stored, S: Shape> Index<S> for NuArray<T, S> {
    type Output = T;
    #[inline]
    fn index(&self, index: S) -> &T {
        &self.as_slice()[self.offset(index)]
    }
}

impl<T: Stored, S: Shape> IndexMut<S> for NuArray<T, S> {
    #[inline]
    fn index_mut(&mut self, index: S) -> &mut T {
        let o = self.offset(index);
        &mut self.as_mut_slice()[o]
    }
}

impl<T: Stored, S: Shape> Clone for NuArray<T, S> {
    /// A copy on the host (downloaded first if a device holds the only valid data).
    fn clone(&self) -> Self {
        NuArray {
            dims: self.dims,
            storage: Storage::from_vec(self.to_vec(), Layout::Buffer),
        }
    }
}

impl<T: Stored, S: Shape> fmt::Debug for NuArray<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (host, devices) = self.residency();
        f.debug_struct(&format!("NuArray{}<{}>", S::RANK, T::CL_TYPE))
            .field("dims", &self.dims)
            .field("valid_on_host", &host)
            .field("valid_on_devices", &devices)
            .finish()
    }
}
