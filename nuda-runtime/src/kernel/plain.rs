//! Plain stores for the arrays the macros proved disjoint: the native view of a written
//! capture becomes a plain-store view when no other thread can touch the same cells, and
//! stays atomic when one can.

use crate::array::Shape;
use crate::backend::native::{ArrayViewMut, DisjointViewMut};
use crate::element::Pod;
use crate::fault::{Checker, Site};

/// A written capture's native view, and what it becomes where `nuda_transforms::checks::disjoint`
/// proved that no two work-items of the launch touch one element.
pub trait PlainStores: Sized {
    /// The view with plain loads and stores, where that is sound.
    type Plain;
    /// The view for a launch whose work-items touch disjoint elements.
    ///
    /// # Safety
    ///
    /// No two work-items of the launch access one element of the view.
    unsafe fn plain_stores(self) -> Self::Plain;
}

impl<'a, T: Pod, S: Shape> PlainStores for ArrayViewMut<'a, T, S> {
    type Plain = DisjointViewMut<'a, T, S>;
    unsafe fn plain_stores(self) -> DisjointViewMut<'a, T, S> {
        // SAFETY: an array's own view borrows it exclusively for the launch, so the launch's
        // work-items are the only accessors, and the caller promises they are disjoint.
        unsafe { self.disjoint() }
    }
}

/// A shared-write scope's native copy (`NuShared`): the native launches of every host thread
/// of the scope write the same cells, so its stores stay atomic even where one launch's
/// work-items are disjoint.
pub struct SharedViewMut<'a, T: Pod, S> {
    view: ArrayViewMut<'a, T, S>,
}

impl<T: Pod, S: Copy> Clone for SharedViewMut<'_, T, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Pod, S: Copy> Copy for SharedViewMut<'_, T, S> {}

impl<'a, T: Pod, S: Shape> SharedViewMut<'a, T, S> {
    pub(crate) fn new(view: ArrayViewMut<'a, T, S>) -> Self {
        SharedViewMut { view }
    }

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
        self.view.is_empty()
    }

    /// See [`ArrayViewMut::load`].
    #[inline(always)]
    #[track_caller]
    pub fn load<const TR: bool>(&self, index: S, f: Checker<'_, TR>, site: &'static Site) -> T {
        self.view.load(index, f, site)
    }

    /// See [`ArrayViewMut::store`].
    #[inline(always)]
    #[track_caller]
    pub fn store<const TR: bool>(&self, index: S, v: T, f: Checker<'_, TR>, site: &'static Site) {
        self.view.store(index, v, f, site)
    }
}

impl<T: Pod, S: Shape> PlainStores for SharedViewMut<'_, T, S> {
    type Plain = Self;
    unsafe fn plain_stores(self) -> Self {
        self
    }
}

/// What a kernel's variable resolves to in the type witness when rustc's macro hygiene binds
/// it to something other than what nuda saw: a `macro_rules!` that passes in a caller's
/// variable under the name of one the kernel declares itself (a loop variable, a `let`, a
/// capture). The kernel then fails to compile at that use; rename one of the two.
#[derive(Debug, Clone, Copy)]
pub struct ForeignVariable;
