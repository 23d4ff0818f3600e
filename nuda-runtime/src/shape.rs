//! Shapes of 1-, 2- and 3-D arrays: `usize`, `(usize, usize)`, `(usize, usize, usize)`, used
//! alike for dims and indices. Row-major: the last index varies fastest. Layer 0.

use std::fmt::Debug;

mod sealed {
    /// Only the three tuple shapes exist.
    pub trait Sealed {}
}

/// A shape: the dims of an array, and also the type of an index into it.
pub trait Shape: sealed::Sealed + Copy + Debug + PartialEq + Send + Sync + 'static {
    /// Number of dimensions.
    const RANK: usize;
    /// The extents as a fixed array.
    fn extents(self) -> [usize; 3];
    /// Builds a shape from extents (only the first `RANK` are used).
    fn from_extents(e: [usize; 3]) -> Self;

    /// Dims as a vector, outermost first.
    fn to_vec(self) -> Vec<usize> {
        self.extents()[..Self::RANK].to_vec()
    }

    /// Number of elements, or `None` if it overflows `usize`.
    fn checked_len(self) -> Option<usize> {
        self.extents()[..Self::RANK]
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
    }

    /// The row-major offset of `index`, computed without checking it: the trusted native
    /// path's, where the launch-time proof showed every coordinate in range.
    #[inline(always)]
    fn offset_unchecked(self, index: Self) -> usize {
        let (d, i) = (self.extents(), index.extents());
        (0..Self::RANK).fold(0, |off, k| off * d[k] + i[k])
    }

    /// The row-major offset of `index` in an array of these dims, if every coordinate is in
    /// range.
    #[inline]
    fn offset(self, index: Self) -> Option<usize> {
        let (d, i) = (self.extents(), index.extents());
        let mut off = 0;
        for k in 0..Self::RANK {
            if i[k] >= d[k] {
                return None;
            }
            off = off * d[k] + i[k];
        }
        Some(off)
    }

    /// The index at row-major `offset`.
    fn unflatten(self, mut offset: usize) -> Self {
        let d = self.extents();
        let mut i = [0; 3];
        for k in (0..Self::RANK).rev() {
            i[k] = offset % d[k];
            offset /= d[k];
        }
        Self::from_extents(i)
    }
}

impl sealed::Sealed for usize {}
impl Shape for usize {
    const RANK: usize = 1;
    #[inline]
    fn extents(self) -> [usize; 3] {
        [self, 1, 1]
    }
    fn from_extents(e: [usize; 3]) -> Self {
        e[0]
    }
}

impl sealed::Sealed for (usize, usize) {}
impl Shape for (usize, usize) {
    const RANK: usize = 2;
    #[inline]
    fn extents(self) -> [usize; 3] {
        [self.0, self.1, 1]
    }
    fn from_extents(e: [usize; 3]) -> Self {
        (e[0], e[1])
    }
}

impl sealed::Sealed for (usize, usize, usize) {}
impl Shape for (usize, usize, usize) {
    const RANK: usize = 3;
    #[inline]
    fn extents(self) -> [usize; 3] {
        [self.0, self.1, self.2]
    }
    fn from_extents(e: [usize; 3]) -> Self {
        (e[0], e[1], e[2])
    }
}
