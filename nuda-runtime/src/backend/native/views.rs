//! Host views the native engine's kernels read and write through.
//!
//! Work-items run on many rayon threads at once, all holding the same view, exactly as
//! OpenCL work-items share a buffer. That kernels write disjoint elements is the user's
//! promise, as in OpenCL; if they break it the result is unspecified, never undefined
//! behaviour, because writable views store through the element's atomic twin (see
//! `element.rs`). Generated code checks each index and records a fault instead of touching
//! memory, unless its checker is a trusting one (`Checker::trusting`, an `unsafe fn` whose
//! caller guarantees every index in range); hand-written native kernels' `get`/`set` panic
//! out of range, and the launch reports the panic as an error.

use crate::atomic::Atomic;
use crate::element::{Pod, Texel};
use crate::fault::{Checker, Site};
use crate::shape::Shape;
use std::ops::Index;

/// Reinterprets an exclusively borrowed slice as its atomic cells.
fn cells<T: Pod>(data: &mut [T]) -> &[T::Cell] {
    // SAFETY: `Pod` implementations assert at compile time that `T::Cell` has the size and
    // alignment of `T`, and every bit pattern of `T` is a valid cell. The exclusive borrow of
    // `data` lasts as long as the returned shared borrow, so all access goes through cells.
    unsafe { std::slice::from_raw_parts(data.as_mut_ptr().cast::<T::Cell>(), data.len()) }
}

#[track_caller]
fn out_of_bounds<S: std::fmt::Debug>(what: &str, index: S, dims: S) -> ! {
    panic!("nuda: index {index:?} out of bounds for {what} of dims {dims:?}")
}

/// The offset of `index` in `dims`, or a fault recorded at `site` (generated kernels).
#[inline(always)]
fn checked<S: Shape, const TR: bool>(
    dims: S,
    index: S,
    f: Checker<'_, TR>,
    site: &'static Site,
) -> Option<usize> {
    let o = dims.offset(index);
    if o.is_none() {
        let wide = |e: [usize; 3]| e.map(|v| v as u64);
        let mut d = wide(dims.extents());
        d[S::RANK..].fill(0);
        f.bounds(site, wide(index.extents()), d);
    }
    o
}

/// A read-only view of an array.
#[derive(Clone, Copy)]
pub struct ArrayView<'a, T, S> {
    data: &'a [T],
    dims: S,
}

impl<'a, T: Pod, S: Shape> ArrayView<'a, T, S> {
    pub(crate) fn new(data: &'a [T], dims: S) -> Self {
        ArrayView { data, dims }
    }

    /// The dims, outermost first.
    pub fn dims(&self) -> S {
        self.dims
    }

    /// The elements, row-major.
    pub(crate) fn data(&self) -> &'a [T] {
        self.data
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The element at `index`; out of range, a panic at the caller's line.
    #[inline]
    #[track_caller]
    pub fn get(&self, index: S) -> T {
        self[index]
    }

    /// The element at `index`; out of range, zero, with a fault recorded at `site`.
    #[inline(always)]
    #[track_caller]
    pub fn load<const TR: bool>(&self, index: S, f: Checker<'_, TR>, site: &'static Site) -> T {
        if f.trusted() {
            let o = self.dims.offset_unchecked(index);
            // SAFETY: only a trusting checker gets here, and its maker guaranteed that the
            // index lies within `dims`, so `o` is below `data.len()` (the product of dims).
            return unsafe { *self.data.get_unchecked(o) };
        }
        match checked(self.dims, index, f, site) {
            Some(o) => self.data[o],
            None => T::default(),
        }
    }
}

impl<T: Pod, S: Shape> Index<S> for ArrayView<'_, T, S> {
    type Output = T;
    #[inline]
    #[track_caller]
    fn index(&self, index: S) -> &T {
        match self.dims.offset(index) {
            Some(o) => &self.data[o],
            None => out_of_bounds("an array", index, self.dims),
        }
    }
}

/// A writable view of an array, shared by all work-items of a launch.
pub struct ArrayViewMut<'a, T: Pod, S> {
    cells: &'a [T::Cell],
    dims: S,
    /// Whether one thread alone touches the cells (a `nulocal!` array: a group runs on one
    /// thread), so an atomic needs no locked instruction: a load and a store of the cell do.
    one_thread: bool,
}

