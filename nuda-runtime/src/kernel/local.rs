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
use crate::backend::native::{ArrayViewMut, DisjointViewMut, OwnedCells, WorkItem};
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::shape::Shape;
use std::marker::PhantomData;

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

/// A `nulocal!` array on the native engine: cells per thread that runs groups of the launch.
/// A group runs on one thread from its first work-item to its last, and a thread runs one
/// group at a time, so the thread's cells are the group's. Every set of cells has one owner
/// thread (`OwnedCells`), so that they may be read and written with plain loads and stores
/// (`view_plain`).
pub struct LocalGroup<T: Value, S: Shape> {
    dims: S,
    len: usize,
    cells: OwnedCells<T::Cell>,
    /// The value a group's elements start at: all-zero bytes.
    zero: T,
}

impl<T: Value, S: Shape> LocalGroup<T, S> {
    fn new(dims: S, len: usize, zero: T) -> Self {
        LocalGroup {
            dims,
            len,
            cells: OwnedCells::new(),
            zero,
        }
    }

    /// The view of the array of work-item `w`'s group. The group's first work-item, which
    /// runs first on the group's thread, zeroes it: a group starts from zeros, not from
    /// what the thread's last group left, as on OpenCL devices (see `emit/cl/zeroing.rs`).
    ///
    /// Inlined into the kernel, so that the view's `one_thread` is a constant there and its
    /// atomics compile to plain loads and stores with no test.
    #[inline(always)]
    pub fn view(&self, w: &WorkItem) -> ArrayViewMut<'_, T, S> {
        ArrayViewMut::from_group_cells(self.group_cells(w, false), self.dims)
    }

    /// As `view`, with plain loads, stores and atomics, which LLVM may vectorise: what the
    /// macros' native code uses.
    ///
    /// # Safety
    ///
    /// The view and its copies are used only on the calling thread, and only while it runs
    /// `w`'s group; and no view of this array (from `view` or `view_plain`) is in use on
    /// another thread meanwhile. (The generated code's `LocalGroup` is its own, and its views
    /// never leave the group's closure.)
    #[inline(always)]
    pub unsafe fn view_plain(&self, w: &WorkItem) -> DisjointViewMut<'_, T, S> {
        // SAFETY: the cells have one owner thread (`OwnedCells`), the caller keeps this view
        // on it, and no other thread holds a view of the array (the caller's promise), so no
        // other thread touches an element at the same time.
        unsafe { ArrayViewMut::from_group_cells(self.group_cells(w, true), self.dims).disjoint() }
    }

    /// The calling thread's cells, zeroed for a group's first work-item: with plain writes
    /// for `view_plain` (`plain`), else with atomic stores, since a view that safe code made
    /// may have gone to another thread.
    #[inline(never)]
    fn group_cells(&self, w: &WorkItem, plain: bool) -> &[T::Cell] {
        let (cells, fresh) = self
            .cells
            .mine(|| (0..self.len).map(|_| T::cell(self.zero)).collect());
        if fresh || (0..3).any(|d| w.local_id(d) != 0) {
            return cells;
        }
        if plain && !T::PADDED {
            let at = cells.as_ptr().cast::<T>().cast_mut();
            // SAFETY: the cells are this thread's alone (`OwnedCells::mine`), no other thread
            // holds a view of them (`view_plain`'s contract), and the group's first work-item
            // has no view of them in use yet; `self.zero` is all-zero bytes, which every `T`
            // (a `Pod`) may hold, a cell has `T`'s layout, and with no padding every byte is
            // inside a cell's `UnsafeCell`.
            unsafe { std::ptr::write_bytes(at, 0, cells.len()) };
        } else {
            cells.iter().for_each(|c| T::store(c, self.zero));
        }
        cells
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::backend::native::{Group, GroupShape};
    use crate::backend::Geometry;

    /// Work-item `k` of a group of 8.
    fn item(k: usize) -> WorkItem {
        let geo = Geometry {
            global: vec![8],
            local: Some(vec![8]),
        };
        Group::new(&GroupShape::new(&geo), 0).item(k)
    }

    fn group() -> LocalGroup<u32, usize> {
        let mut local = LocalArray::<u32, usize>::new(8);
        local.native_mut().expect("8 elements fit")
    }

    /// A group's work-items share the thread's cells; the next group's first work-item
    /// zeroes them.
    #[test]
    fn a_group_sees_its_own_writes_and_the_next_starts_from_zeros() {
        let g = group();
        g.view(&item(0)).set(3, 7);
        assert_eq!(g.view(&item(5)).get(3), 7, "one group, one set of cells");
        // SAFETY: the view stays on this thread, within the "group".
        let plain = unsafe { g.view_plain(&item(0)) };
        assert_eq!(plain.get(3), 0, "a new group starts from zeros");
    }

    /// Two pools' workers of the same index get different cells: a slot has one owner.
    #[test]
    #[cfg_attr(miri, ignore = "thread pools are slow under Miri")]
    fn workers_of_two_pools_never_share_cells() {
        let g = group();
        let cells = |pool: &rayon::ThreadPool| {
            pool.install(|| g.group_cells(&item(0), false).as_ptr() as usize)
        };
        let pool = || rayon::ThreadPoolBuilder::new().num_threads(1).build();
        let (a, b) = (pool().expect("a pool"), pool().expect("a pool"));
        assert_ne!(cells(&a), cells(&b));
        assert_eq!(cells(&a), cells(&a), "a thread keeps its slot");
    }

    /// Threads outside rayon past the foreign slots get cells of their own from the spill
    /// list.
    #[test]
    #[cfg_attr(miri, ignore = "70 threads are slow under Miri")]
    fn threads_past_the_slots_get_cells_of_their_own() {
        let g = group();
        let n = crate::backend::native::FOREIGN + 3;
        let all_in = std::sync::Barrier::new(n);
        let mut seen: Vec<usize> = std::thread::scope(|s| {
            let ts: Vec<_> = (0..n)
                .map(|_| {
                    s.spawn(|| {
                        let at = g.group_cells(&item(0), false).as_ptr() as usize;
                        // Every thread stays alive until all have their cells.
                        all_in.wait();
                        at
                    })
                })
                .collect();
            ts.into_iter()
                .map(|t| t.join().expect("no panic"))
                .collect()
        });
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n, "two threads shared cells");
        assert_eq!(g.cells.spilled_threads(), 3);
    }
}
