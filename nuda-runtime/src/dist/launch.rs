//! One `annot!(nudist; nuwork!(..))` launch (layer 5, see `dist/mod.rs`): what the generated
//! code calls. The distributed arrays the loop indexes are recorded (each rank's block must
//! agree), the outer loop is clipped to this rank's rows, and the ranks meet in *steps*:
//!
//! - one after each scan's first pass, where each rank's prefix starts from the exclusive
//!   scan of the ranks' totals (`rank_start`);
//! - one at the end (`end`), where each rank's reduction partials are gathered in rank order
//!   and folded the same way on every rank, so the result does not depend on MPI's order, and
//!   where every rank learns whether any rank failed.
//!
//! Every step is one allgather of a status and a payload. A rank that fails sends its error
//! in the next step it reaches and takes part in no later step of the launch; every other
//! rank sees the failure in that same step and stops too, with [`Error::OtherRank`]. So an
//! error on one rank reaches all of them and no rank waits for another that has given up.

use super::array::NuDist;
use super::phase::Phase;
use super::World;
use crate::element::{bytes, Stored};
use crate::error::{Error, KernelFault, OutOfBounds, OutsideRows, Result};
use crate::kernel::Reduce;
use crate::shape::Shape;
use nuda_abi::RedOp;
use std::cell::{Cell, RefCell};
use std::ops::Range;

/// A distributed array as the launch saw it.
struct Seen {
    name: &'static str,
    /// A write at a row other than the outer loop's, if the loop has one.
    stray: Option<&'static str>,
    world: World,
    rows: usize,
    owned: Range<usize>,
    held: Range<usize>,
    halo: usize,
    bounds: Vec<usize>,
    /// For an array the loop only reads: whether its exchange is in flight, and its reach
    /// (`dist/phase.rs`).
    read: Option<(bool, Option<usize>)>,
}

/// The state of one `nudist` launch on this rank (one phase of it, where it overlaps an
/// exchange: `dist/phase.rs`).
pub struct DistLaunch {
    at: &'static str,
    seen: RefCell<Vec<Seen>>,
    stopped: Cell<bool>,
    phase: Option<Phase>,
    /// The first error of an exchange completed as an array was recorded.
    kept: RefCell<Option<Error>>,
    /// When the launch began, the step time then, and the programs built or loaded so far,
    /// for `Split::Measured`.
    began: (std::time::Instant, std::time::Duration, u64),
    /// The outer loop's values this rank runs.
    rows: Cell<f64>,
}

thread_local! {
    /// Time this thread spent in launches' steps (waiting for and talking to other ranks).
    static STEPS: Cell<std::time::Duration> = const { Cell::new(std::time::Duration::ZERO) };
}

/// The time this thread's `nudist` launches have spent waiting for other ranks so far: in
/// their collective steps (combining reductions and scans over the ranks, including waiting
/// for slower ranks) and, in a launch that overlaps an exchange (`exchange_start`),
/// completing it. A launch's compute time is its whole time less this.
pub fn step_time() -> std::time::Duration {
    STEPS.with(Cell::get)
}

/// Programs this thread has compiled or loaded from disk so far.
fn builds() -> u64 {
    let s = crate::stats::thread_stats();
    s.programs_compiled + s.programs_from_disk
}

/// The step kinds, checked to agree: a mismatch would be a bug in nuda's generated code.
const SCAN: u8 = 1;
const END: u8 = 2;

impl DistLaunch {
    /// A launch at `at` (`file:line`).
    pub fn new(at: &'static str) -> Self {
        Self::with(at, None)
    }

    /// Phase `phase` of a launch at `at`.
    pub(crate) fn phased(at: &'static str, phase: Phase) -> Self {
        Self::with(at, Some(phase))
    }

    fn with(at: &'static str, phase: Option<Phase>) -> Self {
        DistLaunch {
            at,
            seen: RefCell::new(Vec::new()),
            stopped: Cell::new(false),
            phase,
            kept: RefCell::new(None),
            began: (std::time::Instant::now(), step_time(), builds()),
            rows: Cell::new(0.0),
        }
    }

