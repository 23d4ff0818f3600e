//! Autotuning (`tune(a, b, ..)` in an annotation or a work-group size): `nuwork!` expands
//! once per candidate, and a [`TuneSite`] picks which one runs. Layer 5, with the launch.
//!
//! - `NUDA_TUNE` unset: the winner stored for this device, driver and call site, else the
//!   repository's seed for this class of device (`seed.rs`, `defaults.json`), else the
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
//!
//! A search times the candidates in the seed's order, best expected first, and with
//! `NUDA_TUNE_BUDGET=seconds` times no new candidate once that much time has passed (the best
//! of those timed wins, and the report names those left out). On the static lab
//! (`nuda::lab`), where nothing runs, a search ranks the candidates by their static bound
//! instead, and keeps the ranking as a seed (`take_learned`).

mod seed;
mod store;
#[cfg(test)]
mod test;
mod values;

pub use seed::{take_learned, Seed};
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

/// On a GPU, a candidate's runs go on past `REPS` until they have lasted this long (at most
/// `MAX_REPS` runs): each candidate is timed right after its build, during which an idle GPU
/// lowers its clocks (an H200's SM clock: 345 MHz idle, 1,980 under load), and three runs of
/// a millisecond can all fall before they rise again. The candidate built first, or the
/// shortest, would lose for it.
const GPU_WINDOW: std::time::Duration = std::time::Duration::from_millis(200);
const MAX_REPS: usize = 2_000;

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
        if let Some(k) = stored {
            return f(TuneStep::Run(k));
        }
        // Only without a stored winner: the seed for this device, the lab's ranking.
        let device = crate::current_device()?;
        let info = device.info();
        let seed = seed::find(&seed::class(info), self.site, self.labels);
        match mode {
            TuneMode::Use => f(TuneStep::Run(seed.map_or(0, |s| s.winner))),
            _ if info.platform == "CUDA lab" => self.rank(f),
            _ => self.tune(&key, seed, f),
        }
    }

    /// On the static lab: every candidate built and read, ranked by its static bound (the
    /// best first, kept as a seed), and the best one run last.
    fn rank(&self, f: &mut dyn FnMut(TuneStep) -> Result<()>) -> Result<()> {
        let mut bounds = Vec::with_capacity(self.labels.len());
        for k in 0..self.labels.len() {
            let b = f(TuneStep::Run(k)).map(|()| crate::backend::cuda::lab::last_bound());
            bounds.push(b.ok().flatten().unwrap_or(-1.0));
        }
        let mut order: Vec<usize> = (0..bounds.len()).collect();
        order.sort_by(|&a, &b| bounds[b].total_cmp(&bounds[a]));
        let text: Vec<String> = (order.iter())
            .map(|&k| format!("`{}` {:.0}%", self.labels[k], 100.0 * bounds[k].max(0.0)))
            .collect();
        eprintln!(
            "nuda tune: {} on the static lab: {}",
            self.site,
            text.join(", ")
        );
        seed::learn(Seed {
            devices: vec!["H100".into(), "H200".into()],
            site: seed::normalize(self.site),
            labels: self.labels.iter().map(|l| l.to_string()).collect(),
            order: order.clone(),
            winner: order[0],
            source: format!("static lab sm_90, bounds best first: {}", text.join(", ")),
        });
        f(TuneStep::Run(order[0]))
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

    /// Times the candidates in the seed's order until the budget is spent, keeps the
    /// winner, and leaves the winner's result.
    fn tune(
        &self,
        key: &str,
        seed: Option<&Seed>,
        f: &mut dyn FnMut(TuneStep) -> Result<()>,
    ) -> Result<()> {
        let budget = crate::config::config().tune_budget.clone()?;
        let start = Instant::now();
        f(TuneStep::Save)?;
        let mut times: Vec<Option<f64>> = vec![None; self.labels.len()];
        let mut reference = false;
        let mut skipped = Vec::new();
        for k in seed::order(seed, self.labels.len()) {
            let spent = budget.is_some_and(|b| start.elapsed().as_secs_f64() > b);
            if spent && times.iter().any(Option::is_some) {
                skipped.push(k);
                continue;
            }
            let t = self.candidate(k, &mut reference, f);
            if let Err(e) = &t {
                eprintln!(
                    "nuda tune: {}: dropped `{}`: {e}",
                    self.site, self.labels[k]
                );
            }
            times[k] = t.ok();
        }
        if !skipped.is_empty() {
            let names: Vec<String> = skipped
                .iter()
                .map(|&k| format!("`{}`", self.labels[k]))
                .collect();
            eprintln!(
                "nuda tune: {}: NUDA_TUNE_BUDGET spent, not timed: {}",
                self.site,
                names.join(", ")
            );
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
        self.report(winner, &times, &skipped);
        f(TuneStep::Restore)?;
        f(TuneStep::Run(winner))
    }

    /// One line on stderr per search, as a build log would: what won, and every time.
    fn report(&self, winner: usize, times: &[Option<f64>], skipped: &[usize]) {
        let device = crate::current_device().map(|d| d.info().name.clone());
        let all: Vec<String> = (self.labels.iter().zip(times).enumerate())
            .map(|(k, (l, t))| match t {
                Some(s) => format!("`{l}` {:.3} ms", s * 1e3),
                None if skipped.contains(&k) => format!("`{l}` not timed"),
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
        let window = match crate::current_device()?.info().kind {
            crate::DeviceKind::Gpu => GPU_WINDOW,
            _ => std::time::Duration::ZERO,
        };
        best_run(window, || f(TuneStep::Run(k))).map(|(best, _)| best)
    }
}

/// The best of `REPS` runs of `run` in seconds, and how many ran: more while the runs have
/// lasted less than `window`, up to `MAX_REPS`.
pub(crate) fn best_run(
    window: std::time::Duration,
    mut run: impl FnMut() -> Result<()>,
) -> Result<(f64, usize)> {
    let (start, mut done, mut best) = (Instant::now(), 0, f64::INFINITY);
    while done < REPS || (start.elapsed() < window && done < MAX_REPS) {
        let t = Instant::now();
        run()?;
        best = best.min(t.elapsed().as_secs_f64());
        done += 1;
    }
    Ok((best, done))
}
