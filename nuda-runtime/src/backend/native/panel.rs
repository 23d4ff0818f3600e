//! Packed panels: what `stage(..)` means on the native engine (layer 1, the native form's
//! kernel ABI, beside the views).
//!
//! On a GPU `stage` copies each slice a work-group reads into local memory. A CPU has no local
//! memory, but the annotation still says which blocks a tile reads again and again, so the
//! native form does what BLIS does with them: before a tile's work-items run, each staged
//! array's box (the tile's footprint over the whole staged loop, as `annot::stage` planned it)
//! is copied into a 64-byte aligned buffer of the thread's, laid out so that one work-item's
//! reads are contiguous. With `dmine(8, 1)` after the stage, the box of `a[(k, i)]` is stored
//! as `[i / 8][k][i % 8]`: the eight rows a work-item reads at one `k` are one 32-byte run,
//! and its walk over `k` is a stream, where in the array they are a row apart, and rows of a
//! power-of-two length all fall into the same cache sets.
//!
//! A work-item's loop over `k` then runs in one of two forms (`emit::native::stage`). Before
//! it, each distinct read of a staged array asks its panel for a `Walk`: the read's index at
//! the loop's first and last iteration must be the elements the loop's counters name there
//! (its first and last place in the box), inside the array unless the launch's proof vouched
//! for every index, and the counters' places must lie in the panel. The index of such a read
//! is the loop variable plus a constant along `k` and the same in every iteration elsewhere,
//! so its two ends decide all of it. With every walk granted, the loop reads only the panels,
//! a load at `start + kc * step`, with nothing to check; otherwise it runs as written, reading
//! the arrays. A walk's place is clamped to its last iteration, so even a wrong counter cannot
//! read outside the panel.
//!
//! Tiles of one task often share a box (every tile of a row of C reads the same rows of A):
//! a buffer remembers what it holds, and a tile of the same launch that needs the same box
//! does not copy it again. A launch's arrays cannot change while it runs (the views borrow
//! them), and each launch starts a new generation (`new_launch`), so a remembered box is
//! never stale.

use super::views::ArrayView;
use crate::element::Pod;
use crate::fault::Checker;
use crate::shape::Shape;
use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most bytes one panel holds: a larger box is not packed, and its reads go to the array
/// (a tile over a very long staged loop would otherwise take memory without bound).
pub const MAX_PANEL_BYTES: usize = 64 << 20;

/// The buffers' alignment: a cache line, and a whole AVX-512 register.
const ALIGN: usize = 64;

/// Buffers a thread keeps between tiles: as many as a nest stages arrays, and a few more.
const KEPT: usize = 8;

/// The launch generation: a panel packed in an earlier one is copied again.
static GENERATION: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Buffers of finished tiles, of any element type, for this thread's next tiles.
    static POOL: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// Starts a launch's generation: panels packed before it are not reused by its tiles.
pub fn new_launch() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// What a buffer holds: the array (its address and length), the box asked for, the layout,
/// and the launch generation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Key {
    data: (usize, usize),
    dims: [usize; 3],
    origin: [usize; 3],
    ext: [usize; 3],
    blocked: (usize, usize),
    generation: u64,
}

/// A buffer and what it holds, as the pool keeps it.
struct Held<T> {
    data: Vec<T>,
    key: Option<Key>,
    start: usize,
}

/// A thread's buffer for one staged array, taken from its pool and given back on drop.
pub struct PanelBuf<T: Pod> {
    held: Held<T>,
}

impl<T: Pod> PanelBuf<T> {
    /// An empty buffer; `pack` finds one in the thread's pool.
    pub fn new() -> Self {
        PanelBuf {
            held: Held {
                data: Vec::new(),
                key: None,
                start: 0,
            },
        }
    }

