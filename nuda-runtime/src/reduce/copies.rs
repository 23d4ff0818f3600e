//! A `#[nukernel]`'s privatised arrays on the native engine (layer 5, with `privatise.rs`,
//! whose rules it follows): a zeroed copy per thread that runs the launch's groups, made at
//! the thread's first group and merged into the array after the launch. Each copy has one
//! owner thread (`OwnedCells`), so the kernel's atomics on it are plain loads and stores
//! (`CopyView`), which LLVM may vectorise: a sub-histogram's merge, `if part[l] != 0 {
//! hist.atomic_add(l, part[l]) }`, becomes masked vector adds.

use super::privatise::{copy_pays, flush_cells};
use crate::atomic::{Atomic, AtomicOp};
use crate::backend::native::{ArrayViewMut, DisjointViewMut, OwnedCells};
use crate::element::Pod;
use crate::fault::{Checker, Site};
use crate::kernel::{AtomicArray, Indexed};

/// A privatised array of a `#[nukernel]`'s native launch (see the module doc). Where a copy
/// does not pay (`privatise.rs`'s rules), the atomics go to the array.
pub struct NativeCopies<'a, T: Pod, S> {
    target: ArrayViewMut<'a, T, S>,
    copies: Option<OwnedCells<T::Cell>>,
    flush: AtomicOp,
}

impl<'a, T: Pod, S: crate::Shape> NativeCopies<'a, T, S> {
    /// The copies of `target`, whose atomics compose into `flush` (`Add`, `Or` or `Xor`).
    pub fn new(target: &ArrayViewMut<'a, T, S>, flush: AtomicOp) -> Self {
        let on = copy_pays::<T>(target.len());
        NativeCopies {
            target: *target,
            copies: on.then(OwnedCells::new),
            flush,
        }
    }

    /// The calling thread's copy, made zeroed at its first call. (Out of line: the views
    /// inline around it, so that the kernel sees their flags as values, not memory.)
    #[inline(never)]
    fn mine(&self) -> Option<&[T::Cell]> {
        let zeroed = || {
            (0..self.target.len())
                .map(|_| T::cell(T::default()))
                .collect()
        };
        (self.copies.as_ref()).map(|c| c.mine(zeroed).0)
    }

    /// What the current thread's atomics update: its copy, else the array.
    #[inline(always)]
    pub fn view(&self) -> ArrayViewMut<'_, T, S> {
        match self.mine() {
            Some(cells) => ArrayViewMut::from_group_cells(cells, self.target.dims()),
            None => self.target,
        }
    }

    /// As `view`, with plain loads and stores on the thread's copy: what the macros' native
    /// code uses.
    ///
    /// # Safety
    ///
    /// The view and its copies are used only on the calling thread, and not once `flush`
    /// has started (the generated code flushes after the launch has joined its threads).
    #[inline(always)]
    pub unsafe fn view_plain(&self) -> CopyView<'_, T, S> {
        match self.mine() {
            Some(cells) => CopyView {
                view: ArrayViewMut::from_group_cells(cells, self.target.dims()),
                own: true,
            },
            None => CopyView {
                view: self.target,
                own: false,
            },
        }
    }

    /// Adds (or-s, xor-s) every thread's non-zero elements into the array, once the launch
    /// has finished.
    pub fn flush(&self) {
        if let Some(copies) = &self.copies {
            copies.each(|cells| flush_cells::<T>(cells, self.target.raw_cells(), self.flush));
        }
    }
}

/// What a privatised array's atomics update in a `#[nukernel]` group: the thread's own copy,
/// with plain loads and stores, or the array itself, with atomics. (A flag beside one view,
/// not an enum of two: LLVM moves a test of the flag out of the generated loops, and kept an
/// enum's in memory.)
pub struct CopyView<'a, T: Pod, S> {
    view: ArrayViewMut<'a, T, S>,
    /// Whether `view` is the calling thread's own copy (`NativeCopies::view_plain`).
    own: bool,
}

impl<T: Pod, S: Copy> Clone for CopyView<'_, T, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Pod, S: Copy> Copy for CopyView<'_, T, S> {}

impl<'a, T: Pod, S: crate::Shape> CopyView<'a, T, S> {
    /// The dims, outermost first.
    pub fn dims(&self) -> S {
        self.view.dims()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.view.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The thread's own copy, with plain loads and stores.
    #[inline(always)]
    fn plain(&self) -> DisjointViewMut<'a, T, S> {
        // SAFETY: only called where `own`: the view is the calling thread's copy, which no
        // other thread is given (`OwnedCells`), and `view_plain`'s caller keeps this view on
        // that thread.
        unsafe { self.view.disjoint() }
    }
}

impl<T: Pod, S> Indexed for CopyView<'_, T, S> {
    type Index = S;
}

impl<T: Pod, S: crate::Shape> AtomicArray for CopyView<'_, T, S> {
    type Elem = T;
    #[inline(always)]
    #[track_caller]
    fn rmw<const TR: bool>(
        &self,
        i: S,
        op: AtomicOp,
        v: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> T
    where
        T: Atomic,
    {
        match self.own {
            true => self.plain().rmw(i, op, v, f, site),
            false => self.view.rmw(i, op, v, f, site),
        }
    }

    #[inline(always)]
    #[track_caller]
    fn cmpxchg<const TR: bool>(
        &self,
        i: S,
        old: T,
        new: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> T
    where
        T: Atomic,
    {
        match self.own {
            true => self.plain().cmpxchg(i, old, new, f, site),
            false => self.view.cmpxchg(i, old, new, f, site),
        }
    }
}
