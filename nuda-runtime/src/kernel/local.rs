//! `nulocal!` arrays: NUDA's `nulocal`, an array a `#[nukernel]` work-group shares. The macro
//! turns `let part = nulocal!(u64, 128);` into a [`LocalArray`] captured like a written
//! array: on OpenCL it is a `local T*` parameter sized at launch (`Launch::local_array`) with
//! its dims after it, so accesses are checked, and proved, as for global arrays; on the
//! native engine it is a [`LocalGroup`], whose cells each thread that runs groups allocates
//! once per launch and every work-item of the thread's current group views.
//!
//! Local memory starts undefined on OpenCL: a read before any write gives an unspecified
//! value. Natively a group reads what an earlier group on its thread left, or zero, through
//! atomic cells, so it is never undefined behaviour.

use super::capture::{array_input, KernelMut};
use crate::backend::native::ArrayViewMut;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::private::proof::Input;
use crate::private::{CaptureDesc, Space};
use crate::shape::Shape;
use std::marker::PhantomData;
use std::sync::OnceLock;
use std::thread::ThreadId;

/// A `nulocal!` array of `T` with constant dims `S`, as the launch sees it.
#[derive(Debug, Clone, Copy)]
pub struct LocalArray<T: Element, S: Shape> {
    dims: S,
    elements: PhantomData<T>,
}

impl<T: Element, S: Shape> LocalArray<T, S> {
    /// The array `nulocal!(T, dims)` declares.
    pub const fn new(dims: S) -> Self {
        LocalArray {
            dims,
            elements: PhantomData,
        }
    }

    fn len(&self) -> Result<usize> {
        let bytes = self
            .dims
            .checked_len()
            .and_then(|n| n.checked_mul(size_of::<T>()));
        match bytes {
            Some(_) => Ok(self.dims.checked_len().unwrap_or(0)),
            None => Err(Error::DimsMismatch {
                what: "a nulocal! array".into(),
                expected: "dims whose product fits in memory".into(),
                found: format!("{:?}", self.dims),
            }),
        }
    }
}

// Only `#[nukernel]` makes these: rustc should not suggest one for a value a kernel cannot write.
#[diagnostic::do_not_recommend]
impl<T: Element, S: Shape> KernelMut for LocalArray<T, S> {
    type NativeMut<'a> = LocalGroup<T, S>;
    fn desc_mut(&self) -> CaptureDesc {
        CaptureDesc::Array(T::CL_TYPE, S::RANK, Space::Local)
    }
    fn native_mut(&mut self) -> Result<LocalGroup<T, S>> {
        Ok(LocalGroup::new(self.dims, self.len()?))
    }
    fn proof_input_mut(&self) -> Input {
        array_input::<T, S>(self.dims)
    }
    fn push_mut<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        let mut l = l.local_array::<T>(self.dims.checked_len().unwrap_or(usize::MAX));
        for d in self.dims.to_vec() {
            l = l.index(d);
        }
        l
    }
}

/// Threads that may hold cells before later ones share the last slot (unspecified values,
/// as a race would give, but never undefined behaviour: the cells are atomic).
const SLOTS: usize = 256;

/// One thread's cells of a local array, made at its first use.
type Cells<T> = OnceLock<Box<[<T as crate::element::Pod>::Cell]>>;

/// A `nulocal!` array on the native engine: cells per thread that runs groups of the launch.
/// A group runs on one thread from its first work-item to its last, and a thread runs one
/// group at a time, so the thread's cells are the group's.
pub struct LocalGroup<T: Element, S: Shape> {
    dims: S,
    len: usize,
    owners: Box<[OnceLock<ThreadId>]>,
    cells: Box<[Cells<T>]>,
}

impl<T: Element, S: Shape> LocalGroup<T, S> {
    fn new(dims: S, len: usize) -> Self {
        LocalGroup {
            dims,
            len,
            owners: (0..SLOTS).map(|_| OnceLock::new()).collect(),
            cells: (0..SLOTS).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The calling thread's slot: the one it claimed, else the first free one it claims.
    fn slot(&self) -> usize {
        let me = std::thread::current().id();
        for (k, owner) in self.owners.iter().enumerate() {
            if *owner.get_or_init(|| me) == me {
                return k;
            }
        }
        SLOTS - 1
    }

    /// The current group's view of the array.
    pub fn view(&self) -> ArrayViewMut<'_, T, S> {
        let cells = self.cells[self.slot()]
            .get_or_init(|| (0..self.len).map(|_| T::cell(T::default())).collect());
        ArrayViewMut::from_cells(cells, self.dims)
    }
}
