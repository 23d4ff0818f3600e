//! Work-group barriers on the native engine. Running a group's work-items one after another
//! cannot honour `barrier()`, so kernels that call it run each work-item of a group on its own
//! thread, meeting at a `GroupBarrier`. A work-item that panics poisons the barrier, so its
//! siblings stop waiting and the launch reports the panic instead of hanging. So does one that
//! finishes while siblings wait on a barrier it skipped (which `#[nukernel]` refuses at
//! compile time, but hand-written native kernels may do).

use super::{guarded, NativeLaunch, WorkItem};
use crate::error::Result;
use crate::fault::Faults;
use crate::launch::Timing;
use rayon::prelude::*;
use std::sync::{Condvar, Mutex, PoisonError};

/// A barrier for the work-items of one work-group.
pub struct GroupBarrier {
    size: usize,
    state: Mutex<State>,
    turn: Condvar,
}

#[derive(Default)]
struct State {
    waiting: usize,
    generation: u64,
    poisoned: bool,
    /// Work-items that have finished the kernel: no barrier may be waited on after one has.
    left: usize,
}

/// What a work-item that waits on a barrier some sibling has skipped panics with.
const SKIPPED: &str = "nuda: a work-item finished without reaching a `barrier()` its \
    work-group waits on; every work-item must reach each barrier";

impl GroupBarrier {
    fn new(size: usize) -> Self {
        GroupBarrier {
            size,
            state: Mutex::default(),
            turn: Condvar::new(),
        }
    }

    /// Waits until every work-item of the group has reached this barrier.
    #[track_caller]
    pub fn wait(&self) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if st.left > 0 {
            drop(st);
            self.poison();
            panic!("{SKIPPED}");
        }
        let generation = st.generation;
        st.waiting += 1;
        if st.waiting == self.size {
            st.waiting = 0;
            st.generation += 1;
            self.turn.notify_all();
            return;
        }
        while st.generation == generation && !st.poisoned {
            st = self.turn.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
        if st.poisoned {
            let skipped = st.left > 0;
            drop(st);
            match skipped {
                true => panic!("{SKIPPED}"),
                false => panic!("nuda: another work-item of this group panicked"),
            }
        }
    }

    /// A work-item has finished the kernel. Siblings waiting on a barrier now wait for one
    /// that will never come: they are woken to report it rather than hang.
    fn leave(&self) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.left += 1;
        if st.waiting > 0 {
            st.poisoned = true;
            self.turn.notify_all();
        }
    }

    fn poison(&self) {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .poisoned = true;
        self.turn.notify_all();
    }
}

impl NativeLaunch {
    /// Runs a kernel that calls `barrier()`: each work-item of a group on its own thread.
    pub fn run_with_barrier(
        self,
        kernel: impl Fn(&WorkItem, &GroupBarrier) + Sync,
    ) -> Result<Timing> {
        self.run_with_barrier_recording(&Faults::new(), kernel)
    }

    /// As `run_with_barrier`, with the faults the kernel records in `faults`.
    pub fn run_with_barrier_recording(
        self,
        faults: &Faults,
        kernel: impl Fn(&WorkItem, &GroupBarrier) + Sync,
    ) -> Result<Timing> {
        let (shape, device) = self.shape()?;
        guarded(&self.name, device.as_ref(), faults, || {
            (0..shape.groups()).into_par_iter().for_each(|g| {
                faults.catch(|| run_group(&shape, g, faults, &kernel));
            });
        })
    }
}

/// One group, a thread per work-item. A work-item that panics poisons the barrier (its
/// siblings then panic too, and the first panic is the one recorded).
fn run_group(
    shape: &super::GroupShape,
    g: usize,
    faults: &Faults,
    kernel: &(impl Fn(&WorkItem, &GroupBarrier) + Sync),
) {
    let barrier = GroupBarrier::new(shape.group_size());
    let items: Vec<WorkItem> = shape.items(g).collect();
    std::thread::scope(|s| {
        for w in &items {
            let barrier = &barrier;
            let spawned = std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn_scoped(s, move || {
                    if faults.catch(|| kernel(w, barrier)) {
                        barrier.poison();
                    } else {
                        barrier.leave();
                    }
                });
            if let Err(e) = spawned {
                barrier.poison();
                panic!("nuda: cannot start a work-item thread for a barrier kernel: {e}");
            }
        }
    });
}
