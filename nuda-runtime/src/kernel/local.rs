//! `nulocal!` arrays: NUDA's `nulocal`, an array a `#[nukernel]` work-group shares. The macro
//! turns `let part = nulocal!(u64, 128);` into a [`LocalArray`] captured like a written
//! array: on OpenCL it is a `local T*` parameter sized at launch (`Launch::local_array`) with
//! its dims after it, so accesses are checked, and proved, as for global arrays; on the
//! native engine it is a [`LocalGroup`], whose cells each thread that runs groups allocates
//! once per launch and every work-item of the thread's current group views.
//!
//! A group's arrays start zeroed on every engine (OpenCL leaves local memory undefined;
//! Rust has no uninitialised reads): the OpenCL kernel zeroes them before its first
//! statement, and natively the group's first work-item zeroes the thread's cells.

use super::capture::{array_input, CaptureMut};
use super::desc::{CaptureDesc, Input, Space};
use super::Value;
use crate::backend::native::{ArrayViewMut, WorkItem};
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::shape::Shape;
use std::marker::PhantomData;
use std::sync::OnceLock;
use std::thread::ThreadId;

/// A `nulocal!` array of `T` with constant dims `S`, as the launch sees it.
#[derive(Debug, Clone, Copy)]
pub struct LocalArray<T: Value, S: Shape> {
    dims: S,
    elements: PhantomData<T>,
}

impl<T: Value, S: Shape> LocalArray<T, S> {
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
// SAFETY: local memory of the array's own dims, which its proof input states.
unsafe impl<T: Value, S: Shape> CaptureMut for LocalArray<T, S> {
    type NativeMut<'a> = LocalGroup<T, S>;
    fn desc_mut(&self) -> CaptureDesc {
        super::capture::array_desc::<T, S>(Space::Local)
    }
    fn native_mut(&mut self) -> Result<LocalGroup<T, S>> {
        let len = self.len()?;
        let limit = crate::backend::native::LOCAL_MEMORY;
        if (len * size_of::<T>()) as u64 > limit {
            return Err(Error::OutOfResources {
                device: "the native engine".into(),
                what: format!("a nulocal! array of {len} elements"),
                detail: format!("local memory holds {limit} bytes per work-group"),
            });
        }
        // All-zero bytes, as OpenCL's zeroing writes (a struct's `Default` may differ).
        let zero = crate::memory::zeros::<T>(1)?.pop().unwrap_or_default();
        Ok(LocalGroup::new(self.dims, len, zero))
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

/// Threads outside rayon's pool (a backend's own) that may hold cells before later ones
/// share the last slot (unspecified values, as a race would give, but never undefined
/// behaviour: the cells are atomic).
const FOREIGN: usize = 64;

/// One thread's cells of a local array, made at its first use.
type Cells<T> = OnceLock<Box<[<T as crate::element::Pod>::Cell]>>;

/// A `nulocal!` array on the native engine: cells per thread that runs groups of the launch.
/// A group runs on one thread from its first work-item to its last, and a thread runs one
/// group at a time, so the thread's cells are the group's.
pub struct LocalGroup<T: Value, S: Shape> {
    dims: S,
    len: usize,
    /// rayon's workers, by their index in the pool.
    workers: usize,
    /// Owners of the slots past the workers'.
    owners: Box<[OnceLock<ThreadId>]>,
    cells: Box<[Cells<T>]>,
    /// The value a group's elements start at: all-zero bytes.
    zero: T,
}

impl<T: Value, S: Shape> LocalGroup<T, S> {
    fn new(dims: S, len: usize, zero: T) -> Self {
        let workers = rayon::current_num_threads();
        LocalGroup {
            dims,
            len,
            workers,
            owners: (0..FOREIGN).map(|_| OnceLock::new()).collect(),
            cells: (0..workers + FOREIGN).map(|_| OnceLock::new()).collect(),
            zero,
        }
    }

    /// The calling thread's slot: a rayon worker's own, else the one a foreign thread
    /// claimed, else the first free one it claims.
    fn slot(&self) -> usize {
        if let Some(k) = rayon::current_thread_index().filter(|&k| k < self.workers) {
            return k;
        }
        let me = std::thread::current().id();
        for (k, owner) in self.owners.iter().enumerate() {
            if *owner.get_or_init(|| me) == me {
                return self.workers + k;
            }
        }
        self.workers + FOREIGN - 1
    }

    /// The view of the array of work-item `w`'s group. The group's first work-item, which
    /// runs first on the group's thread, zeroes it: a group starts from zeros, not from
    /// what the thread's last group left, as on OpenCL devices (see `emit/cl/zeroing.rs`).
    pub fn view(&self, w: &WorkItem) -> ArrayViewMut<'_, T, S> {
        let mut fresh = false;
        let cells = self.cells[self.slot()].get_or_init(|| {
            fresh = true;
            (0..self.len).map(|_| T::cell(self.zero)).collect()
        });
        if !fresh && (0..3).all(|d| w.local_id(d) == 0) {
            cells.iter().for_each(|c| T::store(c, self.zero));
        }
        ArrayViewMut::from_group_cells(cells, self.dims)
    }
}
