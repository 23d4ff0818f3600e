//! Which staged views pack (layer 1, the native engine): read-only arrays do; for anything
//! else generated code gets a panel that grants no walk.

use super::{Lanes, PanelBuf, Walk};
use crate::backend::native::views::{ArrayView, ArrayViewMut, DisjointViewMut};
use crate::element::Pod;
use crate::shape::Shape;

/// Stands for a panel where the staged value is not an array nuda can pack (an image, a
/// shared-write array): every read misses it and goes to the view.
pub struct NoPanel;

impl NoPanel {
    /// No walk: the loop reads the array.
    #[allow(clippy::too_many_arguments)] // as `Panel::walk`
    #[inline(always)]
    pub fn walk<V: StagedView, const W: usize>(
        &self,
        _view: &V,
        _ends: (impl Copy, impl Copy),
        _c: [usize; 3],
        _k: (Option<usize>, usize),
        _f: impl Copy,
        _lanes: Lanes<W>,
    ) -> Option<Walk<'static, V::Elem, W>> {
        None
    }
}

/// What a staged read gives, by the view it reads: the element type of a walk that is never
/// made (`NoPanel`).
pub trait StagedView {
    /// The element.
    type Elem;
}

impl<T, S> StagedView for ArrayView<'_, T, S> {
    type Elem = T;
}

impl<T: Pod, S> StagedView for ArrayViewMut<'_, T, S> {
    type Elem = T;
}

impl<T: Pod, S> StagedView for DisjointViewMut<'_, T, S> {
    type Elem = T;
}

/// The buffer of a value that packs nothing.
pub struct NoPanelBuf;

impl NoPanelBuf {
    /// No panel.
    pub fn pack<V, const P: usize, const B: usize>(
        &mut self,
        _view: &V,
        _origin: [usize; 3],
        _ext: [usize; 3],
    ) -> NoPanel {
        NoPanel
    }
}

/// Generated code asks `(&&Probe(&view)).panel_buf()`: an array view's is a `PanelBuf`
/// (`PackArray`, found first), anything else's a `NoPanelBuf` (`PackOther`).
pub struct Probe<'r, V>(pub &'r V);

/// A read-only array view packs into a `PanelBuf`. Other views pack nothing: a shared-write
/// array (another thread may write it during the launch), a `nulocal!` array, an image.
pub trait PackArray {
    /// Its buffer.
    type Buf;
    /// A buffer from the thread's pool.
    fn panel_buf(&self) -> Self::Buf;
}

impl<T: Pod, S: Shape> PackArray for &Probe<'_, ArrayView<'_, T, S>> {
    type Buf = PanelBuf<T>;
    fn panel_buf(&self) -> PanelBuf<T> {
        PanelBuf::new()
    }
}

/// Anything else packs nothing.
pub trait PackOther {
    /// A buffer that packs nothing.
    fn panel_buf(&self) -> NoPanelBuf {
        NoPanelBuf
    }
}

impl<V> PackOther for Probe<'_, V> {}
