//! Tests of the tuner's parts that need no kernel: `NUDA_TUNE`, saving, restoring and
//! comparing arrays between candidates, and how long a candidate is timed.

use super::*;
use crate::array::{NuArray1, NuArray2};

#[test]
fn tune_modes_parse_and_bad_values_say_what_is_expected() {
    assert_eq!(TuneMode::parse(None).unwrap(), TuneMode::Use);
    assert_eq!(TuneMode::parse(Some("1")).unwrap(), TuneMode::Tune);
    assert_eq!(TuneMode::parse(Some(" Force ")).unwrap(), TuneMode::Force);
    assert_eq!(TuneMode::parse(Some("off")).unwrap(), TuneMode::Off);
    let e = TuneMode::parse(Some("maybe")).unwrap_err().to_string();
    assert!(
        e.contains("NUDA_TUNE") && e.contains("0, 1 or force"),
        "{e}"
    );
}

#[test]
fn saved_arrays_restore_and_compare() {
    let mut a = NuArray2::from_fn((2, 3), |(i, j)| (i * 3 + j) as f32);
    let mut saved = Saved::default();
    saved.save(0, &a).unwrap();
    a.as_mut_slice()[4] = 100.0;
    saved.keep(0, &a).unwrap();
    saved.restore(0, &mut a).unwrap();
    assert_eq!(a.to_vec(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    // Restored differs from the kept reference; a rounding's worth does not.
    let e = saved.check(0, "a", &a).unwrap_err().to_string();
    assert!(e.contains("`a`"), "{e}");
    a.as_mut_slice()[4] = 100.0 * (1.0 + 1e-7);
    saved.check(0, "a", &a).unwrap();
}

#[test]
fn integers_compare_exactly() {
    assert!(i32::same(&[1, 2], &[1, 2]));
    assert!(!i32::same(&[1, 2], &[1, 3]));
    assert!(!f64::same(&[1.0], &[1.001]));
    assert!(f32::same(&[f32::NAN], &[f32::NAN]));
    let a = NuArray1::from_fn(3, |i| i as u8);
    let mut s = Saved::default();
    s.keep(0, &a).unwrap();
    s.check(0, "a", &a).unwrap();
}

/// Off a GPU a candidate runs `REPS` times; on one, until the runs have lasted the window,
/// so that a GPU's clocks, lowered while the candidate built, rise before the best is taken;
/// a run of no time stops at `MAX_REPS`.
#[test]
fn candidates_run_for_a_window_on_gpus() {
    use std::time::Duration;
    let (_, done) = best_run(Duration::ZERO, || Ok(())).unwrap();
    assert_eq!(done, REPS);
    let start = Instant::now();
    let slow = || {
        std::thread::sleep(Duration::from_millis(2));
        Ok(())
    };
    let (best, done) = best_run(Duration::from_millis(40), slow).unwrap();
    assert!(start.elapsed() >= Duration::from_millis(40), "{done} runs");
    assert!(done > REPS && best >= 0.002, "{done} runs, best {best} s");
    let (_, done) = best_run(Duration::from_secs(60), || Ok(())).unwrap();
    assert_eq!(done, MAX_REPS);
}
