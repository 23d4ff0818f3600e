//! Where a box's elements lie in a panel, and the part of a box inside its array (layer 1, the
//! native engine).

use crate::element::Pod;
use crate::shape::Shape;

/// The part of a box inside an array: per position, its first index and extent.
pub(super) struct Cut {
    pub(super) origin: [usize; 3],
    pub(super) ext: [usize; 3],
}

impl Cut {
    /// The box from `origin` (an index, or below zero as a wrapped `usize`) over `ext`, cut
    /// to `dims`; `None` where nothing is left.
    pub(super) fn new<S: Shape>(
        origin: [usize; 3],
        ext: [usize; 3],
        dims: [usize; 3],
    ) -> Option<Self> {
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
    pub(super) fn copy<T: Pod, S: Shape, const B: usize>(
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
pub(super) struct Layout {
    pub(super) ext: [usize; 3],
    pub(super) p: usize,
    pub(super) b: usize,
    /// Per position but `p`: its step in the inner row-major order (0 at `p`).
    pub(super) stride: [usize; 3],
    /// Elements a block of `b` values of position `p` takes.
    pub(super) chunk: usize,
    pub(super) len: usize,
}

impl Layout {
    /// The layout of a box of extents `ext` blocked along position `p` by `b`; `None` if `p`
    /// is not a position of `S` or the box's size overflows.
    pub(super) fn new<S: Shape>(ext: [usize; 3], p: usize, b: usize) -> Option<Self> {
        if p >= S::RANK {
            return None;
        }
        let mut stride = [0usize; 3];
        let mut inner = 1usize;
        for q in (0..S::RANK).rev().filter(|&q| q != p) {
            stride[q] = inner;
            inner = inner.checked_mul(ext[q])?;
        }
        let b = b.max(1);
        let chunk = inner.checked_mul(b)?;
        Some(Layout {
            ext,
            p,
            b,
            stride,
            chunk,
            len: ext[p].div_ceil(b).checked_mul(chunk)?,
        })
    }

    pub(super) fn flat(&self, c: [usize; 3]) -> usize {
        let inner = c[0] * self.stride[0] + c[1] * self.stride[1] + c[2] * self.stride[2];
        c[self.p] / self.b * self.chunk + inner * self.b + c[self.p] % self.b
    }

    /// How many elements from value `j` of position `q` lie next to each other in the panel.
    pub(super) fn contiguous(&self, q: usize, j: usize) -> usize {
        match (q == self.p, self.b) {
            (true, 1) if self.chunk == 1 => usize::MAX,
            (true, b) => b - j % b,
            (false, 1) if self.stride[q] == 1 => usize::MAX,
            _ => 1,
        }
    }
}
