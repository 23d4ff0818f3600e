//! Scaling over several devices (NUDA's `nudevs`): sgemm and nbody split by rows over the
//! first 1, 2, .., k of the chosen devices with equal shares, then over all of them with
//! shares in proportion to each device's speed alone. Times are wall times up to the merged
//! result on the host, since that is when a multi-device run is done.

use super::problem::source_lines;
use super::problems::{NBODY_SOURCE, SGEMM_SOURCE};
use super::spec::{on_cpu, Bench};
use super::split::{self, Part, Scaling};
use super::table::Row;
use super::{nbody, sgemm};
use nuda::Result;

/// Runs both problems on `devices` and adds their rows.
pub fn report(bench: &mut Bench, quick: bool, devices: &[usize]) -> Result<()> {
    let cpu = on_cpu(&bench.device);
    let n = if quick {
        256
    } else if cpu {
        1024
    } else {
        2048
    };
    bench.bar.inc_length(2);
    bench.bar.set_message("sgemm over several devices");
    let mut g = sgemm::f32::setup(n);
    let rows = split::scaling(devices, n, 8, bench.reps, |p| sgemm::f32::split(&mut g, p))?;
    let ok = check_split(&mut g, &sgemm::f32::CHECK, sgemm::f32::split, n, devices);
    let lines = source_lines(SGEMM_SOURCE, "split");
    let size = format!("{n}x{n}");
    push(
        bench,
        ("sgemm split", size),
        &rows,
        sgemm::flops(n),
        (lines, ok),
    );
    let n = if quick {
        2048
    } else if cpu {
        16384
    } else {
        65536
    };
    bench.bar.set_message("nbody over several devices");
    let mut b = nbody::setup(n);
    let rows = split::scaling(devices, n, 4, bench.reps, |p| nbody::split(&mut b, p))?;
    let ok = check_split(&mut b, &nbody::CHECK, nbody::split, n, devices);
    let lines = source_lines(NBODY_SOURCE, "split");
    let size = format!("{n} bodies");
    push(
        bench,
        ("nbody split", size),
        &rows,
        nbody::flops(n),
        (lines, ok),
    );
    Ok(())
}

/// One more run on every device, from poisoned outputs, checked against plain Rust.
fn check_split<S>(
    state: &mut S,
    check: &super::problem::Check<S>,
    run: impl Fn(&mut S, &[Part]) -> Result<()>,
    n: usize,
    devices: &[usize],
) -> bool {
    if let Err(e) = (check.clear)(state) {
        eprintln!("scaling check: {e}");
        return false;
    }
    let parts = split::partition(n, devices, &vec![1.0; devices.len()], 8);
    let outcome = run(state, &parts).map_err(|e| e.to_string());
    match outcome.and_then(|()| (check.verify)(state)) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("split over {devices:?}: WRONG: {e}");
            false
        }
    }
}

fn push(
    bench: &mut Bench,
    (problem, size): (&str, String),
    rows: &[Scaling],
    flops: f64,
    (lines, verified): (usize, bool),
) {
    let one = rows.first().map_or(1.0, |r| r.time.as_secs_f64());
    for r in rows {
        let seconds = r.time.as_secs_f64();
        let devices: Vec<String> = r.parts.iter().map(|p| p.device.to_string()).collect();
        let shares: Vec<String> = r
            .parts
            .iter()
            .map(|p| format!("{}:{}", p.device, p.hi - p.lo))
            .collect();
        bench.rows.push(Row {
            problem: problem.into(),
            size: size.clone(),
            device: format!("devices {}", devices.join("+")),
            variant: format!("{} ({})", r.label, shares.join(" ")),
            kind: "scaling".into(),
            seconds,
            rate: flops / seconds / 1e9,
            gflops: Some(flops / seconds / 1e9),
            unit: "GFLOP/s".into(),
            speedup: one / seconds,
            peak_percent: None,
            source_lines: Some(lines),
            verified,
            checks_ratio: None,
            no_proof_ratio: None,
            paired: None,
        });
    }
    bench.bar.inc(1);
}
