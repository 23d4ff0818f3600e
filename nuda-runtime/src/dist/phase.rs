//! The phases of a `nudist` launch that overlaps a halo exchange (layer 5, see
//! `dist/mod.rs`). When an array the loop reads has an exchange in flight
//! (`exchange_start`), the launch runs in three phases: the rows that need no halo row, then,
//! once the exchange is complete, the rows next to the top of the block, then those next to
//! the bottom. Each phase is a launch of the nest over its rows, so it splits the rows only
//! where that cannot change a bit of the result:
//!
//! - every array with an exchange in flight is read only at rows `i + c` or `i - c` of the
//!   outer loop's variable `i`, with constant `c` (the *reach* is the largest `c`), so the
//!   rows at least the reach away from the block's edges read none of its halo rows;
//! - the loop has no scan and no push (their order is the rows' order);
//! - every reduction regroups exactly (integers, flags, and `min`/`max` of floats; a float
//!   sum or product would round differently when its rows are split). One exception: where
//!   a float `min`/`max` over both zeros is a zero, its sign may depend on the grouping, as
//!   OpenCL's `fmax` and Rust's `max` leave it unspecified.
//!
//! The first phase's views say which arrays are in flight and their reach; its clip decides
//! the [`Mode`]: the launch runs whole (nothing in flight, or one rank), overlaps, or runs no
//! rows in the first phase and all of them in a second, after the exchange completes. The
//! decision rests on what every rank knows alike, so every rank runs the same phases. The
//! ranks still meet once per launch: the phases before the last keep their reduction
//! partials (or their error) in a [`Carry`], and the last one's end step sends them all,
//! which every rank folds in rank order, then phase order.

use super::launch::DistLaunch;
use crate::error::{Error, Result};
use crate::kernel::Reduce;
use nuda_abi::RedOp;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The phases before the last: their payloads, or the first error, for the last one's step.
#[derive(Default)]
pub(crate) struct Carry {
    payloads: RefCell<Vec<Vec<u8>>>,
    failed: RefCell<Option<Error>>,
}

impl Carry {
    /// Keeps a phase's outcome for the last phase.
    pub fn defer(&self, done: Result<Vec<u8>>) {
        match done {
            Ok(p) => self.payloads.borrow_mut().push(p),
            Err(e) => {
                self.failed.borrow_mut().get_or_insert(e);
            }
        }
    }

    /// The last phase's outcome with the earlier ones': every payload in phase order, and how
    /// many there are; or the first error.
    pub fn gather(&self, done: Result<Vec<u8>>) -> Result<(Vec<u8>, usize)> {
        if let Some(e) = self.failed.borrow_mut().take() {
            return Err(e);
        }
        let mut all = std::mem::take(&mut *self.payloads.borrow_mut());
        all.push(done?);
        Ok((all.concat(), all.len()))
    }
}

thread_local! {
    static OVERLAPS: Cell<u64> = const { Cell::new(0) };
}

/// How many `nudist` launches on this thread so far ran in phases around an exchange in
/// flight (the rows that need no halo row first).
pub fn overlaps() -> u64 {
    OVERLAPS.with(Cell::get)
}

/// How a launch runs its rows, decided in its first phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Undecided,
    /// Nothing in flight: one phase, all rows.
    Whole,
    /// The interior, then the top and bottom strips of this reach.
    Overlap(usize),
    /// No rows, then, after the exchange completes, all of them.
    Settle,
}

/// What a launch's phases share: the mode, and the earlier phases' outcomes.
#[derive(Default)]
pub(crate) struct Shared {
    mode: Cell<Option<Mode>>,
    pub carry: Carry,
}

/// A `nudist` launch's phases, in the generated code: `while let Some(l) = plan.next(at)`.
pub struct Plan {
    exact: bool,
    next: Cell<u8>,
    shared: Rc<Shared>,
}

/// One phase of a launch.
#[derive(Clone)]
pub(crate) struct Phase {
    pub index: u8,
    /// Whether the launch's reductions regroup exactly.
    pub exact: bool,
    pub shared: Rc<Shared>,
}

impl Phase {
    pub fn mode(&self) -> Mode {
        self.shared.mode.get().unwrap_or(Mode::Undecided)
    }

    /// Decides the mode from the first phase's arrays: per array read, whether its exchange
    /// is in flight, and its reach.
    pub fn decide(&self, reads: impl Iterator<Item = (bool, Option<usize>)>) -> Mode {
        if self.mode() != Mode::Undecided {
            return self.mode();
        }
        let pending: Vec<Option<usize>> = reads.filter(|r| r.0).map(|r| r.1).collect();
        let reach = pending.iter().try_fold(0, |m, r| r.map(|r| m.max(r)));
        let mode = match (pending.is_empty(), reach) {
            (true, _) => Mode::Whole,
            (false, Some(r)) if self.exact => Mode::Overlap(r),
            _ => Mode::Settle,
        };
        if let Mode::Overlap(_) = mode {
            OVERLAPS.with(|o| o.set(o.get() + 1));
        }
        self.shared.mode.set(Some(mode));
        mode
    }

    /// Whether this phase is the launch's last, whose end step the ranks meet in.
    pub fn last(&self) -> bool {
        match self.mode() {
            Mode::Overlap(_) => self.index == 2,
            Mode::Settle => self.index == 1,
            Mode::Whole | Mode::Undecided => true,
        }
    }

