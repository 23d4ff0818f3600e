//! `--static sm_90`: every variant of every problem, and each same-device peer, run once on
//! the static lab (`nuda::lab`), which compiles each launch for an H100/H200 with NVRTC, reads
//! NVIDIA's disassembly and runs nothing. The table: per kernel, registers, spills, shared
//! memory, theoretical occupancy, the instruction mix of its hottest innermost loop, and a
//! static bound on the share of the peak it can reach; with AMD's compile checks on, what
//! hiprtc and clang made of the same launch (`lab_amd.rs`).

use super::lab_amd::{cell, matching, targets, Target};
use super::spec::{Bench, LabRow, Peak, Run, Spec};
use nuda::lab::Record;
use nuda::Result;

impl Bench {
    /// Runs each variant and same-device peer of `spec` once on the lab, and keeps what it
    /// recorded, or why it was refused. Results are never checked: nothing ran.
    pub fn lab_run<S>(&mut self, spec: &Spec<'_, S>, state: &mut S) -> Result<()> {
        let variants = spec.variants.iter().map(|v| (v.name.to_string(), v.run));
        let peers = spec
            .same_device_peers
            .iter()
            .map(|p| (format!("[peer] {}", p.name), p.run));
        let runs: Vec<(String, Run<S>)> = variants
            .chain(peers)
            .filter(|(n, _)| self.chosen(n))
            .collect();
        self.bar.inc_length(runs.len() as u64);
        for (name, run) in runs {
            self.bar.set_message(format!("{} {name}", spec.problem));
            nuda::lab::take_records();
            nuda::lab::take_amd_records();
            // A variant a GPU would refuse is a row that says why; the others still run.
            let error = run(state).err().map(|e| e.to_string());
            self.lab.push(LabRow {
                problem: spec.problem.into(),
                variant: name,
                peak: spec.peak,
                elements: spec.elements,
                records: nuda::lab::take_records(),
                amd: nuda::lab::take_amd_records(),
                error,
            });
            self.bar.inc(1);
        }
        Ok(())
    }
}

/// The static bound of a kernel, as a share of its problem's peak: the flops its hottest
/// loop does per issue slot against an all-FMA loop's (`Mix::flop_share`: an FMA counts 2,
/// an unfused add or multiply 1, anything else 0), times an occupancy factor,
/// `min(1, resident warps / 16)` (four warps per scheduler hide an FMA's latency when a
/// register block gives each warp independent FMAs). Only FMAs of the problem's precision
/// count. `None` where the peak is not arithmetic (md5, bandwidth-bound problems).
pub fn bound(r: &Record, peak: Peak) -> Option<f64> {
    let m = &r.inner;
    let fma = match peak {
        Peak::Fp32 => m.ffma,
        Peak::Fp64 => m.dfma,
        _ => return None,
    };
    let flops = 2 * fma + m.add_mul;
    let share = f64::from(flops) / f64::from(2 * m.total.max(1));
    Some(share * (f64::from(r.occupancy.warps) / 16.0).min(1.0))
}

/// Widths `32/64/128` of loads, as counts.
fn widths(w: [u32; 3]) -> String {
    format!("{}/{}/{}", w[0], w[1], w[2])
}

/// Prints the lab's table, one row per kernel a variant launched.
pub fn print(rows: &[LabRow], arch: &str) {
    let amd = targets(rows);
    print_head(arch, &amd);
    for row in rows {
        for i in 0..row.records.len() {
            print_record(row, i, &amd);
        }
        print_tail(row);
    }
}

/// The table's legend and column heads, AMD's columns (`amd`) last.
fn print_head(arch: &str, amd: &[Target]) {
    println!("\nstatic lab, {arch} (NVRTC and cuobjdump; occupancy of an H100/H200 SM; the loop is the own body of the loop with the most arithmetic; +/* counts unfused adds and multiplies, alu% the integer ALU share (md5's work); atom = shared/global atomics in the loop; bound = flops per issue slot against all-FMA x min(1, warps/16))\n");
    if !amd.is_empty() {
        println!("AMD columns (NUDA_HIP_CHECK, NUDA_AMDGCN_CHECK: hiprtc on the HIP text, clang on the OpenCL C as ROCm's OpenCL compiles it): VGPRs/spilled VGPRs/waves per SIMD by registers/global loads in flight per wave\n");
    }
    let heads: String = amd
        .iter()
        .map(|(c, a)| format!(" {:>15}", format!("{c} {a}")))
        .collect();
    println!(
        "{:<15} {:<58} {:<12} {:>5} {:>4} {:>9} {:>7} {:>9} {:>10} {:>5} {:>6} {:>4} {:>5} {:>9} {:>9} {:>4} {:>4} {:>4} {:>6} {:>7}{heads}",
        "problem", "variant", "kernel", "thr", "regs", "spill s/l", "smem", "warps/64", "limit", "loop", "fma%", "+/*", "alu%", "lds", "ldg", "stg", "shfl", "bar", "atom", "bound"
    );
    println!("{}", "-".repeat(208 + 16 * amd.len()));
}