    /// The part of `view`'s box (`origin` and `ext` per index position) inside the array, in
    /// this buffer, blocked along position `P` by `B`: copied, unless the thread's pool has
    /// it from an earlier tile of this launch.
    pub fn pack<S: Shape, const P: usize, const B: usize>(
        &mut self,
        view: &ArrayView<'_, T, S>,
        origin: [usize; 3],
        ext: [usize; 3],
    ) -> Panel<'_, T, S, P, B> {
        let data = view.data();
        let dims = view.dims().extents();
        let layout = Layout::new::<S>(ext, P, B);
        let cut = Cut::new::<S>(origin, ext, dims);
        if cut.is_none() || layout.len.saturating_mul(size_of::<T>()) > MAX_PANEL_BYTES {
            return Panel::empty(dims);
        }
        let key = Key {
            data: (data.as_ptr() as usize, data.len()),
            dims,
            origin,
            ext,
            blocked: (P, B),
            generation: GENERATION.load(Ordering::Relaxed),
        };
        self.held = reuse(key).unwrap_or_else(|| {
            let mut h = reuse_any::<T>();
            h.start = room(&mut h.data, layout.len);
            let out = &mut h.data[h.start..h.start + layout.len];
            if let Some(cut) = &cut {
                cut.copy::<T, S, B>(data, (dims, origin), &layout, out);
            }
            h.key = Some(key);
            h
        });
        let h = &self.held;
        Panel {
            data: &h.data[h.start..h.start + layout.len],
            origin,
            ext,
            dims,
            stride: layout.stride,
            chunk: layout.chunk,
            _shape: std::marker::PhantomData,
        }
    }
}

impl<T: Pod> Default for PanelBuf<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Pod> Drop for PanelBuf<T> {
    fn drop(&mut self) {
        let held = std::mem::replace(
            &mut self.held,
            Held {
                data: Vec::new(),
                key: None,
                start: 0,
            },
        );
        if held.data.capacity() == 0 {
            return;
        }
        // During thread teardown the pool may be gone: the buffer is then just freed.
        let _ = POOL.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                if p.len() >= KEPT {
                    p.remove(0);
                }
                p.push(Box::new(held));
            }
        });
    }
}

/// The pool's buffer holding `key`'s box, taken out of the pool.
fn reuse<T: Pod>(key: Key) -> Option<Held<T>> {
    take_where::<T>(|h| h.key == Some(key))
}

/// Any buffer of `T` from the pool (the one kept longest), or a new one.
fn reuse_any<T: Pod>() -> Held<T> {
    take_where::<T>(|_| true).unwrap_or(Held {
        data: Vec::new(),
        key: None,
        start: 0,
    })
}

fn take_where<T: Pod>(want: impl Fn(&Held<T>) -> bool) -> Option<Held<T>> {
    POOL.try_with(|p| {
        let mut p = p.try_borrow_mut().ok()?;
        let at = (p.iter()).position(|b| b.downcast_ref::<Held<T>>().is_some_and(&want))?;
        p.remove(at).downcast::<Held<T>>().ok().map(|b| *b)
    })
    .ok()
    .flatten()
}

/// Room in `data` for `len` elements from a 64-byte boundary (where the element's size
/// divides 64); where they start.
fn room<T: Pod>(data: &mut Vec<T>, len: usize) -> usize {
    let size = size_of::<T>().max(1);
    let pad = match ALIGN % size {
        0 => ALIGN / size,
        _ => 0,
    };
    if data.len() < len + pad {
        *data = vec![T::default(); len + pad];
    }
    match data.as_ptr().align_offset(ALIGN) {
        skew if skew <= pad => skew,
        _ => 0,
    }
}

/// The part of a box inside an array: per position, its first index and extent.
struct Cut {
    origin: [usize; 3],
    ext: [usize; 3],
}