    /// The global rows `lo..hi` (`i128`, unbounded at the ends) this phase may run, for a
    /// rank owning `s..e`: for reach `r`, the interior `s + r..max(s + r, e - r)`, then
    /// everything before it, then everything after.
    pub fn window(&self, s: usize, e: usize) -> (i128, i128) {
        let all = (i128::MIN, i128::MAX);
        match (self.mode(), self.index) {
            (Mode::Overlap(r), k) => {
                let a = s as i128 + r as i128;
                let b = a.max(e as i128 - r as i128);
                [(a, b), (i128::MIN, a), (b, i128::MAX)][usize::from(k.min(2))]
            }
            (Mode::Settle, 0) => (0, 0),
            _ => all,
        }
    }
}

impl Plan {
    /// The plan of a launch whose reductions regroup exactly (`exact`), or not.
    pub fn new(exact: bool) -> Plan {
        Plan {
            exact,
            next: Cell::new(0),
            shared: Rc::default(),
        }
    }

    /// The next phase's launch at `at` (`file:line`), if the launch has one more.
    pub fn next(&self, at: &'static str) -> Option<DistLaunch> {
        let index = self.next.get();
        let mode = self.shared.mode.get().unwrap_or(Mode::Undecided);
        let more = match mode {
            Mode::Undecided => index == 0,
            Mode::Whole => false,
            Mode::Settle => index < 2,
            Mode::Overlap(_) => index < 3,
        };
        if !more {
            return None;
        }
        self.next.set(index + 1);
        let (exact, shared) = (self.exact, self.shared.clone());
        Some(DistLaunch::phased(
            at,
            Phase {
                index,
                exact,
                shared,
            },
        ))
    }
}

/// Whether combining `op` over `T` gives the same bits however the values are grouped.
pub fn exact<T: Reduce>(op: RedOp, _: &T) -> bool {
    T::regroups_exactly(op)
}

#[cfg(test)]
mod test {
    use super::*;

    fn phase(index: u8, mode: Mode) -> Phase {
        let shared: Rc<Shared> = Rc::default();
        shared.mode.set(Some(mode));
        Phase {
            index,
            exact: true,
            shared,
        }
    }

    #[test]
    fn the_phases_cover_the_rows_once() {
        for (s, e, r) in [(10, 20, 1), (10, 12, 1), (10, 11, 2), (0, 0, 1), (5, 9, 0)] {
            let w: Vec<_> = (0..3)
                .map(|k| phase(k, Mode::Overlap(r)).window(s, e))
                .collect();
            assert_eq!((w[1].1, w[0].0), (w[0].0, s as i128 + r as i128));
            assert_eq!(w[0].1, w[2].0, "{w:?}");
            assert!(w[0].0 <= w[0].1);
        }
        assert_eq!(phase(0, Mode::Overlap(1)).window(10, 20), (11, 19));
        assert_eq!(phase(0, Mode::Settle).window(10, 20), (0, 0));
        assert_eq!(
            phase(1, Mode::Settle).window(10, 20),
            (i128::MIN, i128::MAX)
        );
    }

    #[test]
    fn a_launch_overlaps_only_what_it_can_split_exactly() {
        let decide = |exact: bool, reads: &[(bool, Option<usize>)]| {
            let p = Phase {
                index: 0,
                exact,
                shared: Rc::default(),
            };
            p.decide(reads.iter().copied())
        };
        assert_eq!(
            decide(true, &[(true, Some(1)), (false, None)]),
            Mode::Overlap(1)
        );
        assert_eq!(
            decide(true, &[(true, Some(1)), (true, Some(2))]),
            Mode::Overlap(2)
        );
        assert_eq!(decide(true, &[(true, None)]), Mode::Settle, "unknown reach");
        assert_eq!(
            decide(false, &[(true, Some(1))]),
            Mode::Settle,
            "a float sum"
        );
        assert_eq!(
            decide(true, &[(false, Some(1))]),
            Mode::Whole,
            "nothing in flight"
        );
        assert!(!exact(RedOp::Add, &1.0f32) && exact(RedOp::Max, &1.0f32));
        assert!(exact(RedOp::Add, &1u64) && exact(RedOp::Or, &true));
    }

    #[test]
    fn a_plan_runs_the_phases_its_mode_asks_for() {
        let count = |mode: Option<Mode>| {
            let plan = Plan::new(true);
            let mut k = 0;
            while let Some(l) = plan.next("here") {
                k += 1;
                if let Some(m) = mode {
                    plan.shared.mode.set(Some(m));
                }
                drop(l);
            }
            k
        };
        assert_eq!(count(Some(Mode::Whole)), 1);
        assert_eq!(count(Some(Mode::Settle)), 2);
        assert_eq!(count(Some(Mode::Overlap(1))), 3);
        assert_eq!(count(None), 1, "undecided after the first phase: no more");
    }

    #[test]
    fn the_last_phase_sends_every_phase_or_the_first_error() {
        let c = Carry::default();
        c.defer(Ok(vec![1, 2]));
        c.defer(Ok(vec![3, 4]));
        assert_eq!(
            c.gather(Ok(vec![5, 6])).ok(),
            Some((vec![1, 2, 3, 4, 5, 6], 3))
        );
        c.defer(Err(crate::dist::comm::dist_error("here", "boom")));
        c.defer(Ok(vec![0]));
        assert!(c.gather(Ok(vec![0])).is_err());
    }
}