    /// Whether an array read now completes its exchange in flight: in every phase but the
    /// first, which decides whether to overlap it.
    pub(crate) fn settles(&self) -> bool {
        self.phase.as_ref().is_none_or(|p| p.index > 0)
    }

    /// Whether this phase runs nothing (the first phase of a launch that waits for its
    /// exchange before any row): the generated code skips its launch, so that it makes no
    /// collective step (a scan's) that the other phases would repeat.
    pub fn idle(&self) -> bool {
        self.phase
            .as_ref()
            .is_some_and(|p| p.index == 0 && p.mode() == super::phase::Mode::Settle)
    }

    /// Completes an exchange through `settle`, keeping its first error for the launch's end
    /// step (so that every rank still reaches it) and its wait out of the measured compute.
    pub(crate) fn settle(&self, settle: impl FnOnce() -> Result<()>) {
        let began = std::time::Instant::now();
        if let Err(e) = settle() {
            self.kept.borrow_mut().get_or_insert(e);
        }
        STEPS.with(|t| t.set(t.get() + began.elapsed()));
    }

    /// Records a distributed array the loop indexes, and its stray write if it has one.
    pub(crate) fn record<T: Stored, S: Shape>(
        &self,
        name: &'static str,
        a: &NuDist<T, S>,
        stray: Option<&'static str>,
        read: Option<(bool, Option<usize>)>,
    ) {
        self.seen.borrow_mut().push(Seen {
            read,
            name,
            stray,
            world: a.world().clone(),
            rows: a.dims().extents()[0],
            owned: a.rows(),
            held: a.held(),
            halo: a.halo(),
            bounds: a.bounds().to_vec(),
        });
    }

    /// The world of the loop's distributed arrays, if it has any; an error if they are split
    /// differently (several worlds, or first dims that differ).
    fn world(&self) -> Result<Option<(World, Range<usize>)>> {
        let seen = self.seen.borrow();
        let Some(first) = seen.first() else {
            return Ok(None);
        };
        if let Some(s) = seen.iter().find(|s| s.stray.is_some()) {
            return Err(super::comm::dist_error(
                &format!("annot!(nudist; ..) at {}", self.at),
                format!("`{}` is a distributed array, and the loop writes it at `{}`, whose first index is not the outer loop's variable: a rank may write only the rows it owns (a write to a halo row stays on that rank, and the owner's value replaces it at the next exchange), so the result would differ from plain Rust; nothing ran; index its first dimension by the outer loop's variable, or write into an array every rank holds whole", s.name, s.stray.unwrap_or_default()),
            ));
        }
        for s in seen.iter().skip(1) {
            if !s.world.same(&first.world) || s.rows != first.rows {
                return Err(super::comm::dist_error(
                    &format!("annot!(nudist; ..) at {}", self.at),
                    format!("`{}` has {} rows and `{}` {}; the distributed arrays of one loop must be split alike: give them the same first dimension and world", first.name, first.rows, s.name, s.rows),
                ));
            }
            if s.bounds != first.bounds {
                return Err(super::comm::dist_error(
                    &format!("annot!(nudist; ..) at {}", self.at),
                    format!("`{}` and `{}` are split differently over the ranks (rows from {:?} and from {:?}); nothing ran; rebalance them with the same Split", first.name, s.name, &first.bounds[..first.bounds.len() - 1], &s.bounds[..s.bounds.len() - 1]),
                ));
            }
        }
        Ok(Some((first.world.clone(), first.owned.clone())))
    }

