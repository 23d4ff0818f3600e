//! Splitting a problem over several devices (NUDA's `nudevs`), for the examples' `--devices`
//! option and the bench: which devices, which block of the work each gets, and the scaling
//! from 1 to k devices.

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// One device's share: rows (or bodies) `lo..hi` on device `device`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// nuda device index.
    pub device: usize,
    /// First row.
    pub lo: usize,
    /// One past the last row.
    pub hi: usize,
}

/// The share of `device` in `parts` (empty if it has none).
pub fn part_of(parts: &[Part], device: usize) -> (usize, usize) {
    parts
        .iter()
        .find(|p| p.device == device)
        .map_or((0, 0), |p| (p.lo, p.hi))
}

/// Parses `--devices`: `all`, or a comma-separated list of device indices, each listed once.
pub fn parse_devices(spec: &str) -> Result<Vec<usize>, String> {
    let count = nuda::devices().len();
    if spec == "all" {
        return Ok((0..count).collect());
    }
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim) {
        let d: usize = item.parse().map_err(|_| {
            format!("--devices: `{item}` is not a device index; use `all` or a list such as `0,1`")
        })?;
        if d >= count {
            return Err(format!(
                "--devices: there is no device {d}; `cargo run --example devices` lists the {count} found"
            ));
        }
        if out.contains(&d) {
            return Err(format!("--devices: device {d} is listed twice"));
        }
        out.push(d);
    }
    Ok(out)
}

/// Splits `0..n` into one contiguous block per device, sized in proportion to `weights`, each
/// a multiple of `quantum` except the last (so annotated loops keep whole tiles).
pub fn partition(n: usize, devices: &[usize], weights: &[f64], quantum: usize) -> Vec<Part> {
    let total: f64 = weights.iter().sum();
    let mut parts = Vec::with_capacity(devices.len());
    let (mut lo, mut acc) = (0, 0.0);
    for (k, (&device, &w)) in devices.iter().zip(weights).enumerate() {
        acc += w;
        let hi = if k + 1 == devices.len() {
            n
        } else {
            let ideal = (n as f64 * acc / total).round() as usize;
            (ideal / quantum * quantum).clamp(lo, n)
        };
        parts.push(Part { device, lo, hi });
        lo = hi;
    }
    parts
}

/// Best wall time of `reps` runs after one warm-up (programs built, inputs uploaded).
pub fn best_wall(reps: u32, mut run: impl FnMut() -> nuda::Result<()>) -> nuda::Result<Duration> {
    run()?;
    let mut best = Duration::MAX;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        run()?;
        best = best.min(t.elapsed());
    }
    Ok(best)
}

/// One line of a scaling table.
pub struct Scaling {
    /// What ran: `1 device`, `balanced`.
    pub label: String,
    /// The parts.
    pub parts: Vec<Part>,
    /// Best wall time.
    pub time: Duration,
}

/// Times the problem on the first 1, 2, .., k of `devices` (equal shares), then on all of
/// them with shares in proportion to each device's speed alone.
pub fn scaling(
    devices: &[usize],
    n: usize,
    quantum: usize,
    reps: u32,
    mut run: impl FnMut(&[Part]) -> nuda::Result<()>,
) -> nuda::Result<Vec<Scaling>> {
    let mut out = Vec::new();
    for k in 1..=devices.len() {
        let parts = partition(n, &devices[..k], &vec![1.0; k], quantum);
        let time = best_wall(reps, || run(&parts))?;
        let label = format!("{k} device{}", if k == 1 { "" } else { "s" });
        out.push(Scaling { label, parts, time });
    }
    if devices.len() > 1 {
        let mut speed = Vec::new();
        for &d in devices {
            let alone = [Part {
                device: d,
                lo: 0,
                hi: n,
            }];
            speed.push(1.0 / best_wall(reps, || run(&alone))?.as_secs_f64());
        }
        let parts = partition(n, devices, &speed, quantum);
        let time = best_wall(reps, || run(&parts))?;
        out.push(Scaling {
            label: "all, balanced".into(),
            parts,
            time,
        });
    }
    Ok(out)
}

/// Prints a scaling table: time, rate and speedup over one device.
pub fn print_scaling(rows: &[Scaling], ops: f64, unit: &str, scale: f64) {
    println!(
        "{:<16} {:>10} {:>12} {:>9}  shares",
        "devices", "wall", unit, "speedup"
    );
    let one = rows.first().map_or(1.0, |r| r.time.as_secs_f64());
    for r in rows {
        let t = r.time.as_secs_f64();
        let shares: Vec<String> = r
            .parts
            .iter()
            .map(|p| format!("{}:{}", p.device, p.hi - p.lo))
            .collect();
        println!(
            "{:<16} {:>8.2}ms {:>12.2} {:>8.2}x  {}",
            r.label,
            t * 1e3,
            ops / t / scale,
            one / t,
            shares.join(" ")
        );
    }
}