// A copy is one more shared reference to the same cells, as `&[AtomicU32]` is Copy.
impl<T: Pod, S: Copy> Clone for ArrayViewMut<'_, T, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Pod, S: Copy> Copy for ArrayViewMut<'_, T, S> {}

impl<'a, T: Pod, S: Shape> ArrayViewMut<'a, T, S> {
    pub(crate) fn new(data: &'a mut [T], dims: S) -> Self {
        ArrayViewMut {
            cells: cells(data),
            dims,
            one_thread: false,
        }
    }

    /// A view of cells other views may share (a shared-write scope's native copy, a
    /// `nulocal!` array's cells), which hold exactly the elements of `dims`.
    #[inline]
    pub(crate) fn from_cells(cells: &'a [T::Cell], dims: S) -> Self {
        // Trusted accesses rely on it: an offset below the product of the dims is in `cells`.
        assert_eq!(
            dims.checked_len(),
            Some(cells.len()),
            "nuda bug: cells and dims disagree"
        );
        ArrayViewMut {
            cells,
            dims,
            one_thread: false,
        }
    }

    /// A view of a thread's own cells (a `nulocal!` array's, a privatised copy's; see
    /// `owned.rs`): its atomics are a load and a store of the cell. (Should safe code hand
    /// such a view to another thread, the cells are still atomic: updates may be lost, as in
    /// a race, but nothing is undefined.)
    #[inline(always)]
    pub(crate) fn from_group_cells(cells: &'a [T::Cell], dims: S) -> Self {
        ArrayViewMut {
            one_thread: true,
            ..Self::from_cells(cells, dims)
        }
    }

    /// The cells, in storage order.
    pub(crate) fn raw_cells(&self) -> &'a [T::Cell] {
        self.cells
    }

    /// Whether an atomic may be a load and a store (see `from_group_cells`).
    #[inline(always)]
    pub(crate) fn one_thread(&self) -> bool {
        self.one_thread
    }

    /// The dims, outermost first.
    pub fn dims(&self) -> S {
        self.dims
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    #[inline]
    #[track_caller]
    fn cell(&self, index: S) -> &T::Cell {
        match self.dims.offset(index) {
            Some(o) => &self.cells[o],
            None => out_of_bounds("an array", index, self.dims),
        }
    }

    /// The element at `index`; out of range, a panic at the caller's line.
    #[inline]
    #[track_caller]
    pub fn get(&self, index: S) -> T {
        T::load(self.cell(index))
    }

    /// Writes the element at `index`; out of range, a panic at the caller's line.
    #[inline]
    #[track_caller]
    pub fn set(&self, index: S, value: T) {
        T::store(self.cell(index), value)
    }

    /// The element at `index`; out of range, zero, with a fault recorded at `site`.
    #[inline(always)]
    #[track_caller]
    pub fn load<const TR: bool>(&self, index: S, f: Checker<'_, TR>, site: &'static Site) -> T {
        self.checked_cell(index, f, site)
            .map_or_else(T::default, T::load)
    }

    /// Writes the element at `index`; out of range, nothing is written and a fault is
    /// recorded at `site`.
    #[inline(always)]
    #[track_caller]
    pub fn store<const TR: bool>(
        &self,
        index: S,
        value: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) {
        if let Some(c) = self.checked_cell(index, f, site) {
            T::store(c, value)
        }
    }

    /// The cell at `index`, unchecked under a trusting checker; else checked, and out of
    /// range `None` with a fault recorded at `site`.
    #[inline(always)]
    #[track_caller]
    fn checked_cell<const TR: bool>(
        &self,
        index: S,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Option<&T::Cell> {
        if f.trusted() {
            let o = self.dims.offset_unchecked(index);
            // SAFETY: as in `ArrayView::load`: a trusting checker's index is within `dims`.
            return Some(unsafe { self.cells.get_unchecked(o) });
        }
        checked(self.dims, index, f, site).map(|o| &self.cells[o])
    }

    /// Runs `op` on the cell at `index`; out of range, nothing is touched, a fault is
    /// recorded at `site`, and the answer is zero. The atomics of kernels
    /// (`kernel::AtomicArray`) run through it.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn atomic<const TR: bool>(
        &self,
        index: S,
        f: Checker<'_, TR>,
        site: &'static Site,
        op: impl FnOnce(&T::Cell) -> T,
    ) -> T {
        self.checked_cell(index, f, site)
            .map_or_else(T::default, op)
    }

    /// `atomic_cmpxchg(index, expected, new)` in kernels: stores `new` if the element is
    /// `expected` (bitwise); returns the previous value (zero out of range, with a fault).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_cmpxchg<const TR: bool>(
        &self,
        index: S,
        expected: T,
        new: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> T
    where
        T: Atomic,
    {
        self.atomic(index, f, site, |c| match self.one_thread {
            true => {
                let old = T::load(c);
                if T::same_bits(old, expected) {
                    T::store(c, new);
                }
                old
            }
            false => T::cmpxchg(c, expected, new),
        })
    }
}