    /// The outer loop's range `start..end` (`..=end` when `inclusive`) cut to this rank's
    /// rows, as the inclusive bounds `lo..=hi` (`1..=0` where the rank runs none, so that a
    /// range up to its type's maximum keeps its last value); a step keeps the values the
    /// whole loop would take, and must be positive (a `nudist` loop counts up through blocks
    /// of rows). Values before the first row go to rank 0 and values past the last row to the
    /// last rank, so that an index out of the arrays' rows is the launch's bounds error there,
    /// as in one process, and no iteration is dropped. Without distributed arrays, the whole
    /// range (every rank runs all of it).
    pub fn clip<I: RowIndex>(
        &self,
        start: I,
        end: I,
        inclusive: bool,
        step: Option<i128>,
    ) -> Result<(I, I)> {
        let step = step.unwrap_or(1);
        if step <= 0 {
            return Err(super::comm::dist_error(
                &format!("annot!(nudist; ..) at {}", self.at),
                format!("the outer loop steps by {step}; a nudist loop's outer loop counts up through the ranks' blocks of rows, so step by a positive value (reverse the index instead)"),
            ));
        }
        let world = self.world()?;
        if let Some(p) = &self.phase {
            // The first phase decides, from its views, how the launch runs its rows.
            p.decide(self.seen.borrow().iter().filter_map(|s| s.read));
        }
        let (lo, hi) = match world {
            None => (i128::MIN, i128::MAX),
            Some((world, owned)) => {
                let (first, last) = (world.rank() == 0, world.rank() + 1 == world.size());
                let lo = if first {
                    i128::MIN
                } else {
                    owned.start as i128
                };
                let hi = if last { i128::MAX } else { owned.end as i128 };
                let window = self
                    .phase
                    .as_ref()
                    .map(|p| p.window(owned.start, owned.end));
                let (a, b) = window.unwrap_or((lo, hi));
                (lo.max(a), hi.min(b))
            }
        };
        let (s, e) = (start.to_i128(), end.to_i128() + i128::from(inclusive));
        // The first value at or after `lo` that the stepped loop takes.
        let from = if s >= lo {
            s
        } else {
            s + (lo - s + step - 1) / step * step
        };
        let to = e.min(hi);
        if from >= to {
            return Ok((I::from_i128(1), I::from_i128(0)));
        }
        self.rows.set(((to - from + step - 1) / step) as f64);
        Ok((I::from_i128(from), I::from_i128(to - 1)))
    }

    /// The world, when the loop is distributed over more than one rank and no rank stopped.
    fn live(&self) -> Option<World> {
        let w = self.world().ok().flatten()?.0;
        (w.size() > 1 && !self.stopped.get()).then_some(w)
    }

    /// One step: every rank's payload, in rank order, once every rank is known to have
    /// succeeded; else this rank's own error, or the first failed rank's.
    fn step(&self, kind: u8, mine: Result<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
        let Some(world) = self.live() else {
            return mine.map(|m| vec![m]);
        };
        let msg = match &mine {
            Ok(p) => [&[kind, 0][..], p].concat(),
            Err(e) => [&[kind, 1][..], e.to_string().as_bytes()].concat(),
        };
        let began = std::time::Instant::now();
        let all = world.comm().all_gather(&msg);
        STEPS.with(|t| t.set(t.get() + began.elapsed()));
        let all = match (mine, all) {
            (Err(e), _) | (Ok(_), Err(e)) => {
                self.stopped.set(true);
                return Err(e);
            }
            (Ok(_), Ok(all)) => all,
        };
        if let Some(q) = all.iter().position(|m| m.get(1) != Some(&0)) {
            self.stopped.set(true);
            let message = String::from_utf8_lossy(all[q].get(2..).unwrap_or_default()).into_owned();
            let (rank, size) = (world.rank(), world.size());
            return Err(Error::OtherRank {
                rank,
                size,
                failed: q,
                message,
            });
        }
        // The same launch on every rank sends the same step with a payload of one layout; a
        // program whose ranks run different launches does not.
        if all.iter().any(|m| m[0] != kind || m.len() != all[0].len()) {
            self.stopped.set(true);
            return Err(super::comm::dist_error(
                &format!("annot!(nudist; ..) at {}", self.at),
                "the ranks reached different collective steps: every rank must run the same nudist launches, and other collective calls, in the same order",
            ));
        }
        Ok(all.into_iter().map(|m| m[2..].to_vec()).collect())
    }

