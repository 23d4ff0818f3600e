//! Cells that each thread running a native launch's groups has to itself (layer 1): a
//! `nulocal!` array's per-thread storage and a privatised array's per-worker copies. A set of
//! cells has one owner thread for the launch, never two, so that code which keeps a view of
//! them on its thread may read and write them with plain loads and stores, which LLVM may
//! vectorise (`ArrayViewMut::disjoint`).

use std::sync::{Mutex, OnceLock};

/// Threads outside rayon's pool (a backend's own) that get slots of their own; later ones
/// get cells from the spill list, one box per thread.
pub(crate) const FOREIGN: usize = 64;

/// The calling thread, as the address of a thread-local: no two live threads share one, and
/// that is all an owner needs (a dead thread touches no cells). Cheaper than `ThreadId`,
/// which clones the thread's handle.
fn me() -> usize {
    thread_local!(static ME: u8 = const { 0 });
    ME.with(|m| std::ptr::from_ref(m) as usize)
}

/// Cells per thread, each set with one owner: a rayon worker's slot by its index, unless a
/// worker of the same index in another pool took it first; else one of `FOREIGN` slots; else
/// a box in the spill list.
pub(crate) struct OwnedCells<C> {
    /// rayon's workers, by their index in the pool.
    workers: usize,
    /// Each slot's owner (`me()`): the first thread that asked for it.
    owners: Box<[OnceLock<usize>]>,
    cells: Box<[OnceLock<Box<[C]>>]>,
    /// Cells of threads that found no slot of their own: boxes that are only ever added, so
    /// that a slice handed out stays where it is until `self` drops.
    spill: Mutex<Vec<(usize, Box<[C]>)>>,
}

impl<C> OwnedCells<C> {
    /// No cells yet, with slots for the workers of the pool the caller runs in.
    pub(crate) fn new() -> Self {
        let workers = rayon::current_num_threads();
        OwnedCells {
            workers,
            owners: (0..workers + FOREIGN).map(|_| OnceLock::new()).collect(),
            cells: (0..workers + FOREIGN).map(|_| OnceLock::new()).collect(),
            spill: Mutex::new(Vec::new()),
        }
    }

    /// The calling thread's cells, which no other thread is ever given, made by `make` at its
    /// first call (then `true`).
    #[inline]
    pub(crate) fn mine(&self, make: impl FnOnce() -> Box<[C]>) -> (&[C], bool) {
        let Some(k) = self.slot() else {
            return self.spilled(make);
        };
        let mut fresh = false;
        let cells = self.cells[k].get_or_init(|| {
            fresh = true;
            make()
        });
        (cells, fresh)
    }

    /// The calling thread's slot: a rayon worker's own unless another thread of the same
    /// index (in another pool) took it first, else a foreign slot it owns or claims; `None`
    /// when every slot it may take has another owner.
    fn slot(&self) -> Option<usize> {
        let me = me();
        let mine = |k: usize| *self.owners[k].get_or_init(|| me) == me;
        let worker = rayon::current_thread_index().filter(|&k| k < self.workers);
        worker
            .filter(|&k| mine(k))
            .or_else(|| (self.workers..self.workers + FOREIGN).find(|&k| mine(k)))
    }

    /// The calling thread's cells in the spill list, made by `make` at its first call.
    #[cold]
    fn spilled(&self, make: impl FnOnce() -> Box<[C]>) -> (&[C], bool) {
        let me = me();
        let mut spill = self.spill.lock().unwrap_or_else(|e| e.into_inner());
        let (at, fresh) = match spill.iter().position(|(t, _)| *t == me) {
            Some(at) => (at, false),
            None => {
                spill.push((me, make()));
                (spill.len() - 1, true)
            }
        };
        let cells: *const [C] = &*spill[at].1;
        // SAFETY: boxes are only pushed onto the list, never removed, replaced or dropped
        // before `self`; a box's heap slice does not move when the list grows. So the slice
        // lives as long as `&self`, and only shared references to it are made.
        (unsafe { &*cells }, fresh)
    }

    /// Runs `f` on every thread's cells (after the launch, to merge them).
    pub(crate) fn each(&self, mut f: impl FnMut(&[C])) {
        self.cells.iter().filter_map(|c| c.get()).for_each(|c| f(c));
        let spill = self.spill.lock().unwrap_or_else(|e| e.into_inner());
        spill.iter().for_each(|(_, c)| f(c));
    }

    /// The number of spilled threads.
    #[cfg(test)]
    pub(crate) fn spilled_threads(&self) -> usize {
        self.spill.lock().map(|s| s.len()).unwrap_or(0)
    }
}
