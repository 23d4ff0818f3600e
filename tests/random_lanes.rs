//! Property tests of `vector(w)` and `stage(..)`: random 1- and 2-loop nests with random bounds (empty and
//! inclusive ranges, trip counts no width divides) under random chains ending in `vector(w)`,
//! drawn by `build.rs` (seed `NUDA_LANES_SEED`). The body has contiguous loads, a gather, a
//! broadcast scalar, a per-lane accumulator over an inner loop and an update store. Each runs
//! as host loops, on the native engine and on OpenCL, and must equal the plain Rust loops
//! exactly: each lane does its scalar's operations in order, and contraction is off. The
//! staged nests tile 1 or 2 loops into work-groups and stage a loop of random depth that reads
//! at random offsets; the second loop's bounds are the staged loop's.

mod common;

use nuda::prelude::*;
use proptest::prelude::*;

/// Bounds of the two loops, and the broadcast scalar.
#[derive(Debug, Clone, Copy)]
struct P {
    a0: usize,
    a1: usize,
    e0: usize,
    e1: usize,
    c: f32,
}

/// The arrays the bodies read.
struct Arrays {
    x: NuArray2<f32>,
    y: NuArray1<f32>,
    z: NuArray2<f32>,
    w: [f32; 3],
}

type Run = fn(P, &Arrays, &mut NuArray2<f32>);
type RunDevice = fn(P, &Arrays, &mut NuArray2<f32>) -> nuda::Result<()>;

struct Case {
    text: &'static str,
    dims: usize,
    incl: [bool; 2],
    host: Run,
    device: RunDevice,
}

/// A random `stage(..)` nest (see `testgen/lanes.rs`).
struct Staged {
    text: &'static str,
    dims: usize,
    offsets: (usize, usize),
    host: Run,
    device: RunDevice,
}

/// Side of the square arrays: past every bound the test draws.
const SIDE: usize = 32;

include!(concat!(env!("OUT_DIR"), "/random_lanes.rs"));

fn arrays() -> Arrays {
    Arrays {
        x: NuArray2::from_fn((SIDE, SIDE), |(i, j)| {
            ((i * 7 + j * 3) % 11) as f32 * 0.25 - 1.0
        }),
        y: NuArray1::from_fn(SIDE, |i| (i % 5) as f32 * 0.5),
        z: NuArray2::from_fn((SIDE, 1), |(i, _)| (i % 3) as f32 - 0.75),
        w: [0.5, -1.25, 2.0],
    }
}

fn start() -> NuArray2<f32> {
    NuArray2::from_fn((SIDE, SIDE), |(i, j)| (i * SIDE + j) as f32 * 0.5)
}

/// The loops as plain Rust.
fn expected(c: &Case, p: &P, a: &Arrays) -> Vec<f32> {
    let mut out = start().to_vec();
    let range = |lo: usize, hi: usize, incl: bool| if incl { lo..hi + 1 } else { lo..hi };
    let outer = if c.dims == 2 {
        range(p.a0, p.e0, c.incl[0])
    } else {
        0..1
    };
    let (inner_lo, inner_hi, inner_incl) = match c.dims {
        2 => (p.a1, p.e1, c.incl[1]),
        _ => (p.a0, p.e0, c.incl[0]),
    };
    for i in outer {
        for j in range(inner_lo, inner_hi, inner_incl) {
            let (r, col) = if c.dims == 2 { (i, j) } else { (0, j) };
            let mut s = 0.0f32;
            for q in 0..3 {
                s += a.x[(r, col)] * a.w[q];
            }
            let t = -s + a.y[col] * p.c;
            out[r * SIDE + col] += t.max(0.5) - a.z[(col, 0)];
        }
    }
    out
}

fn check(c: &Case, p: P) -> Result<(), String> {
    let a = arrays();
    agree(&expected(c, &p, &a), p, &a, (c.host, c.device))
}

/// Runs a nest as host loops and on every engine, each compared with `want` exactly.
fn agree(want: &[f32], p: P, a: &Arrays, (host, device): (Run, RunDevice)) -> Result<(), String> {
    let mut out = start();
    host(p, a, &mut out);
    let mut got = vec![("host".to_string(), out.to_vec())];
    for d in common::engines() {
        let mut out = start();
        let r = nuda::with_device(d.index, || device(p, a, &mut out));
        r.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
        got.push((d.name.clone(), out.to_vec()));
    }
    for (name, g) in got {
        if let Some(k) = (0..want.len()).find(|&k| g[k] != want[k]) {
            return Err(format!(
                "{name}: element {k}: got {}, want {}",
                g[k], want[k]
            ));
        }
    }
    Ok(())
}

fn bound(a: usize, len: usize, incl: bool) -> usize {
    (a + len).saturating_sub(incl as usize)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn vectorised_nests_equal_the_plain_loops(
        a in prop::array::uniform2(0usize..4),
        len in prop::array::uniform2(0usize..20),
        c in -2.0f32..2.0,
    ) {
        for (k, case) in LANE_NESTS.iter().enumerate() {
            let p = P {
                a0: a[0],
                a1: a[1],
                e0: bound(a[0], len[0], case.incl[0]),
                e1: bound(a[1], len[1], case.incl[1]),
                c,
            };
            let r = check(case, p);
            prop_assert!(r.is_ok(), "nest {k} (seed {LANES_SEED}): {}\n{p:?}\n{}", case.text, r.unwrap_err());
        }
    }
}

/// A staged nest as plain Rust: `x` at the loop variables plus the offsets, `z` at column 0.
fn expected_staged(c: &Staged, p: &P, a: &Arrays) -> Vec<f32> {
    let mut out = start().to_vec();
    let (o0, o1) = c.offsets;
    let outer: Vec<(usize, usize)> = match c.dims {
        2 => (p.a0..p.e0)
            .flat_map(|i| (p.a1..p.e1).map(move |j| (i, j)))
            .collect(),
        _ => (p.a0..p.e0).map(|i| (0, i)).collect(),
    };
    for (r, col) in outer {
        let mut s = 0.0f32;
        for q in p.a1..p.e1 {
            s += a.x[(q + o0, col + o1)] * p.c - a.z[(q, 0)];
        }
        out[r * SIDE + col] += s;
    }
    out
}

fn check_staged(c: &Staged, p: P) -> Result<(), String> {
    let a = arrays();
    agree(&expected_staged(c, &p, &a), p, &a, (c.host, c.device))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn staged_nests_equal_the_plain_loops(
        a in prop::array::uniform2(0usize..4),
        len in prop::array::uniform2(0usize..24),
        c in -2.0f32..2.0,
    ) {
        for (k, case) in STAGE_NESTS.iter().enumerate() {
            let p = P { a0: a[0], a1: a[1], e0: a[0] + len[0], e1: a[1] + len[1], c };
            let r = check_staged(case, p);
            prop_assert!(r.is_ok(), "nest {k} (seed {LANES_SEED}): {}\n{p:?}\n{}", case.text, r.unwrap_err());
        }
    }
}
