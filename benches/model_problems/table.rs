//! The bench's results: one row per variant or peer, printed as NUDA's Table 3, and written as
//! JSON (`--json`); `chart.rs` draws them.

use serde::{Deserialize, Serialize};

/// One measured variant or peer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    /// imgconv, nbody, sgemm, dgemm, md5.
    pub problem: String,
    /// Problem size as run.
    pub size: String,
    /// Device name.
    pub device: String,
    /// Variant or peer name.
    pub variant: String,
    /// `nuda` for the loop variants, `peer` for comparisons.
    pub kind: String,
    /// Best time of one run, in seconds.
    pub seconds: f64,
    /// Rate in `unit`.
    pub rate: f64,
    /// GFLOP/s, where the problem counts flops (imgconv's headline rate is GB/s).
    pub gflops: Option<f64>,
    /// GFLOP/s, GB/s or Mhash/s.
    pub unit: String,
    /// Time of the base variant over this one's.
    pub speedup: f64,
    /// Percent of the device's peak, where the peak is known.
    pub peak_percent: Option<f64>,
    /// Lines of source of the variant.
    pub source_lines: Option<usize>,
    /// Whether the result matched the CPU reference.
    pub verified: bool,
    /// nuda variants: time with the checks the launch-time proof kept, over time with every
    /// bounds check off (`nuda::unchecked`).
    pub checks_ratio: Option<f64>,
    /// nuda variants: time with every check kept (the proof off), over time with none.
    pub no_proof_ratio: Option<f64>,
    /// Same-device peers: the best nuda variant's speed over this peer's, the two timed in
    /// alternating runs (see `best_times_paired`), so a drifting machine biases neither.
    /// Native rows of `--native-each`: the native speed over the same variant's on the
    /// selected device, timed the same way. Variant rows under `--paired-base`: the speed
    /// over the base's, timed the same way.
    pub paired: Option<f64>,
}

/// Prints what the checks cost: per problem and over every nuda variant, the geometric mean
/// of checked over unchecked time, with the proof (as users run) and without it.
pub fn print_check_costs(rows: &[Row]) {
    let nuda: Vec<&Row> = rows.iter().filter(|r| r.checks_ratio.is_some()).collect();
    if nuda.is_empty() {
        return;
    }
    let mean = |rs: &[&Row], f: fn(&Row) -> Option<f64>| {
        let v: Vec<f64> = rs.iter().filter_map(|r| f(r)).collect();
        crate::checks::geomean(&v)
    };
    println!("\ncheck overhead (geometric mean of checked / unchecked kernel time):");
    let mut problems: Vec<&str> = nuda.iter().map(|r| r.problem.as_str()).collect();
    problems.dedup();
    for p in problems {
        let rs: Vec<&Row> = nuda.iter().copied().filter(|r| r.problem == p).collect();
        let (with, without) = (
            mean(&rs, |r| r.checks_ratio),
            mean(&rs, |r| r.no_proof_ratio),
        );
        println!(
            "  {p:<10} {:>+7.1}%   every check kept: {:>+7.1}%",
            pct(with),
            pct(without)
        );
    }
    let (with, without) = (
        mean(&nuda, |r| r.checks_ratio),
        mean(&nuda, |r| r.no_proof_ratio),
    );
    println!(
        "  {:<10} {:>+7.1}%   every check kept: {:>+7.1}%",
        "all",
        pct(with),
        pct(without)
    );
}

fn pct(ratio: f64) -> f64 {
    (ratio - 1.0) * 100.0
}

/// Device peaks, for the devices whose peaks we know (NVIDIA's published figures, without
/// tensor cores): FP32 FLOP/s, FP64 FLOP/s, memory bytes/s.
pub fn peaks(device: &str) -> Option<(f64, f64, f64)> {
    if device.contains("H200") {
        Some((67e12, 34e12, 4.8e12))
    } else if device.contains("H100") {
        Some((67e12, 34e12, 3.35e12))
    } else {
        None
    }
}

