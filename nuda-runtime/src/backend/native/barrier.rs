//! Work-group barriers on the native engine. Running a group's work-items one after another
//! cannot honour `barrier()`, so a kernel that calls it runs each work-item of a group as a
//! stackful coroutine (corosensei), all of a group's coroutines on the one thread that runs
//! the group: `barrier()` suspends the work-item, and once every work-item of the group has
//! suspended, the group resumes them in order. A switch costs nanoseconds where the thread per
//! work-item this replaces cost a spawn and a futex wake per barrier.
//!
//! A work-item that panics poisons the group: its siblings, resumed from their barrier, panic
//! too, and the launch reports the first panic. So does one that finishes while siblings wait
//! on a barrier it skipped (which `#[nukernel]` refuses at compile time, but hand-written
//! native kernels may do).

use super::{GroupShape, WorkItem};
use crate::fault::Faults;
use corosensei::stack::DefaultStack;
use corosensei::{CoroutineResult, ScopedCoroutine, ScopedCoroutineRef, Yielder};
use std::cell::RefCell;

/// Why a work-item resumed from a barrier may not go on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Resume {
    /// Every work-item reached the barrier.
    Go,
    /// A sibling finished without reaching it.
    Skipped,
    /// A sibling panicked.
    Panicked,
}

/// A work-item's handle on its group's barrier.
pub struct GroupBarrier<'y> {
    yielder: &'y Yielder<Resume, ()>,
}

/// What a work-item that waits on a barrier some sibling has skipped panics with.
const SKIPPED: &str = "nuda: a work-item finished without reaching a `barrier()` its \
    work-group waits on; every work-item must reach each barrier";

impl GroupBarrier<'_> {
    /// Waits until every work-item of the group has reached this barrier.
    #[track_caller]
    pub fn wait(&self) {
        match self.yielder.suspend(()) {
            Resume::Go => {}
            Resume::Skipped => panic!("{SKIPPED}"),
            Resume::Panicked => panic!("nuda: another work-item of this group panicked"),
        }
    }
}

/// A work-item's stack: ample for a kernel body and the formatting of a panic message.
const STACK: usize = 256 << 10;

thread_local! {
    /// Coroutine stacks, kept per thread: mapping them afresh per group would cost more than
    /// the group's work.
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

type Item<'a, 's> = ScopedCoroutine<'a, Resume, (), bool, &'s mut DefaultStack>;
type ItemRef<'r, 's> = ScopedCoroutineRef<'r, Resume, (), bool, &'s mut DefaultStack>;

/// One group: a coroutine per work-item, on this thread's stacks. A work-item's panic is
/// recorded in `faults`.
pub(crate) fn run_group_with_barrier(
    shape: &GroupShape,
    g: usize,
    faults: &Faults,
    kernel: &(impl Fn(&WorkItem, &GroupBarrier) + Sync),
) {
    let items: Vec<WorkItem> = shape.items(g).collect();
    let mut stacks = STACKS.with(|s| std::mem::take(&mut *s.borrow_mut()));
    while stacks.len() < shape.group_size() {
        match DefaultStack::new(STACK) {
            Ok(s) => stacks.push(s),
            Err(e) => panic!("nuda: cannot map a work-item stack for a barrier kernel: {e}"),
        }
    }
    let coroutines: Vec<Item> = items
        .iter()
        .zip(stacks.iter_mut())
        .map(|(w, stack)| {
            ScopedCoroutine::with_stack(stack, move |y: &Yielder<Resume, ()>, _| {
                faults.catch(|| kernel(w, &GroupBarrier { yielder: y }))
            })
        })
        .collect();
    enter(coroutines, Vec::new());
    STACKS.with(|s| *s.borrow_mut() = stacks);
}

/// Opens each coroutine's scope in turn (corosensei lends a scoped coroutine only inside its
/// scope), then runs the group in the innermost.
fn enter<'s>(mut rest: Vec<Item<'_, 's>>, open: Vec<ItemRef<'_, 's>>) {
    match rest.pop() {
        None => schedule(open),
        Some(next) => next.scope(|r| {
            let mut open = open;
            open.push(r);
            enter(rest, open)
        }),
    }
}

/// Runs every work-item to its next barrier, round after round, until all have finished.
/// A round in which some finish and others wait, or one panics, resumes the waiting ones
/// with the reason they cannot go on.
fn schedule(mut items: Vec<ItemRef<'_, '_>>) {
    // `enter` opened the scopes last work-item first.
    items.reverse();
    let mut live: Vec<usize> = (0..items.len()).collect();
    let (mut finished, mut panicked) = (false, false);
    let mut resume = Resume::Go;
    while !live.is_empty() {
        live.retain(|&k| match items[k].as_mut().resume(resume) {
            CoroutineResult::Yield(()) => true,
            CoroutineResult::Return(p) => {
                (finished, panicked) = (true, panicked || p);
                false
            }
        });
        resume = match (panicked, finished) {
            (true, _) => Resume::Panicked,
            (false, true) => Resume::Skipped,
            (false, false) => Resume::Go,
        };
    }
}
