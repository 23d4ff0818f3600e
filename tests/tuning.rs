//! Issue 14's autotuning: `tune(a, b, ..)` parameters expand a `nuwork!` once per candidate.
//! Every candidate computes the same result as plain Rust; a tuning run (`NUDA_TUNE=1`) picks
//! a winner per device and call site and stores it beside the program cache, and later
//! processes use it without a search. The persistence tests run in child processes, each
//! with its own environment and a fresh `NUDA_CACHE_DIR`.

#![allow(missing_docs)] // the test types are documented by their tests

mod common;

use common::check;
use nuda::prelude::*;
use std::path::Path;

/// C = AᵀB with a tuned register block and vector width.
fn tuned_gemm(n: usize) -> nuda::Result<Vec<f32>> {
    let a = NuArray2::from_fn((n, n), |(i, j)| ((i * 7 + j * 3) % 17) as f32 * 0.125);
    let b = NuArray2::from_fn((n, n), |(i, j)| ((i * 5 + j) % 13) as f32 * 0.25);
    let mut c = NuArray2::<f32>::new((n, n));
    let cr = &mut c;
    nuwork!(4, tune(4, 8); annot!(dmine(tune(1, 4), 1), vector(tune(4, 8)); nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
        cr[(i, j)] = s;
    })))?;
    Ok(c.to_vec())
}

fn gemm_rust(n: usize) -> Vec<f32> {
    let a = |i: usize, j: usize| ((i * 7 + j * 3) % 17) as f32 * 0.125;
    let b = |i: usize, j: usize| ((i * 5 + j) % 13) as f32 * 0.25;
    let mut c = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0f32;
            for k in 0..n {
                s += a(k, i) * b(k, j);
            }
            c[i * n + j] = s;
        }
    }
    c
}

/// An in-place kernel: each candidate must see the same inputs, which tuning restores.
fn tuned_in_place(n: usize) -> nuda::Result<Vec<i64>> {
    let mut x = NuArray1::from_fn(n, |i| i as i64 * 3 - 7);
    nuwork!(tune(8, 32); annot!(unroll(tune(1, 2, 4)); nfor!(i in n {
        x[i] = x[i] * 2 + 1;
    })))?;
    Ok(x.to_vec())
}

#[test]
fn every_engine_gives_rust_results_tuned_or_not() {
    for n in [16usize, 37] {
        check(gemm_rust(n), || tuned_gemm(n));
        let want: Vec<i64> = (0..n as i64).map(|i| (i * 3 - 7) * 2 + 1).collect();
        check(want, || tuned_in_place(n));
    }
}

/// Runs test `name` of this binary in a child with `env` and no inherited device or mode.
fn child(name: &str, env: &[(&str, &str)]) -> String {
    let mut all = vec![("NUDA_TUNE_CHILD", "1")];
    all.extend_from_slice(env);
    common::child(name, &all, &["NUDA_DEVICE", "NUDA_TUNE"])
}

/// The body the parent runs in children: a tuned launch of `NUDA_TUNE_N` elements (100
/// unless set), checked against Rust.
#[test]
fn tuned_launch_in_a_child() {
    if std::env::var_os("NUDA_TUNE_CHILD").is_none() {
        return;
    }
    let n: i64 = std::env::var("NUDA_TUNE_N").map_or(100, |v| v.parse().expect("a size"));
    assert_eq!(tuned_in_place(n as usize).unwrap(), {
        (0..n).map(|i| (i * 3 - 7) * 2 + 1).collect::<Vec<_>>()
    });
}

fn searches(log: &str) -> usize {
    log.lines().filter(|l| l.starts_with("nuda tune:")).count()
}

fn stored(dir: &Path) -> serde_json::Map<String, serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("tune.json")).expect("tune.json written");
    serde_json::from_str(&text).expect("tune.json is JSON")
}

