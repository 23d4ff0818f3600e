//! Work-groups of split barrier kernels on the native engine (layer 1). `#[nukernel]` splits a
//! body that calls `barrier()` into loops over the group's work-items between its barriers
//! (nuda-transforms `barrier_split`), so a group is one call of the kernel's closure with the group,
//! which walks its work-items as often as it needs, on the thread that runs the group.

use super::{GroupShape, WorkItem};
use std::ops::Range;

/// One work-group of a launch, as a split kernel's closure sees it.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    first: WorkItem,
    size: usize,
    /// Only dimension 0 of the group has more than one work-item.
    flat: bool,
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
        let [_, l1, l2] = shape.local;
        Group {
            first,
            size: shape.group_size(),
            flat: l1 == 1 && l2 == 1,
        }
    }

    /// Runs `kernel` on the group. A 1-D group gets a copy of the kernel in which `flat` is a
    /// constant, so that its loops over work-items are plain counts LLVM can vectorise (the
    /// kernel is inlined here, so the copy costs code size, not a call).
    #[inline(always)]
    pub(crate) fn run(&self, kernel: &impl Fn(&Group)) {
        match self.flat {
            true => kernel(&Group {
                flat: true,
                ..*self
            }),
            false => kernel(self),
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

    /// The indexes of the group's work-items in OpenCL's order (last dimension fastest):
    /// a plain range, so that the loop a split kernel runs over it is one LLVM can keep in
    /// registers and vectorise, which an odometer iterator with a 1-D flag was not.
    #[inline]
    pub fn walk(&self) -> Range<usize> {
        0..self.size
    }

    /// The indexes of the work-items whose `local_id(0)` is `op`-related to `bound` (`op` 0:
    /// `<`, 1: `<=`, 2: `==`): a contiguous run, since dimension 0 moves slowest. A split
    /// kernel whose piece is one `if local_id(0) < bound { .. }` walks only these.
    #[inline]
    pub fn walk_where(&self, op: u8, bound: usize) -> Range<usize> {
        let [n0, l1, l2] = self.first.local_size;
        let (lo, hi) = match op {
            0 => (0, bound.min(n0)),
            1 => (0, bound.saturating_add(1).min(n0)),
            _ => (bound.min(n0), bound.saturating_add(1).min(n0)),
        };
        lo * l1 * l2..hi.max(lo) * l1 * l2
    }

    /// The work-item of index `k` (below `len()`): a fresh value, so that the compiler keeps in
    /// registers what the kernel reads of it and drops the rest. A 1-D group's is `k` itself;
    /// a 2-D or 3-D group divides in 32 bits (a barrier group has at most 1024 work-items).
    #[inline(always)]
    pub fn item(&self, k: usize) -> WorkItem {
        let f = &self.first;
        let local_id = match self.flat {
            true => [k, 0, 0],
            false => {
                let [_, l1, l2] = f.local_size.map(|v| v as u32);
                let k = k as u32;
                [k / (l1 * l2), k / l2 % l1, k % l2].map(|v| v as usize)
            }
        };
        WorkItem {
            local_id,
            global_id: [0, 1, 2].map(|d| f.global_id[d] + local_id[d]),
            ..*f
        }
    }

    /// The work-items with their indexes, in `walk`'s order.
    pub fn items(&self) -> impl Iterator<Item = (usize, WorkItem)> + '_ {
        self.walk().map(|k| (k, self.item(k)))
    }

    /// The work-items `walk_where` names, with their indexes.
    pub fn items_where(
        &self,
        op: u8,
        bound: usize,
    ) -> impl Iterator<Item = (usize, WorkItem)> + '_ {
        self.walk_where(op, bound).map(|k| (k, self.item(k)))
    }
}
