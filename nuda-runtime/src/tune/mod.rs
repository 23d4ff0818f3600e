//! Autotuning (`tune(a, b, ..)` in an annotation or a work-group size): `nuwork!` expands
//! once per candidate, and a [`TuneSite`] picks which one runs. Layer 5, with the launch.
//!
//! - `NUDA_TUNE` unset: the winner stored for this device, driver and call site, else the
//!   first candidate. Nothing is timed.
//! - `NUDA_TUNE=1`: as unset, but a site with no winner yet is tuned on this launch.
//! - `NUDA_TUNE=force`: every launch of a tuned site is tuned again.
//! - `NUDA_TUNE=0`: always the first candidate (the untuned program).
//!
//! A tuning run saves the arrays the kernel writes, then per candidate: restores them, runs
//! it once (which builds it) and compares what it wrote with the first working candidate's
//! (exactly for integers; floats within a relative 1e-5, since candidates may reassociate),
//! then times it. A candidate that fails or differs is dropped and reported on stderr. The
//! arrays are restored once more and the winner runs, so the caller sees one ordinary launch.
//! Winners persist in `tune.json` beside the program cache (`NUDA_CACHE_DIR`), keyed by
//! device name, platform, driver version, call site, the candidates' text and the dims of
//! the arrays the kernel writes (the problem's size: a winner at 256x256 need not win at
//! 1024x1024, so each size is tuned on its own); with `NUDA_CACHE=0` they last for the
//! process only.

mod store;
#[cfg(test)]
mod test;
mod values;

pub use values::{Saved, Tunable, TuneSame};

use crate::error::Result;
use std::cell::Cell;
use std::time::Instant;

thread_local! {
    /// A mode set by `with_tune_mode` for this thread, over `NUDA_TUNE`.
    static MODE: Cell<Option<TuneMode>> = const { Cell::new(None) };
    /// The candidate the last tuned launch on this thread ran, for `last_tuned`.
    static LAST: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// The candidate (its annotation text, as `16, 16; dmine(8, 1), vector(16)`) that the last
/// tuned `nuwork!` on this thread ran: its stored winner, the winner of the search it just
/// made, or its first candidate. `None` before any tuned launch. A program logs it to say
/// which chain it tuned to on this device; the bench names its tuned rows with it.
pub fn last_tuned() -> Option<&'static str> {
    LAST.with(Cell::get)
}

/// Runs `f` with tuned call sites on this thread picking as `mode` says, whatever
/// `NUDA_TUNE` is: the bench's tuned and untuned rows, or a program's own tuning pass.
pub fn with_tune_mode<R>(mode: TuneMode, f: impl FnOnce() -> R) -> R {
    /// Puts the previous mode back, also when `f` unwinds.
    struct Restore(Option<TuneMode>);
    impl Drop for Restore {
        fn drop(&mut self) {
            MODE.with(|m| m.set(self.0));
        }
    }
    let _restore = Restore(MODE.with(|m| m.replace(Some(mode))));
    f()
}

/// The mode in force on this thread.
fn mode() -> Result<TuneMode> {
    match MODE.with(Cell::get) {
        Some(m) => Ok(m),
        None => crate::config::config().tune.clone(),
    }
}

/// What `NUDA_TUNE` asks for: a setting, read with the others in `config` (layer 0).
pub use crate::config::TuneMode;

/// One step the tuner asks of a tuned `nuwork!`'s expansion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TuneStep {
    /// Launch candidate `k`.
    Run(usize),
    /// Save the arrays the kernel writes.
    Save,
    /// Put the saved arrays back.
    Restore,
    /// Keep what the kernel wrote, as the reference of the comparisons.
    Keep,
    /// Compare what the kernel wrote with the reference: `Err` if it differs.
    Check,
}

/// A tuned `nuwork!` call site: its location and its candidates' annotation text.
pub struct TuneSite {
    site: &'static str,
    labels: &'static [&'static str],
}

/// Timed runs per candidate; the best counts.
const REPS: usize = 3;

