//! The iteration space of a `nuwork!` nest on the native engine, cut into a bounded number of
//! tasks (layer 5, see `backend/README.md`). Nothing here scales with the iteration count:
//! a nest of 2^43 rows is as many tasks as one of 16, each task a run of rows.

/// The iterations of `trips` (none of them zero) as at most `want` tasks. The space is a
/// sequence of segments: each point of the outer dimensions times `chunks` pieces of the
/// last one, in row-major order; a task is a contiguous run of segments. The cut depends
/// only on `trips` and `want`, so per-task partials fold the same way on every run.
#[derive(Debug, Clone)]
pub(crate) struct Split<const K: usize> {
    trips: [usize; K],
    /// Pieces per point of the outer dimensions.
    chunks: usize,
    /// Iterations of the last dimension per piece.
    chunk: usize,
    /// Segments in all (outer points times `chunks`): `u128`, since two outer dimensions of
    /// 2^64 - 1 iterations have more points than `usize` holds.
    segments: u128,
    tasks: usize,
}

impl<const K: usize> Split<K> {
    /// The split of `trips` (none of them zero) into at most `want` tasks.
    pub(crate) fn new(trips: [usize; K], want: usize) -> Self {
        let last = trips[K - 1];
        let outer: u128 = trips[..K - 1].iter().map(|&t| t as u128).product();
        let want = want.max(1);
        // Few outer points: several pieces of each row, so every thread gets work.
        let chunks = match usize::try_from(outer) {
            Ok(o) if o < want => want.div_ceil(o).clamp(1, last),
            _ => 1,
        };
        let segments = outer * chunks as u128;
        Split {
            trips,
            chunks,
            chunk: last.div_ceil(chunks),
            segments,
            tasks: usize::try_from(segments.min(want as u128)).unwrap_or(want),
        }
    }

    /// How many tasks.
    pub(crate) fn tasks(&self) -> usize {
        self.tasks
    }

    /// The segments of task `t`, in order: each the index of its first iteration and the end
    /// of its piece of the last dimension.
    pub(crate) fn segments(&self, t: usize) -> impl Iterator<Item = ([usize; K], usize)> + '_ {
        let (lo, hi) = self.range(t);
        (lo..hi).map(move |s| self.segment(s))
    }

    /// The numbers of task `t`'s first segment and of the one after its last.
    fn range(&self, t: usize) -> (u128, u128) {
        let (base, extra) = (
            self.segments / self.tasks as u128,
            self.segments % self.tasks as u128,
        );
        let start = |t: u128| t * base + t.min(extra);
        (start(t as u128), start(t as u128 + 1))
    }

    /// Segment `s`: the outer point `s / chunks` and piece `s % chunks` of its row.
    fn segment(&self, s: u128) -> ([usize; K], usize) {
        let mut idx = [0usize; K];
        let mut o = s / self.chunks as u128;
        for d in (0..K - 1).rev() {
            idx[d] = (o % self.trips[d] as u128) as usize;
            o /= self.trips[d] as u128;
        }
        // The last pieces of a row may be empty (3,077 in 256 pieces of 13): they start at
        // the row's end, never past it, so that `hi - begin` is their length.
        let last = self.trips[K - 1];
        let begin = ((s % self.chunks as u128) as usize)
            .saturating_mul(self.chunk)
            .min(last);
        idx[K - 1] = begin;
        (idx, begin.saturating_add(self.chunk).min(last))
    }
}

#[cfg(test)]
mod tests {
    use super::Split;

    /// Every iteration once, in row-major order within each task and across tasks.
    fn all<const K: usize>(trips: [usize; K], want: usize) -> Vec<[usize; K]> {
        let split = Split::new(trips, want);
        assert!(split.tasks() <= want.max(1));
        let mut out = Vec::new();
        for t in 0..split.tasks() {
            for (idx, hi) in split.segments(t) {
                for last in idx[K - 1]..hi {
                    let mut i = idx;
                    i[K - 1] = last;
                    out.push(i);
                }
            }
        }
        out
    }

    #[test]
    fn every_iteration_once_in_order() {
        for (trips, want) in [([3, 5], 16), ([40, 2], 16), ([1, 100], 7), ([7, 1], 3)] {
            let want_all: Vec<[usize; 2]> = (0..trips[0])
                .flat_map(|i| (0..trips[1]).map(move |j| [i, j]))
                .collect();
            assert_eq!(all(trips, want), want_all, "{trips:?} in {want}");
        }
        assert_eq!(all([10], 4), (0..10).map(|i| [i]).collect::<Vec<_>>());
        let three: Vec<[usize; 3]> = all([2, 3, 4], 5);
        assert_eq!(three.len(), 24);
        assert_eq!(three[23], [1, 2, 3]);
    }

    /// A segment never starts past its end: a native task's privatised copy sizes itself by
    /// `hi - begin` (it underflowed for 3,077 iterations in 256 tasks).
    #[test]
    fn empty_pieces_start_at_the_rows_end() {
        for trips in [[3077usize], [4097], [9247], [1], [255]] {
            let split = Split::new(trips, 256);
            for t in 0..split.tasks() {
                for (idx, hi) in split.segments(t) {
                    assert!(idx[0] <= hi && hi <= trips[0], "{trips:?}: {idx:?}..{hi}");
                }
            }
            assert_eq!(all(trips, 256).len(), trips[0]);
        }
    }

    #[test]
    fn huge_outer_dimensions_stay_a_few_tasks() {
        let split = Split::new([1usize << 43, 1], 16);
        assert_eq!(split.tasks(), 16);
        let first: Vec<_> = split.segments(0).take(2).collect();
        assert_eq!(first, vec![([0, 0], 1), ([1, 0], 1)]);
        let (lo, hi) = split.range(15);
        assert_eq!(hi - lo, 1 << 39);
        assert_eq!(split.segment(hi - 1), ([(1 << 43) - 1, 0], 1));
        let wide = Split::new([usize::MAX, usize::MAX, 3], 256);
        assert_eq!(wide.tasks(), 256);
        let (_, hi) = wide.range(255);
        assert_eq!(
            wide.segment(hi - 1),
            ([usize::MAX - 1, usize::MAX - 1, 0], 3)
        );
    }
}
