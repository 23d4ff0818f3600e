//! `--static` with AMD's compile checks on (`NUDA_HIP_CHECK`, `NUDA_AMDGCN_CHECK`): what
//! hiprtc and clang made of each launch (`nuda::lab::take_amd_records`), beside the lab's
//! record of the same launch for an H100/H200; and the whole table as JSON (`--json`), which
//! `scripts/bench-report` turns into BENCHMARKS.md's static table.

use super::lab::bound;
use super::spec::LabRow;
use nuda::lab::AmdRecord;
use serde_json::{json, Value};

/// A column group: a compiler and an architecture.
pub type Target = (&'static str, String);

/// The compilers and architectures the rows have records of, by architecture, hiprtc first.
pub fn targets(rows: &[LabRow]) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for a in rows.iter().flat_map(|r| &r.amd) {
        let t = (a.compiler, a.arch.clone());
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out.sort_by_key(|(c, a)| (a.clone(), *c != "hiprtc"));
    out
}

/// The record under `t` of the launch behind `row`'s `i`-th lab record: the same entry
/// point, met as many times before in the row's launches.
pub fn matching<'a>(row: &'a LabRow, i: usize, t: &Target) -> Option<&'a AmdRecord> {
    let name = &row.records[i].kernel;
    let nth = row.records[..i]
        .iter()
        .filter(|r| r.kernel == *name)
        .count();
    row.amd
        .iter()
        .filter(|a| (a.compiler, &a.arch) == (t.0, &t.1) && a.kernel == *name)
        .nth(nth)
}

/// A cell: VGPRs/spilled VGPRs/waves per SIMD/global loads in flight (`?` where unknown).
pub fn cell(a: Option<&AmdRecord>) -> String {
    let known = |n: Option<u32>| n.map_or("?".into(), |n| n.to_string());
    a.map_or("-".into(), |a| {
        format!(
            "{}/{}/{}/{}",
            a.registers.0,
            a.spills.0,
            known(a.waves),
            known(a.loads)
        )
    })
}

/// The table as JSON: one object per kernel a variant launched (`kind: static`), each with
/// the lab's figures and its AMD records, and one per variant the lab refused.
pub fn write_json(
    rows: &[LabRow],
    arch: &str,
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let targets = targets(rows);
    let mut all: Vec<Value> = Vec::new();
    for row in rows {
        let head =
            json!({"kind": "static", "arch": arch, "problem": row.problem, "variant": row.variant});
        if let Some(e) = &row.error {
            all.push(merged(&head, json!({ "error": e })));
        }
        for (i, r) in row.records.iter().enumerate() {
            let amd: Vec<Value> = targets
                .iter()
                .filter_map(|t| matching(row, i, t))
                .map(amd_json)
                .collect();
            let lab = json!({
                "kernel": r.kernel, "origin": r.origin, "threads": r.threads,
                "registers": r.registers, "spills": [r.spills.0, r.spills.1],
                "shared": r.shared, "warps": r.occupancy.warps, "limit": r.occupancy.limit,
                "loads": r.loads, "bound": bound(r, row.peak), "amd": amd,
            });
            all.push(merged(&head, lab));
        }
    }
    std::fs::write(path, serde_json::to_string_pretty(&all)? + "\n")?;
    Ok(())
}

fn amd_json(a: &AmdRecord) -> Value {
    json!({
        "compiler": a.compiler, "arch": a.arch, "vgprs": a.registers.0, "agprs": a.registers.1,
        "sgprs": a.registers.2, "spills": [a.spills.0, a.spills.1], "lds": a.lds,
        "waves": a.waves, "loads": a.loads,
    })
}

/// `head`'s fields, then `more`'s.
fn merged(head: &Value, more: Value) -> Value {
    let mut out = head.clone();
    if let (Some(o), Value::Object(m)) = (out.as_object_mut(), more) {
        o.extend(m);
    }
    out
}