impl Cut {
    /// The box from `origin` (an index, or below zero as a wrapped `usize`) over `ext`, cut
    /// to `dims`; `None` where nothing is left.
    fn new<S: Shape>(origin: [usize; 3], ext: [usize; 3], dims: [usize; 3]) -> Option<Self> {
        let mut out = Cut {
            origin: [0; 3],
            ext: [1; 3],
        };
        for p in 0..S::RANK {
            let (o, e) = match origin[p] > isize::MAX as usize {
                // Below zero: the box starts `skip` elements before the array.
                true => (0, ext[p].checked_sub(origin[p].wrapping_neg())?),
                false => (origin[p], ext[p]),
            };
            let e = e.min(dims[p].checked_sub(o)?);
            if e == 0 {
                return None;
            }
            (out.origin[p], out.ext[p]) = (o, e);
        }
        Some(out)
    }

    /// Copies the cut from `data` (row-major in `dims`) into `out` as `layout` places the
    /// box from `origin`, and zeroes the rest of the box: a run of the last position at a
    /// time where the layout keeps it contiguous (`B` elements, a fixed-size copy, in a block).
    fn copy<T: Pod, S: Shape, const B: usize>(
        &self,
        data: &[T],
        (dims, origin): ([usize; 3], [usize; 3]),
        layout: &Layout,
        out: &mut [T],
    ) {
        let whole =
            (0..S::RANK).all(|p| self.origin[p] == origin[p] && self.ext[p] == layout.ext[p]);
        if !whole {
            out.fill(T::default());
        }
        let last = S::RANK - 1;
        let (run, outer) = (self.ext[last], self.ext[..last].iter().product::<usize>());
        // Where the cut starts in the box.
        let skip: [usize; 3] = std::array::from_fn(|p| self.origin[p].wrapping_sub(origin[p]));
        for r in 0..outer {
            let mut c = [0usize; 3];
            let mut rest = r;
            for p in (0..last).rev() {
                c[p] = rest % self.ext[p];
                rest /= self.ext[p];
            }
            let mut src = 0;
            for p in 0..S::RANK {
                src = src * dims[p] + self.origin[p] + c[p];
            }
            let row = &data[src..src + run];
            let mut box_c: [usize; 3] = std::array::from_fn(|p| c[p] + skip[p]);
            let mut j = 0;
            while j < run {
                box_c[last] = j + skip[last];
                let n = layout.contiguous(last, box_c[last]).min(run - j);
                let at = layout.flat(box_c);
                match n == B {
                    true => out[at..at + B].copy_from_slice(&row[j..j + B]),
                    false => out[at..at + n].copy_from_slice(&row[j..j + n]),
                }
                j += n;
            }
        }
    }
}

/// Where each element of a box lies in its panel: blocked along position `p` by `b`, the
/// panel is `[c_p / b][the other positions, row-major][c_p % b]`.
struct Layout {
    ext: [usize; 3],
    p: usize,
    b: usize,
    /// Per position but `p`: its step in the inner row-major order (0 at `p`).
    stride: [usize; 3],
    /// Elements a block of `b` values of position `p` takes.
    chunk: usize,
    len: usize,
}

impl Layout {
    fn new<S: Shape>(ext: [usize; 3], p: usize, b: usize) -> Self {
        let mut stride = [0usize; 3];
        let mut inner = 1;
        for q in (0..S::RANK).rev().filter(|&q| q != p) {
            stride[q] = inner;
            inner *= ext[q];
        }
        let b = b.max(1);
        let chunk = inner * b;
        Layout {
            ext,
            p,
            b,
            stride,
            chunk,
            len: ext[p].div_ceil(b) * chunk,
        }
    }

    fn flat(&self, c: [usize; 3]) -> usize {
        let inner = c[0] * self.stride[0] + c[1] * self.stride[1] + c[2] * self.stride[2];
        c[self.p] / self.b * self.chunk + inner * self.b + c[self.p] % self.b
    }