/// Prints the table.
pub fn print(rows: &[Row]) {
    // The variant column fits the longest name (peers carry a `[peer] ` prefix).
    let wide = rows
        .iter()
        .map(|r| r.variant.len() + if r.kind == "peer" { 7 } else { 0 })
        .max()
        .unwrap_or(0)
        .max(50);
    println!(
        "\n{:<15} {:<12} {:<22} {:<wide$} {:>10} {:>8} {:>9} {:>8} {:>7} {:>6} {:>8} {:>9} {:>9}",
        "problem",
        "size",
        "device",
        "variant",
        "rate",
        "unit",
        "GFLOP/s",
        "speedup",
        "% peak",
        "lines",
        "checks",
        "no proof",
        "nuda/peer"
    );
    let mut last = String::new();
    for r in rows {
        if r.problem != last {
            println!("{:-<w$}", "", w = 137 + wide);
            last = r.problem.clone();
        }
        let peak = r.peak_percent.map_or("-".into(), |p| format!("{p:.1}"));
        let lines = r.source_lines.map_or("-".into(), |l| l.to_string());
        let flag = if r.verified { "" } else { "  WRONG RESULT" };
        let name = if r.kind == "peer" {
            format!("[peer] {}", r.variant)
        } else {
            r.variant.clone()
        };
        let gflops = r.gflops.map_or("-".into(), |g| format!("{g:.2}"));
        let cost = |x: Option<f64>| x.map_or("-".into(), |x| format!("{:+.1}%", pct(x)));
        let (checks, no_proof) = (cost(r.checks_ratio), cost(r.no_proof_ratio));
        let paired = r.paired.map_or("-".into(), |x| format!("{x:.2}x"));
        println!(
            "{:<15} {:<12} {:<22} {:<wide$} {:>10.2} {:>8} {gflops:>9} {:>7.2}x {peak:>7} {lines:>6} {checks:>8} {no_proof:>9} {paired:>9}{flag}",
            r.problem,
            r.size,
            short(&r.device),
            name,
            r.rate,
            r.unit,
            r.speedup
        );
    }
}

/// The device name cut to its column.
fn short(name: &str) -> String {
    if name.chars().count() <= 22 {
        name.into()
    } else {
        name.chars().take(21).chain(['…']).collect()
    }
}

/// One figure of the bench's `runtime` part (a transfer's bandwidth, a launch's time) beside
/// its peer of the same run, if it has one; written with the table's rows under `--json`,
/// as `kind: "runtime"`, so that `scripts/bench-report` generates BENCHMARKS.md's runtime
/// tables from the raw files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RuntimeRow {
    /// Always `runtime`.
    pub kind: String,
    /// Device name.
    pub device: String,
    /// What was measured, such as `transfer 16 MiB, host to device` or `empty launch`.
    pub figure: String,
    /// nuda's figure, in `unit`.
    pub value: f64,
    /// `GB/s` (higher is better) or `us` per launch (lower is better).
    pub unit: String,
    /// The peer's name and figure in the same unit, where there is one.
    pub peer: Option<String>,
    pub peer_value: Option<f64>,
    /// Whether the two were timed in alternating batches (medians) rather than one after the
    /// other.
    pub paired: bool,
}

impl RuntimeRow {
    /// A figure of `device`, without a peer.
    pub fn new(device: &nuda::Device, figure: String, value: f64, unit: &str) -> RuntimeRow {
        RuntimeRow {
            kind: "runtime".into(),
            device: device.info().name.clone(),
            figure,
            value,
            unit: unit.into(),
            peer: None,
            peer_value: None,
            paired: false,
        }
    }

    /// The same row with its peer of the same run.
    pub fn against(mut self, peer: &str, value: f64, paired: bool) -> RuntimeRow {
        (self.peer, self.peer_value, self.paired) = (Some(peer.into()), Some(value), paired);
        self
    }
}

/// Writes the rows, and the runtime figures after them, as one JSON array.
pub fn write_json(
    rows: &[Row],
    runtime: &[RuntimeRow],
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut all: Vec<serde_json::Value> = Vec::new();
    for r in rows {
        all.push(serde_json::to_value(r)?);
    }
    for r in runtime {
        all.push(serde_json::to_value(r)?);
    }
    std::fs::write(path, serde_json::to_string_pretty(&all)?)?;
    Ok(())
}

/// The table's rows of a `--json` file, without its runtime figures.
pub fn read_rows(text: &str) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let all: Vec<serde_json::Value> = serde_json::from_str(text)?;
    let rows = all
        .into_iter()
        .filter(|v| v.get("kind").and_then(|k| k.as_str()) != Some("runtime"))
        .map(serde_json::from_value)
        .collect::<Result<Vec<Row>, _>>()?;
    Ok(rows)
}
