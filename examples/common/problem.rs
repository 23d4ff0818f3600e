//! What every model problem shares, for its example and for the bench: variants, timing,
//! verification, and the rates they report.

#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One way to run a problem: the base (`nuwork!` only), an annotated version, or a peer.
pub struct Variant<S> {
    /// Shown in tables: `base`, `dmine(4, 4)`.
    pub name: &'static str,
    /// The function in the problem's source, for its line count.
    pub function: &'static str,
    /// Runs once on the calling thread's current device.
    pub run: fn(&mut S) -> nuda::Result<()>,
}

/// Lines of `fn function` in `source`, from its signature to its closing brace: what a NUDA
/// user writes for that variant.
pub fn source_lines(source: &str, function: &str) -> usize {
    let lines: Vec<&str> = source.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains(&format!("fn {function}(")));
    let Some(start) = start else { return 0 };
    let indent = lines[start].len() - lines[start].trim_start().len();
    let end = lines[start..]
        .iter()
        .position(|l| l.trim_end() == format!("{}}}", " ".repeat(indent)))
        .map_or(lines.len(), |e| start + e);
    end - start + 1
}

/// How long timed rounds go on at least when the current device is a GPU, past `reps`, by
/// default (the bench's `--gpu-window-ms`).
///
/// Why: a GPU left idle (while a program builds, or the host checks a result) lowers its
/// clocks, and raises them again only under load. An H200's SM clock reads 345 MHz idle and
/// 1,980 MHz under load (`device/KINDS.md`); in session 39 the bench timed sgemm's GPU chain
/// at 936 µs a run, best of one run right after its build, where ncu, on a later launch of the
/// same kernel in the same process, measured 518 µs at 1.97 GHz. Rounds over a fifth of a
/// second let the clocks rise, and the best round is then one at full speed. CPU engines
/// keep `reps` rounds.
pub const GPU_WINDOW: Duration = Duration::from_millis(200);

/// The most rounds a GPU's window takes: a run of a few microseconds stops here.
const MAX_ROUNDS: u32 = 2_000;

/// The window in use, in microseconds.
static WINDOW_US: AtomicU64 = AtomicU64::new(GPU_WINDOW.as_micros() as u64);

/// Sets the window for this process's later measurements on GPUs.
pub fn set_gpu_window(window: Duration) {
    WINDOW_US.store(window.as_micros() as u64, Ordering::Relaxed);
}

/// Runs `round` `reps` times (at least once), and on a GPU more, until the rounds have lasted
/// the window ([`GPU_WINDOW`] unless [`set_gpu_window`] changed it) or made `MAX_ROUNDS`.
pub fn rounds(reps: u32, mut round: impl FnMut() -> nuda::Result<()>) -> nuda::Result<()> {
    let window = match nuda::current_device()?.info().kind {
        nuda::DeviceKind::Gpu => Duration::from_micros(WINDOW_US.load(Ordering::Relaxed)),
        _ => Duration::ZERO,
    };
    let (start, mut done) = (Instant::now(), 0);
    while done < reps.max(1) || (start.elapsed() < window && done < MAX_ROUNDS) {
        round()?;
        done += 1;
    }
    Ok(())
}

/// Best time of `reps` runs (on a GPU, of as many as [`GPU_WINDOW`] takes), after one run
/// that builds the program and moves the data.
///
/// A run that launches kernels is timed by their summed kernel time (profiling events on
/// OpenCL, the parallel loop on the native engine), so launch overhead and host work are left
/// out, as in NUDA's tables. A run that launches nothing (a CPU library peer) is timed by the
/// wall clock.
pub fn best_time<S>(
    state: &mut S,
    run: fn(&mut S) -> nuda::Result<()>,
    reps: u32,
) -> nuda::Result<Duration> {
    run(state)?;
    let mut best = Duration::MAX;
    rounds(reps, || {
        best = best.min(timed(state, run)?);
        Ok(())
    })?;
    Ok(best)
}

/// One run of a problem on its state.
type Run<S> = fn(&mut S) -> nuda::Result<()>;

/// One timed run: the kernels' time where it launched any, else the wall time.
fn timed<S>(state: &mut S, run: Run<S>) -> nuda::Result<Duration> {
    let (before, t) = (nuda::thread_stats(), Instant::now());
    run(state)?;
    let (wall, launched) = (t.elapsed(), nuda::thread_stats() - before);
    Ok(if launched.launches > 0 {
        launched.kernel_time()
    } else {
        wall
    })
}

/// The best times of `a` and `b` over `reps` rounds, each round one run of `a` then one of
/// `b`: both sample the same stretch of time, so a machine whose speed drifts between
/// minutes (a shared host, clock changes) biases neither side of their ratio.
pub fn best_times_paired<S>(
    state: &mut S,
    (a, b): (Run<S>, Run<S>),
    reps: u32,
) -> nuda::Result<(Duration, Duration)> {
    alternating(state, |s| timed(s, a), |s| timed(s, b), reps)
}

/// The best times of `run` on device `other` (`nuda::with_device`) and on the current
/// device, in alternating rounds as [`best_times_paired`]'s: one variant on two engines.
pub fn best_times_on_two<S>(
    state: &mut S,
    run: Run<S>,
    other: usize,
    reps: u32,
) -> nuda::Result<(Duration, Duration)> {
    let on_other = |s: &mut S| nuda::with_device(other, || timed(s, run))?;
    alternating(state, on_other, |s| timed(s, run), reps)
}

/// Best times over `reps` rounds (on a GPU, [`rounds`]' window) of one timed run of `a` then
/// one of `b`, after one untimed run of each.
fn alternating<S>(
    state: &mut S,
    mut a: impl FnMut(&mut S) -> nuda::Result<Duration>,
    mut b: impl FnMut(&mut S) -> nuda::Result<Duration>,
    reps: u32,
) -> nuda::Result<(Duration, Duration)> {
    a(state)?;
    b(state)?;
    let (mut ta, mut tb) = (Duration::MAX, Duration::MAX);
    rounds(reps, || {
        ta = ta.min(a(state)?);
        tb = tb.min(b(state)?);
        Ok(())
    })?;
    Ok((ta, tb))
}

/// How a problem's result is checked. `clear` poisons the outputs (NaN, or no match) before
/// each variant runs, so `verify` judges only what that variant wrote, never a result a
/// previous variant left behind.
pub struct Check<S> {
    /// Poisons the outputs.
    pub clear: fn(&mut S) -> nuda::Result<()>,
    /// Compares the outputs with a plain Rust reference.
    pub verify: fn(&S) -> Result<(), String>,
}

/// Clears the outputs, times `run` (see [`best_time`]) and verifies what it wrote.
pub fn measure<S>(
    state: &mut S,
    run: fn(&mut S) -> nuda::Result<()>,
    reps: u32,
    check: &Check<S>,
) -> nuda::Result<(Duration, Result<(), String>)> {
    (check.clear)(state)?;
    let t = best_time(state, run, reps)?;
    Ok((t, (check.verify)(state)))
}

/// Relative difference within `tol`, for float results.
pub fn close(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol * want.abs().max(1.0) || (got.is_nan() && want.is_nan())
}