    /// How many elements from value `j` of position `q` lie next to each other in the panel.
    fn contiguous(&self, q: usize, j: usize) -> usize {
        match (q == self.p, self.b) {
            (true, 1) if self.chunk == 1 => usize::MAX,
            (true, b) => b - j % b,
            (false, 1) if self.stride[q] == 1 => usize::MAX,
            _ => 1,
        }
    }
}

/// One tile's packed box of an array of `T` with shape `S`, blocked along position `P` by `B`
/// (constants, so a place is shifts and adds).
pub struct Panel<'p, T, S, const P: usize, const B: usize> {
    /// The box; empty when nothing was packed, so that every read misses.
    data: &'p [T],
    origin: [usize; 3],
    /// The box's extent per position.
    ext: [usize; 3],
    /// The array's dims.
    dims: [usize; 3],
    stride: [usize; 3],
    chunk: usize,
    _shape: std::marker::PhantomData<S>,
}

impl<'p, T: Pod, S: Shape, const P: usize, const B: usize> Panel<'p, T, S, P, B> {
    fn empty(dims: [usize; 3]) -> Self {
        Panel {
            data: &[],
            origin: [0; 3],
            ext: [0; 3],
            dims,
            stride: [0; 3],
            chunk: 0,
            _shape: std::marker::PhantomData,
        }
    }

    /// The walk of a read over a staged loop of `count` iterations, which reads `first` in
    /// the first and `last` in the last, where the counters put it at box coordinates `c` in
    /// the first, advancing by one along position `kpos` (if any) each iteration: each read
    /// takes `W` neighbours along the last position. `None` unless the panel holds every
    /// element read, and those are the elements of the box at the counters' places.
    #[allow(clippy::too_many_arguments)] // the read's two ends, its place, and its shape
    #[inline(always)]
    pub fn walk<V, const TR: bool, const W: usize>(
        &self,
        _view: &V,
        (first, last): (S, S),
        c: [usize; 3],
        (kpos, count): (Option<usize>, usize),
        _f: Checker<'_, TR>,
        _lanes: Lanes<W>,
    ) -> Option<Walk<'p, T, W>> {
        let end = count.checked_sub(1)?;
        let mut c_end = c;
        if let Some(k) = kpos {
            c_end[k] = c[k].checked_add(end)?;
        }
        let inside = |c: [usize; 3]| (0..S::RANK).all(|p| c[p] < self.ext[p]);
        let lanes = W - 1;
        let last_p = S::RANK - 1;
        let ok = self.runs::<W>(c[last_p])
            && inside(c)
            && inside(c_end)
            && c_end[last_p] + lanes < self.ext[last_p]
            && self.holds::<TR>(first, c, lanes)
            && self.holds::<TR>(last, c_end, lanes);
        let (start, stop) = (self.flat(c), self.flat(c_end));
        let step = match kpos {
            Some(k) => self.step_along(k)?,
            None => 0,
        };
        // The places between are `start + i * step`: the last must end inside the data.
        let fits = stop.checked_add(W).is_some_and(|e| e <= self.data.len());
        (ok && fits && start + end * step == stop).then(|| Walk {
            // `start` is below `stop + W`, which `fits` holds within the data.
            first: self.data.as_ptr().wrapping_add(start),
            step,
            end,
            _panel: std::marker::PhantomData,
        })
    }

    /// Whether `W` lanes from last-position coordinate `c` are neighbours in the panel.
    #[inline(always)]
    fn runs<const W: usize>(&self, c: usize) -> bool {
        let last = S::RANK - 1;
        match (W, P == last, B > 1) {
            (1, ..) => true,
            (_, true, true) => c % B + W <= B,
            (_, true, false) => self.chunk == 1,
            (_, false, true) => false,
            (_, false, false) => self.stride[last] == 1,
        }
    }

    /// How far apart the places of neighbours along position `k` are, unless the blocking
    /// splits that position.
    #[inline(always)]
    fn step_along(&self, k: usize) -> Option<usize> {
        match (k == P, B > 1) {
            (true, true) => None,
            (true, false) => Some(self.chunk),
            (false, _) => Some(self.stride[k] * B.max(1)),
        }
    }

    /// Whether `index` is the element at `c`, and (unless `TR`) it and the one `more` after
    /// it along the last position lie in the array.
    #[inline(always)]
    fn holds<const TR: bool>(&self, index: S, c: [usize; 3], more: usize) -> bool {
        let i = index.extents();
        let mut same = true;
        for p in 0..S::RANK {
            same &= i[p] == self.origin[p].wrapping_add(c[p]);
        }
        if TR || !same {
            return same;
        }
        let last = S::RANK - 1;
        (0..S::RANK).all(|p| i[p] < self.dims[p]) && i[last] + more < self.dims[last]
    }

    /// The place of box coordinates `c`.
    #[inline(always)]
    fn flat(&self, c: [usize; 3]) -> usize {
        let inner = c[0] * self.stride[0] + c[1] * self.stride[1] + c[2] * self.stride[2];
        let b = B.max(1);
        c[P] / b * self.chunk + inner * b + c[P] % b
    }
}