/// A writable view whose elements no two work-items share, so loads and stores are plain:
/// LLVM may vectorise them. Made only by [`ArrayViewMut::disjoint`].
pub struct DisjointViewMut<'a, T: Pod, S> {
    view: ArrayViewMut<'a, T, S>,
}

impl<T: Pod, S: Copy> Clone for DisjointViewMut<'_, T, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Pod, S: Copy> Copy for DisjointViewMut<'_, T, S> {}

impl<'a, T: Pod, S: Shape> ArrayViewMut<'a, T, S> {
    /// The same view with plain loads and stores.
    ///
    /// # Safety
    ///
    /// While the result is in use, no element it loads or stores may be accessed by another
    /// thread at the same time (through any view of the same cells): the macros prove that
    /// every work-item touches only its own elements (`nuda_transforms::checks::disjoint`).
    pub unsafe fn disjoint(self) -> DisjointViewMut<'a, T, S> {
        DisjointViewMut { view: self }
    }
}

impl<T: Pod, S: Shape> DisjointViewMut<'_, T, S> {
    /// The dims, outermost first.
    pub fn dims(&self) -> S {
        self.view.dims
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.view.cells.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.view.cells.is_empty()
    }

    /// The element at offset `o`, which must be below `len()`.
    #[inline(always)]
    fn ptr(&self, o: usize) -> *mut T {
        debug_assert!(o < self.len());
        // Writing through a pointer from `&[T::Cell]` is allowed: the cells are `UnsafeCell`s
        // of `T`'s layout (see `element.rs`).
        self.view
            .cells
            .as_ptr()
            .cast::<T>()
            .cast_mut()
            .wrapping_add(o)
    }

    /// The element at `index`; out of range, a panic at the caller's line.
    #[inline]
    #[track_caller]
    pub fn get(&self, index: S) -> T {
        match self.view.dims.offset(index) {
            // SAFETY: `o` is in range, and no other thread touches this element now
            // (`disjoint`'s contract).
            Some(o) => unsafe { self.ptr(o).read() },
            None => out_of_bounds("an array", index, self.view.dims),
        }
    }

    /// As [`ArrayViewMut::load`], with a plain load.
    #[inline(always)]
    #[track_caller]
    pub fn load<const TR: bool>(&self, index: S, f: Checker<'_, TR>, site: &'static Site) -> T {
        match self.offset(index, f, site) {
            // SAFETY: `o` is in range (checked, or a trusting checker's promise), and no
            // other thread touches this element now (`disjoint`'s contract).
            Some(o) => unsafe { self.ptr(o).read() },
            None => T::default(),
        }
    }

    /// The offset of `index`: unchecked with a trusting checker, else checked, with a fault
    /// recorded at `site` when out of range.
    #[inline(always)]
    #[track_caller]
    fn offset<const TR: bool>(
        &self,
        index: S,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Option<usize> {
        match f.trusted() {
            true => Some(self.view.dims.offset_unchecked(index)),
            false => checked(self.view.dims, index, f, site),
        }
    }

    /// As [`ArrayViewMut::store`], with a plain store.
    #[inline(always)]
    #[track_caller]
    pub fn store<const TR: bool>(
        &self,
        index: S,
        value: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) {
        if let Some(o) = self.offset(index, f, site) {
            // SAFETY: as in `load`.
            unsafe { self.put(o, value) }
        }
    }

    /// Writes `value` at offset `o`: a plain store, or for a type with padding one through
    /// its cell, field by field (padding bytes lie outside the cell's `UnsafeCell`s, and a
    /// pointer from `&[T::Cell]` may not write them).
    ///
    /// # Safety
    ///
    /// `o` is below `len()`, and no other thread touches the element now.
    #[inline(always)]
    unsafe fn put(&self, o: usize, value: T) {
        match T::PADDED {
            // SAFETY: `o` is in range (the caller's promise).
            true => T::store(unsafe { self.view.cells.get_unchecked(o) }, value),
            // SAFETY: in range, and no other thread touches it (the caller's promise); `T`
            // has no padding, so every byte written is inside a cell's `UnsafeCell`.
            false => unsafe { self.ptr(o).write(value) },
        }
    }

    /// A kernel's atomic on the element at `index` as a plain load and store of `step`'s
    /// value: no other thread touches the element meanwhile (`disjoint`'s contract), so
    /// nothing comes between them. The previous value; out of range, zero, with a fault.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn update<const TR: bool>(
        &self,
        index: S,
        f: Checker<'_, TR>,
        site: &'static Site,
        step: impl FnOnce(T) -> T,
    ) -> T {
        match self.offset(index, f, site) {
            // SAFETY: as in `load`.
            Some(o) => unsafe {
                let old = self.ptr(o).read();
                self.put(o, step(old));
                old
            },
            None => T::default(),
        }
    }
}