    /// A scan variable's start on this rank: `start` combined with the totals of the ranks
    /// before this one, in rank order; `local` is this rank's total (`None` without
    /// iterations). A rank whose first pass failed goes on to `end`, where it reports.
    pub fn rank_start<T: Reduce>(&self, op: RedOp, start: T, local: Option<T>) -> Result<T> {
        let me = self.live().map_or(0, |w| w.rank());
        let mine = Ok(encode(local.unwrap_or_else(|| T::identity(op))));
        let all = self.step(SCAN, mine)?;
        Ok(all[..me]
            .iter()
            .fold(start, |a, p| T::combine(op, a, value::<T>(p, 0))))
    }

    /// The end of the launch: `done` is how it went on this rank, `payload` its partials.
    /// Every rank's payload, in rank order.
    pub fn end(&self, done: Result<()>, payload: Payload) -> Result<Vec<Payload>> {
        // Described before it is sent: the other ranks report this rank's words, with the
        // global index and what this rank holds.
        let kept = self.kept.borrow_mut().take().map_or(Ok(()), Err);
        let done = done.and(kept).map_err(|e| self.described(e));
        let mine = done.map(|()| payload.0);
        let Some(phase) = &self.phase else {
            let all = self.step(END, mine)?;
            return Ok(all.into_iter().map(Payload).collect());
        };
        // The first phases meet no other rank: the last one sends what they kept.
        if !phase.last() {
            phase.shared.carry.defer(mine);
            return Ok(Vec::new());
        }
        let (mine, parts) = match phase.shared.carry.gather(mine) {
            Ok((p, k)) => (Ok(p), k),
            Err(e) => (Err(e), 1),
        };
        let all = self.step(END, mine)?;
        let chunk = |p: &Vec<u8>| p.len() / parts;
        Ok((all.iter())
            .flat_map(|p| p.chunks(chunk(p).max(1)).map(|c| Payload(c.to_vec())))
            .collect())
    }

    /// This launch's error on this rank, with where the rank is and, for an index into a
    /// distributed array, the global index and dims.
    pub fn finish(&self, done: Result<()>) -> Result<()> {
        if let (Ok(()), Ok(Some((world, _)))) = (&done, self.world()) {
            let (began, steps, built) = self.began;
            let waited = step_time().saturating_sub(steps);
            let secs = began.elapsed().saturating_sub(waited).as_secs_f64();
            // A launch that built its program measures the compiler, not the device.
            if builds() == built {
                world.meter().record(self.rows.get(), secs);
            }
        }
        match done {
            Ok(()) => Ok(()),
            Err(e) => Err(self.described(e)),
        }
    }

    /// `e` with where this rank is, once (an error already described, or another rank's,
    /// stays as it is).
    fn described(&self, e: Error) -> Error {
        let described = matches!(e, Error::OtherRank { .. } | Error::Rank { .. });
        let (Ok(Some((world, owned))), false) = (self.world(), described) else {
            return e;
        };
        let seen = self.seen.borrow();
        let error = Box::new(globalise(e, &seen));
        let mut held = format!("rows {owned:?}");
        for s in seen.iter() {
            held.push_str(&format!(", `{}` rows {:?} with its halo", s.name, s.held));
        }
        Error::Rank {
            rank: world.rank(),
            size: world.size(),
            held,
            error,
        }
    }
}

/// An out-of-range index into a distributed array's local array, made global again: past
/// the global dims, an `OutOfBounds` with the global index and dims; within them, a row
/// outside this rank's rows and halo.
fn globalise(e: Error, seen: &[Seen]) -> Error {
    let Error::Kernel {
        kernel,
        device,
        location,
        fault,
    } = e
    else {
        return e;
    };
    let fault = match fault {
        KernelFault::OutOfBounds(b) => match seen.iter().find(|s| s.name == b.array) {
            Some(s) => global_fault(*b, s),
            None => KernelFault::OutOfBounds(b),
        },
        other => other,
    };
    Error::Kernel {
        kernel,
        device,
        location,
        fault,
    }
}

