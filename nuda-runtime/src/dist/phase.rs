//! The phases of a `nudist` launch that overlaps a halo exchange (layer 5, see
//! `dist/mod.rs`). When an array the loop reads has an exchange in flight
//! (`exchange_start`), the launch runs in three phases: the rows that need no halo row, then,
//! once the exchange is complete, the rows next to the top of the block, then those next to
//! the bottom. Each phase is a launch of its own with its own collective end step, so it
//! runs only where splitting the rows cannot change a bit of the result:
//!
//! - every array with an exchange in flight is read only at rows `i + c` or `i - c` of the
//!   outer loop's variable `i`, with constant `c` (the *reach* is the largest `c`), so the
//!   rows at least the reach away from the block's edges read none of its halo rows;
//! - the loop has no scan and no push (their order is the rows' order);
//! - every reduction regroups exactly (integers, flags, and `min`/`max` of floats; a float
//!   sum or product would round differently when its rows are split).
//!
//! Otherwise, and on one rank, the exchange completes first and the launch runs whole.
//!
//! The ranks still meet once per launch: the first two phases keep their reduction partials
//! (or their error) in a [`Carry`], and the last phase's end step sends all three, which every
//! rank folds in rank order, then phase order.

use super::launch::DistLaunch;
use crate::error::{Error, Result};
use crate::kernel::Reduce;
use nuda_abi::RedOp;
use std::cell::RefCell;
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
    static OVERLAPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many `nudist` launches on this thread so far ran in phases around an exchange in
/// flight (the rows that need no halo row first).
pub fn overlaps() -> u64 {
    OVERLAPS.with(std::cell::Cell::get)
}

/// Whether a launch overlaps its exchanges, and its reach; made before the phases.
pub struct Plan {
    reach: Option<usize>,
    carry: Rc<Carry>,
}

/// Which rows a phase runs, given the reach `r` and the rank's rows `s..e`: the interior
/// `s + r..max(s + r, e - r)`, then everything before it, then everything after.
#[derive(Clone)]
pub(crate) struct Phase {
    pub index: u8,
    pub reach: usize,
    pub carry: Rc<Carry>,
}

/// The index of the last phase, whose end step the ranks meet in.
pub(crate) const LAST: u8 = 2;

impl Phase {
    /// The global rows `lo..hi` (`i128`, unbounded at the ends) this phase may run, for a
    /// rank owning `s..e`.
    pub fn window(&self, s: usize, e: usize) -> (i128, i128) {
        let a = s as i128 + self.reach as i128;
        let b = a.max(e as i128 - self.reach as i128);
        match self.index {
            0 => (a, b),
            1 => (i128::MIN, a),
            _ => (b, i128::MAX),
        }
    }
}

impl Plan {
    /// The plan of a launch whose reductions regroup exactly (`exact`) and which reads, per
    /// array, whether its exchange is in flight and its reach (`None`: an index whose row is
    /// not the outer variable plus a constant).
    pub fn new(exact: bool, reads: &[(bool, Option<usize>)]) -> Plan {
        let pending = reads.iter().filter(|r| r.0);
        let reach = pending
            .clone()
            .map(|r| r.1)
            .try_fold(0, |m, r| r.map(|r| m.max(r)));
        let any = pending.count() > 0;
        let reach = reach.filter(|_| exact && any);
        if reach.is_some() {
            OVERLAPS.with(|o| o.set(o.get() + 1));
        }
        Plan {
            reach,
            carry: Rc::default(),
        }
    }

    /// How many phases the launch runs: 3 when it overlaps, else 1.
    pub fn phases(&self) -> u8 {
        if self.reach.is_some() {
            3
        } else {
            1
        }
    }

    /// Phase `index`'s launch at `at` (`file:line`).
    pub fn launch(&self, at: &'static str, index: u8) -> DistLaunch {
        let carry = self.carry.clone();
        let phase = self.reach.map(|reach| Phase {
            index,
            reach,
            carry,
        });
        DistLaunch::phased(at, phase)
    }
}

/// Whether combining `op` over `T` gives the same bits however the values are grouped.
pub fn exact<T: Reduce>(op: RedOp, _: &T) -> bool {
    T::regroups_exactly(op)
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn the_phases_cover_the_rows_once() {
        for (s, e, reach) in [(10, 20, 1), (10, 12, 1), (10, 11, 2), (0, 0, 1), (5, 9, 0)] {
            let carry: Rc<Carry> = Rc::default();
            let phase = |index| Phase {
                index,
                reach,
                carry: Rc::clone(&carry),
            };
            let w: Vec<_> = (0..3).map(|index| phase(index).window(s, e)).collect();
            assert_eq!((w[1].1, w[0].0), (w[0].0, s as i128 + reach as i128));
            assert_eq!(w[0].1, w[2].0, "{w:?}");
            assert!(w[0].0 <= w[0].1);
        }
        let carry = Rc::default();
        assert_eq!(
            Phase {
                index: 0,
                reach: 1,
                carry
            }
            .window(10, 20),
            (11, 19)
        );
    }

    #[test]
    fn a_launch_overlaps_only_what_it_can_split_exactly() {
        assert_eq!(
            Plan::new(true, &[(true, Some(1)), (false, None)]).phases(),
            3
        );
        assert_eq!(
            Plan::new(true, &[(true, Some(1)), (true, Some(2))]).reach,
            Some(2)
        );
        assert_eq!(
            Plan::new(true, &[(true, None)]).phases(),
            1,
            "unknown reach"
        );
        assert_eq!(
            Plan::new(false, &[(true, Some(1))]).phases(),
            1,
            "a float sum"
        );
        assert_eq!(
            Plan::new(true, &[(false, Some(1))]).phases(),
            1,
            "nothing in flight"
        );
        assert!(!exact(RedOp::Add, &1.0f32) && exact(RedOp::Max, &1.0f32));
        assert!(exact(RedOp::Add, &1u64) && exact(RedOp::Or, &true));
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
