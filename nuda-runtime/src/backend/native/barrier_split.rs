//! Work-groups of split barrier kernels on the native engine (layer 1). `#[nukernel]` splits a
//! body that calls `barrier()` into loops over the group's work-items between its barriers
//! (nuda-transforms `barrier_split`), so a group is one call of the kernel's closure with the group,
//! which walks its work-items as often as it needs, on the thread that runs the group.

use super::{GroupShape, WorkItem};

/// One work-group of a launch, as a split kernel's closure sees it.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    first: WorkItem,
    size: usize,
}

impl Group {
    pub(crate) fn new(shape: &GroupShape, linear: usize) -> Group {
        let first = shape.items(linear).next().unwrap_or(WorkItem {
            dims: shape.dims,
            global_id: [0; 3],
            local_id: [0; 3],
            group_id: [0; 3],
            global_size: shape.global,
            local_size: shape.local,
        });
        Group {
            first,
            size: shape.group_size(),
        }
    }

    /// The number of work-items.
    #[inline]
    pub fn len(&self) -> usize {
        self.size
    }

    /// Whether the group has no work-items (never, for a launch's groups).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// The first work-item: local ids 0. Sizes and group ids are every work-item's.
    #[inline]
    pub fn first(&self) -> WorkItem {
        self.first
    }

    /// The work-items in OpenCL's order, last dimension fastest, each with its index in
    /// that order.
    #[inline]
    pub fn items(&self) -> Items {
        self.items_from(0, self.first.local_size[0])
    }

    /// The work-items whose `local_id(0)` is `op`-related to `bound` (`op` 0: `<`, 1: `<=`,
    /// 2: `==`), with their indexes: a contiguous run, since dimension 0 moves slowest. A
    /// split kernel whose piece is one `if local_id(0) < bound { .. }` walks only these.
    #[inline]
    pub fn items_where(&self, op: u8, bound: usize) -> Items {
        let n0 = self.first.local_size[0];
        let (lo, hi) = match op {
            0 => (0, bound.min(n0)),
            1 => (0, bound.saturating_add(1).min(n0)),
            _ => (bound.min(n0), bound.saturating_add(1).min(n0)),
        };
        self.items_from(lo, hi)
    }

    fn items_from(&self, lo: usize, hi: usize) -> Items {
        let [_, l1, l2] = self.first.local_size;
        Items {
            first: self.first,
            local: [lo, 0, 0],
            k: lo * l1 * l2,
            left: (hi - lo.min(hi)) * l1 * l2,
            flat: l1 == 1 && l2 == 1,
        }
    }
}

/// The work-items of a group, counted like an odometer: no division per work-item. The
/// loop-carried state is a few counters, and each work-item a fresh value, so that the
/// compiler keeps in registers what the kernel reads of it and drops the rest.
#[derive(Debug, Clone)]
pub struct Items {
    first: WorkItem,
    local: [usize; 3],
    k: usize,
    left: usize,
    /// A 1-D group: only dimension 0 moves.
    flat: bool,
}

impl Iterator for Items {
    type Item = (usize, WorkItem);

    #[inline]
    fn next(&mut self) -> Option<(usize, WorkItem)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let (f, l, k) = (&self.first, self.local, self.k);
        let w = WorkItem {
            local_id: l,
            global_id: [0, 1, 2].map(|d| f.global_id[d] + l[d]),
            ..*f
        };
        self.k += 1;
        if self.flat {
            self.local[0] += 1;
        } else {
            self.step();
        }
        Some((k, w))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl Items {
    fn step(&mut self) {
        let size = self.first.local_size;
        self.local[2] += 1;
        if self.local[2] == size[2] {
            self.local[2] = 0;
            self.local[1] += 1;
            if self.local[1] == size[1] {
                self.local[1] = 0;
                self.local[0] += 1;
            }
        }
    }
}

impl ExactSizeIterator for Items {}