#[test]
fn winners_persist_across_processes_per_device() {
    let dir = std::env::temp_dir().join(format!("nuda-tune-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().expect("utf-8 temp dir");
    let name = "tuned_launch_in_a_child";
    let native = [("NUDA_CACHE_DIR", d), ("NUDA_ENGINE", "native")];
    // Untuned by default: no search, nothing stored.
    assert_eq!(searches(&child(name, &native)), 0);
    assert!(!dir.join("tune.json").exists());
    // A tuning run searches once and stores the winner under the device's name.
    let log = child(name, &[native[0], native[1], ("NUDA_TUNE", "1")]);
    assert_eq!(searches(&log), 1, "{log}");
    let first = stored(&dir);
    assert_eq!(first.len(), 1);
    let (key, record) = first.iter().next().unwrap();
    assert!(
        key.contains("tuning.rs") && key.contains("native engine") && key.ends_with("writes 100"),
        "{key}"
    );
    let winner = record["winner"].as_u64().unwrap() as usize;
    assert!(
        winner < 6 && record["ms"].as_array().unwrap().len() == 6,
        "{record}"
    );
    // A later process uses it: no search.
    let log = child(name, &[native[0], native[1], ("NUDA_TUNE", "1")]);
    assert_eq!(searches(&log), 0, "{log}");
    // `force` searches again.
    let log = child(name, &[native[0], native[1], ("NUDA_TUNE", "force")]);
    assert_eq!(searches(&log), 1, "{log}");
    // Another problem size has its own winner: the first size's is not reused.
    let other = [
        native[0],
        native[1],
        ("NUDA_TUNE", "1"),
        ("NUDA_TUNE_N", "300"),
    ];
    let log = child(name, &other);
    assert_eq!(searches(&log), 1, "{log}");
    assert_eq!(stored(&dir).len(), 2);
    assert_eq!(searches(&child(name, &other)), 0);
    // Another device has its own winner.
    let opencl = nuda::devices()
        .iter()
        .any(|d| d.kind != nuda::DeviceKind::Native);
    if opencl {
        let log = child(
            name,
            &[native[0], ("NUDA_ENGINE", "opencl"), ("NUDA_TUNE", "1")],
        );
        assert_eq!(searches(&log), 1, "{log}");
        assert_eq!(stored(&dir).len(), 3);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `NUDA_TUNE_BUDGET`: once spent, a search times no new candidate. With a budget of a
/// microsecond, only the first candidate in the search's order (the site's first, with no
/// seed for this device) is timed, and it wins; the others are stored untimed and reported.
#[test]
fn a_spent_budget_stops_the_search() {
    let dir = std::env::temp_dir().join(format!("nuda-tune-budget-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().expect("utf-8 temp dir");
    let env = [
        ("NUDA_CACHE_DIR", d),
        ("NUDA_ENGINE", "native"),
        ("NUDA_TUNE", "force"),
        ("NUDA_TUNE_BUDGET", "0.000001"),
    ];
    let log = child("tuned_launch_in_a_child", &env);
    assert!(log.contains("NUDA_TUNE_BUDGET spent, not timed"), "{log}");
    let all = stored(&dir);
    let record = all.values().next().expect("a stored winner");
    let ms = record["ms"].as_array().unwrap();
    let timed: Vec<usize> = (0..ms.len()).filter(|&k| !ms[k].is_null()).collect();
    assert_eq!(
        (timed, record["winner"].as_u64()),
        (vec![0], Some(0)),
        "{record}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A budget that is not a number of seconds is an error that names the variable, at the
/// first search, not a silent unbounded one.
#[test]
fn a_bad_budget_is_an_error() {
    if std::env::var("NUDA_TUNE_BUDGET").as_deref() != Ok("soon") {
        let log = child(
            "a_bad_budget_is_an_error",
            &[
                ("NUDA_TUNE_BUDGET", "soon"),
                ("NUDA_TUNE", "force"),
                ("NUDA_CACHE", "0"),
                ("NUDA_ENGINE", "native"),
            ],
        );
        assert!(log.contains("bad value NUDA_TUNE_BUDGET=\"soon\""), "{log}");
        return;
    }
    let e = tuned_in_place(16).expect_err("a search under a bad budget ran");
    println!("{e}");
}

/// The issue's own example of a tuned chain, `dmine(tune(2, 4, 8), tune(2, 4, 8))`, tuned on
/// every engine: each of its nine candidates must give Rust's result, which the tuning run
/// checks, and the winner's result is what the caller sees.
#[test]
fn the_issue_example_tunes_on_every_engine() {
    let n = 37usize;
    let want = gemm_rust(n);
    check(want, || {
        nuda::with_tune_mode(nuda::TuneMode::Force, || {
            let a = NuArray2::from_fn((n, n), |(i, j)| ((i * 7 + j * 3) % 17) as f32 * 0.125);
            let b = NuArray2::from_fn((n, n), |(i, j)| ((i * 5 + j) % 13) as f32 * 0.25);
            let mut c = NuArray2::<f32>::new((n, n));
            nuwork!(8, 8; annot!(dmine(tune(2, 4, 8), tune(2, 4, 8)); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            })))?;
            Ok(c.to_vec())
        })
    });
}

/// `nuda::last_tuned` names the candidate the last tuned launch ran: the first one when
/// tuning is off, one of the candidates after a search.
#[test]
fn last_tuned_names_the_candidate_that_ran() {
    let n = 16usize;
    let run = |mode| {
        nuda::with_tune_mode(mode, || tuned_in_place(n))?;
        Ok::<_, nuda::Error>(nuda::last_tuned().map(str::to_string))
    };
    let off = run(nuda::TuneMode::Off).expect("an untuned launch runs");
    assert_eq!(off.as_deref(), Some("8; unroll(1)"));
    let searched = run(nuda::TuneMode::Force).expect("a tuned launch runs");
    let candidates: Vec<String> = [8, 32]
        .iter()
        .flat_map(|g| [1, 2, 4].map(move |u| format!("{g}; unroll({u})")))
        .collect();
    let searched = searched.expect("a candidate ran");
    assert!(
        candidates.contains(&searched),
        "not a candidate: {searched}"
    );
}