/// The line of `row`'s `i`-th record, with its AMD cells.
fn print_record(row: &LabRow, i: usize, amd: &[Target]) {
    let r = &row.records[i];
    let cells: String = amd
        .iter()
        .map(|t| format!(" {:>15}", cell(matching(row, i, t))))
        .collect();
    let b = bound(r, row.peak).map_or_else(|| "-".into(), |b| format!("{:.0}%", 100.0 * b));
    let m = &r.inner;
    println!(
        "{:<15} {:<58} {:<12} {:>5} {:>4} {:>9} {:>7} {:>9} {:>10} {:>5} {:>5.0}% {:>4} {:>4.0}% {:>9} {:>9} {:>4} {:>4} {:>4} {:>6} {:>7}{cells}",
        row.problem,
        truncate(&row.variant, 58),
        r.kernel,
        r.threads,
        r.registers,
        format!("{}/{}", r.spills.0, r.spills.1),
        r.shared,
        r.occupancy.warps,
        r.occupancy.limit,
        m.total,
        100.0 * m.fma_share(),
        m.add_mul,
        100.0 * f64::from(m.int_alu) / f64::from(m.total.max(1)),
        widths(m.lds),
        widths(m.ldg),
        m.stg,
        m.shfl,
        m.bar,
        format!("{}/{}", m.atoms, m.atomg),
        b,
    );
}

/// A variant's bytes per element and loads in flight, or why it has no record.
fn print_tail(row: &LabRow) {
    if let (Some(n), false) = (row.elements, row.records.is_empty()) {
        let moved: u64 = row.records.iter().map(|r| r.arrays).sum();
        let flight: Vec<String> = row.records.iter().map(|r| r.loads.to_string()).collect();
        println!(
            "{:<15} {:<58} {:.1} bytes of arrays per element over {} launch(es); global loads in flight per thread: {}",
            row.problem,
            truncate(&row.variant, 58),
            moved as f64 / n.max(1) as f64,
            row.records.len(),
            flight.join("/")
        );
    }
    if let Some(e) = &row.error {
        println!(
            "{:<15} {:<58} refused: {e}",
            row.problem,
            truncate(&row.variant, 58)
        );
    } else if row.records.is_empty() {
        println!(
            "{:<15} {:<58} (no launch on the lab)",
            row.problem,
            truncate(&row.variant, 58)
        );
    }
}

fn truncate(s: &str, n: usize) -> String {
    match s.chars().count() > n {
        true => format!("{}…", s.chars().take(n - 1).collect::<String>()),
        false => s.to_string(),
    }
}

/// Merges the lab's rankings of this run (`nuda::take_tune_seeds`) into the seeds file at
/// `path`: an entry of the same call site and candidates for one of the same devices is
/// replaced, the others kept.
pub fn write_seeds(path: &str) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let learned = nuda::take_tune_seeds();
    let mut all: Vec<nuda::TuneSeed> = match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)?,
        Err(_) => Vec::new(),
    };
    // Only seeds for the lab's own devices: the native engine's timed seeds for the same
    // sites stay.
    let replaced = |s: &nuda::TuneSeed, l: &nuda::TuneSeed| {
        (&l.site, &l.labels) == (&s.site, &s.labels)
            && l.devices.iter().any(|d| s.devices.contains(d))
    };
    all.retain(|s| !learned.iter().any(|l| replaced(s, l)));
    println!(
        "\n{} tuned call sites ranked, written to {path}",
        learned.len()
    );
    all.extend(learned);
    all.sort_by(|a, b| a.site.cmp(&b.site));
    std::fs::write(path, serde_json::to_string_pretty(&all)? + "\n")?;
    Ok(())
}
