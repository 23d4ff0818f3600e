//! How a distributed array's rows are shared out over the ranks (layer 5, see `dist/mod.rs`):
//! [`Split`], the bounds it gives, and the speeds `Split::Measured` is made from. A split is
//! a list of `size + 1` row bounds: rank `r` owns rows `bounds[r]..bounds[r + 1]`. Every
//! rank computes the same bounds from the same inputs, so no bounds ever travel.

use super::comm::dist_error;
use super::World;
use crate::error::Result;
use std::cell::{Cell, RefCell};

/// How [`NuDist::rebalance`](super::NuDist::rebalance) shares rows out over the ranks.
///
/// ```
/// use nuda_runtime::dist::{init, NuDist1, Split};
/// let world = init()?;
/// let mut a = NuDist1::<f32>::from_fn(&world, 100, 1, |i| i as f32)?;
/// // Rank r gets rows in proportion to its weight (one rank here: all of them).
/// a.rebalance(&Split::Weights(vec![3.0; world.size()]))?;
/// assert_eq!(a.to_vec()?[99], 99.0);
/// # Ok::<(), nuda_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Split {
    /// As even as can be: the first `n % size` ranks own one row more (the split every array
    /// starts with).
    Even,
    /// Rank `r` owns rows in proportion to `weights[r]`: one finite, non-negative weight per
    /// rank, not all zero. A rank of weight 0 owns no rows.
    Weights(Vec<f64>),
    /// Rows in proportion to each rank's measured speed: rows per second of compute in the
    /// `nudist` launches since the last rebalance (their waits for other ranks left out, and
    /// launches that built their program, which time the compiler, not counted). The ranks agree on the speeds once, so arrays
    /// rebalanced one after another with no launch between get the same rows. A rank that
    /// ran no rows counts at the others' mean speed.
    Measured,
}

/// The even split of `n` rows over `size` ranks.
pub(crate) fn even(n: usize, size: usize) -> Vec<usize> {
    let (base, extra) = (n / size, n % size);
    (0..=size).map(|r| r * base + r.min(extra)).collect()
}

/// `n` rows in proportion to `weights` (checked): bounds at the rounded-down prefix sums.
fn weighted(n: usize, weights: &[f64]) -> Vec<usize> {
    let total: f64 = weights.iter().sum();
    let mut bounds = vec![0usize];
    let mut prefix = 0.0;
    for w in &weights[..weights.len() - 1] {
        prefix += w;
        let at = ((n as f64) * (prefix / total)).floor() as usize;
        bounds.push(at.clamp(*bounds.last().unwrap_or(&0), n));
    }
    bounds.push(n);
    bounds
}

/// Why `weights` cannot split rows over `size` ranks, if they cannot.
pub(crate) fn check(split: &Split, size: usize) -> Result<()> {
    let Split::Weights(w) = split else {
        return Ok(());
    };
    let why = if w.len() != size {
        format!(
            "{} weights for {size} ranks; give one weight per rank",
            w.len()
        )
    } else if let Some(bad) = w.iter().find(|x| !x.is_finite() || **x < 0.0) {
        format!("weight {bad} is not a finite number of 0 or more")
    } else if w.iter().sum::<f64>() <= 0.0 {
        "every weight is 0; give at least one rank a positive weight".to_string()
    } else {
        return Ok(());
    };
    Err(dist_error("NuDist::rebalance(&Split::Weights(..))", why))
}

/// The bounds `split` gives `n` rows on `world` (collective for `Measured`, whose speeds are
/// gathered once per round of launches).
pub(crate) fn bounds(world: &World, n: usize, split: &Split) -> Result<Vec<usize>> {
    match split {
        Split::Even => Ok(even(n, world.size())),
        Split::Weights(w) => Ok(weighted(n, w)),
        Split::Measured => Ok(weighted(n, &world.speeds()?)),
    }
}

/// A rank's compute since the last measured rebalance, and the speeds agreed since.
#[derive(Default)]
pub(crate) struct Meter {
    rows: Cell<f64>,
    secs: Cell<f64>,
    agreed: RefCell<Option<Vec<f64>>>,
}

impl Meter {
    /// A launch ran `rows` rows in `secs` seconds of compute; earlier agreed speeds are old.
    pub fn record(&self, rows: f64, secs: f64) {
        self.rows.set(self.rows.get() + rows);
        self.secs.set(self.secs.get() + secs);
        self.agreed.replace(None);
    }
}

impl World {
    /// Every rank's speed in rows per second, agreed (one all-gather, then kept until the
    /// next launch); the meters start again.
    fn speeds(&self) -> Result<Vec<f64>> {
        let meter = self.meter();
        if let Some(s) = meter.agreed.borrow().clone() {
            return Ok(s);
        }
        let mine = [meter.rows.get(), meter.secs.get()];
        let all = self.all_gather_vec(&mine)?;
        let speeds = speeds_of(&all)?;
        meter.rows.set(0.0);
        meter.secs.set(0.0);
        meter.agreed.replace(Some(speeds.clone()));
        Ok(speeds)
    }
}

/// Speeds from every rank's `[rows, secs]`: a rank that measured nothing counts at the mean.
fn speeds_of(all: &[f64]) -> Result<Vec<f64>> {
    let each: Vec<Option<f64>> = all
        .chunks(2)
        .map(|c| (c[0] > 0.0 && c[1] > 0.0).then(|| c[0] / c[1]))
        .collect();
    let known: Vec<f64> = each.iter().flatten().copied().collect();
    if known.is_empty() {
        return Err(dist_error(
            "NuDist::rebalance(&Split::Measured)",
            "no rank has run a nudist launch over rows since the last measured rebalance, so there is no speed to split by; run a step first, or use Split::Even or Split::Weights",
        ));
    }
    let mean = known.iter().sum::<f64>() / known.len() as f64;
    Ok(each.into_iter().map(|s| s.unwrap_or(mean)).collect())
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn weights_share_rows_out_in_proportion_and_cover_them() {
        assert_eq!(weighted(100, &[1.0, 3.0]), vec![0, 25, 100]);
        assert_eq!(weighted(10, &[1.0, 0.0, 1.0]), vec![0, 5, 5, 10]);
        assert_eq!(weighted(7, &[15.0, 1.0]), vec![0, 6, 7]);
        assert_eq!(even(10, 4), vec![0, 3, 6, 8, 10]);
        for n in 0..40 {
            let b = weighted(n, &[0.3, 2.0, 0.0, 1.7]);
            assert!(b.windows(2).all(|w| w[0] <= w[1]) && b[4] == n, "{b:?}");
        }
    }

    #[test]
    fn bad_weights_say_what_is_wrong() {
        let msg = |s: Split| check(&s, 2).unwrap_err().to_string();
        assert!(msg(Split::Weights(vec![1.0])).contains("1 weights for 2 ranks"));
        assert!(msg(Split::Weights(vec![1.0, f64::NAN])).contains("not a finite"));
        assert!(msg(Split::Weights(vec![0.0, 0.0])).contains("every weight is 0"));
        assert!(check(&Split::Weights(vec![0.0, 2.0]), 2).is_ok());
    }

    #[test]
    fn unmeasured_ranks_count_at_the_mean_speed() -> Result<()> {
        assert_eq!(
            speeds_of(&[10.0, 1.0, 0.0, 0.0, 30.0, 1.0])?,
            vec![10.0, 20.0, 30.0]
        );
        assert!(speeds_of(&[0.0, 0.0]).is_err());
        Ok(())
    }
}