/// Clamps a signed coordinate into `0..n`, as the `CLAMP_TO_EDGE` sampler does.
#[inline]
pub(crate) fn clamp(c: i32, n: usize) -> usize {
    (c.max(0) as usize).min(n.saturating_sub(1))
}

/// A read-only view of an image; reads clamp to the edge.
#[derive(Clone, Copy)]
pub struct ImageView<'a, T> {
    data: &'a [T],
    width: usize,
    height: usize,
}

impl<'a, T: Texel> ImageView<'a, T> {
    pub(crate) fn new(data: &'a [T], (width, height): (usize, usize)) -> Self {
        ImageView {
            data,
            width,
            height,
        }
    }

    /// `(width, height)`.
    pub fn dims(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// The texel at `(x, y)`, with coordinates clamped to the edge; an empty image reads as
    /// zero, as a device's one-texel stand-in for it does.
    #[inline]
    pub fn read(&self, x: i32, y: i32) -> T {
        let at = clamp(y, self.height) * self.width + clamp(x, self.width);
        self.data.get(at).copied().unwrap_or_default()
    }
}

/// A writable view of an image, shared by all work-items of a launch.
pub struct ImageViewMut<'a, T: Pod> {
    cells: &'a [T::Cell],
    width: usize,
    height: usize,
}

impl<T: Pod> Clone for ImageViewMut<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Pod> Copy for ImageViewMut<'_, T> {}

impl<'a, T: Texel> ImageViewMut<'a, T> {
    pub(crate) fn new(data: &'a mut [T], (width, height): (usize, usize)) -> Self {
        ImageViewMut {
            cells: cells(data),
            width,
            height,
        }
    }

    /// `(width, height)`.
    pub fn dims(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// Writes the texel at `(x, y)`, which must lie inside the image (else a panic at the
    /// caller's line).
    #[inline]
    #[track_caller]
    pub fn write(&self, x: i32, y: i32, value: T) {
        let inside = x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height;
        if !inside {
            out_of_bounds(
                "an image",
                (x as i64, y as i64),
                (self.width as i64, self.height as i64),
            );
        }
        T::store(&self.cells[y as usize * self.width + x as usize], value)
    }

    /// Writes the texel at `(x, y)`; outside the image, nothing is written and a fault is
    /// recorded at `site`.
    #[inline(always)]
    #[track_caller]
    pub fn write_at<const TR: bool>(
        &self,
        x: i32,
        y: i32,
        value: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) {
        if f.trusted() {
            let at = y as usize * self.width + x as usize;
            // SAFETY: a trusting checker's coordinates are inside the image (see
            // `Checker::trusting`), so `at` is below width * height, the cells' length.
            return T::store(unsafe { self.cells.get_unchecked(at) }, value);
        }
        let inside = x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height;
        if inside {
            T::store(&self.cells[y as usize * self.width + x as usize], value);
        } else {
            let dims = [self.width as u64, self.height as u64, 0];
            f.bounds(site, [x as i64 as u64, y as i64 as u64, 0], dims);
        }
    }
}