/// The fault of local out-of-range access `b` into distributed array `s`, globally.
fn global_fault(mut b: OutOfBounds, s: &Seen) -> KernelFault {
    let first = b.index.first().and_then(|i| local_row(i));
    let Some(local) = first else {
        return KernelFault::OutOfBounds(Box::new(b));
    };
    let row = local.wrapping_add(s.held.start as i128);
    let held_rows = b.dims[0];
    b.index[0] = row.to_string();
    b.dims[0] = s.rows as u64;
    // The row is the cause only where it is in the array, not kept here, and every other
    // coordinate is within its dim (`a[(i, m)]` faults on its column, on any rank).
    let others_in =
        (b.index.iter().zip(&b.dims).skip(1)).all(|(i, &d)| i.parse::<u64>().is_ok_and(|v| v < d));
    let kept = (0..held_rows as i128).contains(&local);
    if !(0..s.rows as i128).contains(&row) || kept || !others_in {
        return KernelFault::OutOfBounds(Box::new(b));
    }
    KernelFault::OutsideRows(Box::new(OutsideRows {
        array: b.array,
        index: b.index,
        dims: b.dims,
        kept: (s.held.start as u64, s.held.end as u64),
        halo: s.halo as u64,
    }))
}

/// A local row as the fault wrote it: a signed index, or a `usize` that wrapped below 0.
fn local_row(text: &str) -> Option<i128> {
    match text.parse::<i128>().ok()? {
        v if v > i64::MAX as i128 => Some(v - (1i128 << 64)),
        v => Some(v),
    }
}

/// Bytes of reduction partials and flags, in the order the generated code puts them.
#[derive(Default)]
pub struct Payload(Vec<u8>);

impl Payload {
    /// An empty payload.
    pub fn new() -> Self {
        Payload(Vec::new())
    }

    /// Appends a reduction variable's partial.
    pub fn put<T: Reduce>(&mut self, v: T) {
        self.0.extend(encode(v));
    }

    /// Appends a flag.
    pub fn flag(&mut self, set: bool) {
        self.0.push(u8::from(set));
    }
}

fn encode<T: Reduce>(v: T) -> Vec<u8> {
    bytes(&[v.to_dev()]).into_owned()
}

fn value<T: Reduce>(p: &[u8], at: usize) -> T {
    let n = size_of::<T::Dev>();
    match super::decode::<T::Dev>(&p[at..at + n]) {
        Ok(v) => T::from_dev(v[0]),
        Err(_) => unreachable!("nuda bug: a payload too short"),
    }
}

/// Folds the value at byte `*at` of every rank's payload, in rank order from the identity,
/// the same on every rank; `*at` moves past it.
pub fn fold<T: Reduce>(op: RedOp, all: &[Payload], at: &mut usize) -> T {
    let v = all.iter().fold(T::identity(op), |a, p| {
        T::combine(op, a, value::<T>(&p.0, *at))
    });
    *at += size_of::<T::Dev>();
    v
}

/// Whether any rank set the flag at byte `*at`; `*at` moves past it.
pub fn any(all: &[Payload], at: &mut usize) -> bool {
    let set = all.iter().any(|p| p.0.get(*at) == Some(&1));
    *at += 1;
    set
}

/// The integer types an outer loop may count in: clipping works in `i128`.
pub trait RowIndex: Copy {
    /// The value, widened.
    fn to_i128(self) -> i128;
    /// A value in range, narrowed.
    fn from_i128(v: i128) -> Self;
    /// The value after, saturating (an inclusive bound made exclusive).
    fn next(self) -> Self;
}

macro_rules! row_index {
    ($($t:ty),*) => {$(
        impl RowIndex for $t {
            fn to_i128(self) -> i128 {
                self as i128
            }
            fn from_i128(v: i128) -> $t {
                v.clamp(<$t>::MIN as i128, <$t>::MAX as i128) as $t
            }
            fn next(self) -> $t {
                self.saturating_add(1)
            }
        }
    )*};
}

row_index!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
