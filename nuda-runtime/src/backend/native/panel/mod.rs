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

mod layout;
mod pool;
mod probe;
#[cfg(test)]
mod test;

pub(crate) use pool::new_launch;
pub use pool::PanelBuf;
pub use probe::{NoPanel, NoPanelBuf, PackArray, PackOther, Probe, StagedView};

use crate::element::Pod;
use crate::fault::Checker;
use crate::shape::Shape;

/// One tile's packed box of an array of `T` with shape `S`, blocked along position `P` by `B`
/// (constants, so a place is shifts and adds).
pub struct Panel<'p, T, S, const P: usize, const B: usize> {
    /// The box; empty when nothing was packed, so that every read misses.
    pub(super) data: &'p [T],
    pub(super) origin: [usize; 3],
    /// The box's extent per position.
    pub(super) ext: [usize; 3],
    /// The array's dims.
    pub(super) dims: [usize; 3],
    pub(super) stride: [usize; 3],
    pub(super) chunk: usize,
    pub(super) _shape: std::marker::PhantomData<S>,
}

impl<'p, T: Pod, S: Shape, const P: usize, const B: usize> Panel<'p, T, S, P, B> {
    pub(super) fn empty(dims: [usize; 3]) -> Self {
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
        if let Some(k) = kpos.filter(|&k| k < S::RANK) {
            c_end[k] = c[k].checked_add(end)?;
        }
        // Every coordinate inside the box (whose layout did not overflow when packed), so
        // `flat` of either end is below the panel's length.
        let inside = |c: [usize; 3]| (0..S::RANK).all(|p| c[p] < self.ext[p]);
        let last_p = S::RANK - 1;
        let lanes_end = c_end[last_p].checked_add(W - 1)?;
        let ok = kpos.is_none_or(|k| k < S::RANK)
            && self.runs::<W>(c[last_p])
            && inside(c)
            && inside(c_end)
            && lanes_end < self.ext[last_p]
            && self.holds::<TR>(first, c, W - 1)
            && self.holds::<TR>(last, c_end, W - 1);
        if !ok {
            return None;
        }
        let (start, stop) = (self.flat(c), self.flat(c_end));
        let step = match kpos {
            Some(k) => self.step_along(k)?,
            None => 0,
        };
        // The places between are `start + i * step`: the last must end inside the data.
        let fits = stop.checked_add(W).is_some_and(|e| e <= self.data.len());
        let walks = end.checked_mul(step).and_then(|d| start.checked_add(d)) == Some(stop);
        (fits && walks).then(|| Walk {
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
