//! What the checks cost: each nuda variant timed three ways in one run, interleaved so that
//! the machine's drift hits all three alike: as users run it (checks the launch-time proof
//! could not rule out), with every bounds check left out (`nuda::unchecked`), and with the
//! proof off (every check kept, `usize` 64-bit).

use nuda::Result;
use std::time::Duration;

/// Best kernel times of one variant, three ways.
#[derive(Debug, Clone, Copy)]
pub struct Costs {
    pub checked: Duration,
    pub unchecked: Duration,
    /// `None` where the run left this way out (`--quick`).
    pub kept: Option<Duration>,
}

impl Costs {
    /// Checked over unchecked: the checks' cost as users pay it.
    pub fn overhead(&self) -> f64 {
        ratio(self.checked, self.unchecked)
    }

    /// Every check kept over unchecked: what they would cost without the proof.
    pub fn without_proof(&self) -> Option<f64> {
        self.kept.map(|k| ratio(k, self.unchecked))
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-12)
}

/// The kernel time of one run (summed over the kernels it launches).
fn once<S>(state: &mut S, run: fn(&mut S) -> Result<()>) -> Result<Duration> {
    let before = nuda::thread_stats();
    run(state)?;
    Ok((nuda::thread_stats() - before).kernel_time())
}

/// Times `run` three ways (two without `keep`), `reps` rounds (more on a GPU), after one warm-up of each
/// (which builds its program). The caller has just run the variant checked and verified its
/// result.
pub fn costs<S>(
    state: &mut S,
    run: fn(&mut S) -> Result<()>,
    reps: u32,
    keep: bool,
) -> Result<Costs> {
    // SAFETY: the same variant, with the same sizes and data, just ran with its checks and
    // returned Ok: every index it evaluates is in range, and it evaluates the same ones again.
    let unchecked = |s: &mut S| unsafe { nuda::unchecked(|| once(s, run)) };
    let kept = |s: &mut S| match keep {
        true => nuda::__private::keeping_checks(|| once(s, run)).map(Some),
        false => Ok(None),
    };
    once(state, run)?;
    unchecked(state)?;
    kept(state)?;
    let (mut checked, mut fast, mut all) = (Duration::MAX, Duration::MAX, None::<Duration>);
    // On a GPU, rounds over a window: see `problem::GPU_WINDOW`.
    super::problem::rounds(reps, || {
        checked = checked.min(once(state, run)?);
        fast = fast.min(unchecked(state)?);
        if let Some(k) = kept(state)? {
            all = Some(all.map_or(k, |a| a.min(k)));
        }
        Ok(())
    })?;
    Ok(Costs {
        checked,
        unchecked: fast,
        kept: all,
    })
}

/// The geometric mean of ratios.
pub fn geomean(ratios: &[f64]) -> f64 {
    if ratios.is_empty() {
        return 1.0;
    }
    let logs: f64 = ratios.iter().map(|r| r.ln()).sum();
    (logs / ratios.len() as f64).exp()
}