/// A read's places in a panel over the staged loop: `step` apart, `W` neighbours each, for
/// iterations up to `end` (all checked when the panel granted it).
#[derive(Clone, Copy, Debug)]
pub struct Walk<'p, T, const W: usize> {
    /// The first iteration's place.
    first: *const T,
    step: usize,
    end: usize,
    _panel: std::marker::PhantomData<&'p [T]>,
}

impl<T: Copy, const W: usize> Walk<'_, T, W> {
    /// Iteration `kc`'s element (a walk of one lane).
    #[inline(always)]
    pub fn at(&self, kc: usize) -> T {
        self.run(kc)[0]
    }

    /// Iteration `kc`'s element, unclamped.
    ///
    /// # Safety
    ///
    /// `kc` is below the iteration count the walk was made for (`Panel::walk`'s `count`).
    #[inline(always)]
    pub unsafe fn at_unchecked(&self, kc: usize) -> T {
        // SAFETY: the caller keeps `kc <= end`, as `run_unchecked` needs.
        unsafe { self.run_unchecked(kc)[0] }
    }

    /// Iteration `kc`'s `W` elements, unclamped: the staged loop's own count, which the loop
    /// keeps below the walk's count, needs no clamp.
    ///
    /// # Safety
    ///
    /// `kc` is below the iteration count the walk was made for (`Panel::walk`'s `count`).
    #[inline(always)]
    pub unsafe fn run_unchecked(&self, kc: usize) -> [T; W] {
        // SAFETY: `Panel::walk` made this walk only where `first + end * step + W` is at most
        // the panel's end, and the caller keeps `kc <= end`; `[T; W]` has `T`'s alignment.
        unsafe { self.first.add(kc * self.step).cast::<[T; W]>().read() }
    }

    /// Iteration `kc`'s `W` elements.
    #[inline(always)]
    pub fn run(&self, kc: usize) -> [T; W] {
        // SAFETY: `Panel::walk` made this walk only where `first + end * step + W` is at most
        // the panel's end, and `kc` is clamped to `end`; `[T; W]` has `T`'s alignment, which
        // an element's address has. The panel outlives the walk (`'p`).
        unsafe {
            self.first
                .add(kc.min(self.end) * self.step)
                .cast::<[T; W]>()
                .read()
        }
    }
}

/// `W` lanes, as a value: `get_run(index, Lanes::<8>)`.
#[derive(Clone, Copy, Debug)]
pub struct Lanes<const W: usize>;

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

impl<T: Pod, S> StagedView for super::views::ArrayViewMut<'_, T, S> {
    type Elem = T;
}

impl<T: Pod, S> StagedView for super::views::DisjointViewMut<'_, T, S> {
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

#[cfg(test)]
#[path = "panel_test.rs"]
mod test;
