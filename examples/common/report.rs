//! Running a problem's variants in an example: each timed, verified against the CPU
//! reference, and printed with its rate and its speedup over the base.

#![allow(dead_code)]

use super::problem::{measure, Check, Variant};

/// What one run does, to turn times into rates.
pub struct Work {
    /// Floating-point operations (or hashes, for md5).
    pub ops: f64,
    /// Name of the rate: `GFLOP/s`, `Mhash/s`.
    pub unit: &'static str,
    /// Scale from ops per second to the unit.
    pub scale: f64,
    /// Bytes read and written, for a bandwidth column, if meaningful.
    pub bytes: Option<f64>,
}

/// Runs the variants `wants` selects, base first, and prints a line each.
pub fn run_all<S>(
    state: &mut S,
    variants: &[Variant<S>],
    work: &Work,
    reps: u32,
    wants: impl Fn(&str) -> bool,
    check: &Check<S>,
) -> nuda::Result<bool> {
    let device = nuda::current_device()?;
    println!("on {}", device.info());
    // As wide as the longest name, so long chains keep the columns straight.
    let width = variants
        .iter()
        .map(|v| v.name.len())
        .max()
        .unwrap_or(0)
        .max(28);
    println!(
        "{:<width$} {:>10} {:>12} {:>10} {:>9}",
        "variant", "kernel", work.unit, "GB/s", "speedup"
    );
    let mut base = None;
    let mut all_ok = true;
    for v in variants
        .iter()
        .filter(|v| v.name == "base" || wants(v.name))
    {
        let (t, ok) = measure(state, v.run, reps, check)?;
        let t = t.as_secs_f64();
        let base_t = *base.get_or_insert(t);
        let rate = work.ops / t / work.scale;
        let gbs = work
            .bytes
            .map_or("-".to_string(), |b| format!("{:.2}", b / t / 1e9));
        let verdict = ok
            .as_ref()
            .map_or_else(|e| format!("  WRONG: {e}"), |_| String::new());
        all_ok &= ok.is_ok();
        println!(
            "{:<width$} {:>8.2}ms {rate:>12.2} {gbs:>10} {:>8.2}x{verdict}",
            v.name,
            t * 1e3,
            base_t / t
        );
    }
    Ok(all_ok)
}