impl TuneSite {
    /// A call site at `site` (`file:line:column`) with these candidates, first the default.
    pub const fn new(site: &'static str, labels: &'static [&'static str]) -> TuneSite {
        TuneSite { site, labels }
    }

    /// Runs the candidate `NUDA_TUNE` and the stored winners pick for a launch writing
    /// arrays of these `dims`; `f` performs each step.
    pub fn run(
        &self,
        dims: &[Vec<usize>],
        f: &mut dyn FnMut(TuneStep) -> Result<()>,
    ) -> Result<()> {
        // The last candidate run is the one whose result stays (a search runs its winner last).
        let labels = self.labels;
        let f = &mut |s: TuneStep| {
            if let TuneStep::Run(k) = s {
                LAST.with(|l| l.set(labels.get(k).copied()));
            }
            f(s)
        };
        let mode = mode()?;
        let key = self.key(dims)?;
        let stored = match mode {
            TuneMode::Off => return f(TuneStep::Run(0)),
            TuneMode::Force => None,
            TuneMode::Use | TuneMode::Tune => store::winner(&key, self.labels),
        };
        match (stored, mode) {
            (Some(k), _) => f(TuneStep::Run(k)),
            (None, TuneMode::Use) => f(TuneStep::Run(0)),
            _ => self.tune(&key, f),
        }
    }

    /// The key of this site on the current device, for a launch writing arrays of `dims`.
    fn key(&self, dims: &[Vec<usize>]) -> Result<String> {
        let dev = crate::current_device()?;
        let i = dev.info();
        let size = |d: &Vec<usize>| d.iter().map(usize::to_string).collect::<Vec<_>>();
        let sizes: Vec<String> = dims.iter().map(|d| size(d).join("x")).collect();
        Ok(format!(
            "{} | {} | {} | {} | {} | writes {}",
            i.name,
            i.platform,
            i.driver_version,
            self.site,
            self.labels.join(" / "),
            sizes.join(", ")
        ))
    }

    /// Times every candidate, keeps the winner, and leaves the winner's result.
    fn tune(&self, key: &str, f: &mut dyn FnMut(TuneStep) -> Result<()>) -> Result<()> {
        f(TuneStep::Save)?;
        let mut times: Vec<Option<f64>> = Vec::with_capacity(self.labels.len());
        let mut reference = false;
        for k in 0..self.labels.len() {
            let t = self.candidate(k, &mut reference, f);
            if let Err(e) = &t {
                eprintln!(
                    "nuda tune: {}: dropped `{}`: {e}",
                    self.site, self.labels[k]
                );
            }
            times.push(t.ok());
        }
        let best = (0..times.len())
            .filter_map(|k| times[k].map(|t| (k, t)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((winner, _)) = best else {
            // No candidate works: the first one's own error, as an untuned launch gives.
            f(TuneStep::Restore)?;
            return f(TuneStep::Run(0));
        };
        store::record(key, self.labels, winner, &times);
        self.report(winner, &times);
        f(TuneStep::Restore)?;
        f(TuneStep::Run(winner))
    }

    /// One line on stderr per search, as a build log would: what won, and every time.
    fn report(&self, winner: usize, times: &[Option<f64>]) {
        let device = crate::current_device().map(|d| d.info().name.clone());
        let all: Vec<String> = (self.labels.iter().zip(times))
            .map(|(l, t)| match t {
                Some(s) => format!("`{l}` {:.3} ms", s * 1e3),
                None => format!("`{l}` dropped"),
            })
            .collect();
        eprintln!(
            "nuda tune: {} on {}: `{}` wins ({})",
            self.site,
            device.unwrap_or_default(),
            self.labels[winner],
            all.join(", ")
        );
    }

    /// Candidate `k`'s best time in seconds, after checking its result.
    fn candidate(
        &self,
        k: usize,
        reference: &mut bool,
        f: &mut dyn FnMut(TuneStep) -> Result<()>,
    ) -> Result<f64> {
        f(TuneStep::Restore)?;
        f(TuneStep::Run(k))?;
        if *reference {
            f(TuneStep::Check)?;
        } else {
            f(TuneStep::Keep)?;
            *reference = true;
        }
        let mut best = f64::INFINITY;
        for _ in 0..REPS {
            let t = Instant::now();
            f(TuneStep::Run(k))?;
            best = best.min(t.elapsed().as_secs_f64());
        }
        Ok(best)
    }
}
