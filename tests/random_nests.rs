//! Property test of the annotations: random nests of 1 to 3 loops, with random range forms,
//! bounds (empty ranges and trip counts no factor divides included) and steps, under random
//! chains of 1 to 4 annotations, drawn by `build.rs` (seed `NUDA_NEST_SEED`). Each runs as host
//! loops and on the native engine, and a sample on OpenCL: every iteration must run exactly
//! once, with the loop variables' values of the unannotated nest.

mod common;

use nuda::prelude::*;
use nuda::DeviceKind;
use proptest::prelude::*;

/// Bounds, steps and trip counts of the three loops.
#[derive(Debug, Clone, Copy)]
struct P {
    a0: i32,
    a1: i32,
    a2: i32,
    e0: i32,
    e1: i32,
    e2: i32,
    s0: i32,
    s1: i32,
    s2: i32,
    n0: usize,
    n1: usize,
    n2: usize,
}

type Run = fn(P, &mut NuArray1<u32>, &mut NuArray1<i64>);
type RunDevice = fn(P, &mut NuArray1<u32>, &mut NuArray1<i64>) -> nuda::Result<()>;

struct Case {
    text: &'static str,
    dims: usize,
    incl: [bool; 3],
    stepped: [bool; 3],
    host: Run,
    device: RunDevice,
}

include!(concat!(env!("OUT_DIR"), "/random_nests.rs"));

/// One loop's bounds from a start, a length and a step; its trip count.
fn bounds(a: i32, len: i32, s: i32, incl: bool, stepped: bool) -> (i32, i32, usize) {
    let s = if stepped { s } else { 1 };
    let e = if incl { a + len - 1 } else { a + len };
    let last = if incl { e } else { e - 1 };
    let n = if last >= a {
        ((last - a) / s + 1) as usize
    } else {
        0
    };
    (e, s, n)
}

fn params(c: &Case, a: [i32; 3], len: [i32; 3], s: [i32; 3]) -> P {
    let b: Vec<(i32, i32, usize)> = (0..3)
        .map(|d| {
            if d < c.dims {
                bounds(a[d], len[d], s[d], c.incl[d], c.stepped[d])
            } else {
                (a[d], 1, 1)
            }
        })
        .collect();
    P {
        a0: a[0],
        a1: a[1],
        a2: a[2],
        e0: b[0].0,
        e1: b[1].0,
        e2: b[2].0,
        s0: b[0].1,
        s1: b[1].1,
        s2: b[2].1,
        n0: b[0].2,
        n1: b[1].2,
        n2: b[2].2,
    }
}

/// What the unannotated nest computes: each point once, with its loop variables' values.
fn expected(c: &Case, p: &P) -> (Vec<u32>, Vec<i64>) {
    let (a, s, n) = ([p.a0, p.a1, p.a2], [p.s0, p.s1, p.s2], [p.n0, p.n1, p.n2]);
    let total = n[..c.dims].iter().product::<usize>();
    let vals = (0..total)
        .map(|f| {
            let mut rest = f;
            let mut v = 0i64;
            for d in (0..c.dims).rev() {
                let t = rest % n[d];
                rest /= n[d];
                v += (a[d] as i64 + t as i64 * s[d] as i64) * [31, 7, 1][d];
            }
            v
        })
        .collect();
    (vec![1; total], vals)
}

fn run_device(c: &Case, p: P, device: usize, total: usize) -> Result<(Vec<u32>, Vec<i64>), String> {
    let (mut hits, mut vals) = (NuArray1::<u32>::new(total), NuArray1::<i64>::new(total));
    let r = nuda::with_device(device, || (c.device)(p, &mut hits, &mut vals))
        .map_err(|e| e.to_string())?;
    r.map_err(|e| e.to_string())?;
    Ok((hits.to_vec(), vals.to_vec()))
}

fn check(c: &Case, p: P, opencl: bool) -> Result<(), String> {
    let want = expected(c, &p);
    let total = want.0.len();
    let (mut hits, mut vals) = (NuArray1::<u32>::new(total), NuArray1::<i64>::new(total));
    (c.host)(p, &mut hits, &mut vals);
    let mut got = vec![("host".to_string(), (hits.to_vec(), vals.to_vec()))];
    for d in common::engines() {
        if d.kind == DeviceKind::Native || opencl {
            got.push((d.name.clone(), run_device(c, p, d.index, total)?));
        }
    }
    for (name, g) in got {
        if g != want {
            return Err(format!(
                "{name}: hits {:?}\nvals {:?}\nwant {:?}",
                g.0, g.1, want.1
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn annotated_nests_run_each_iteration_once(
        a in prop::array::uniform3(-4i32..4),
        len in prop::array::uniform3(0i32..9),
        s in prop::array::uniform3(1i32..4),
        sample in 0u32..4,
    ) {
        for (k, c) in NESTS.iter().enumerate() {
            let p = params(c, a, len, s);
            let r = check(c, p, sample == 0);
            prop_assert!(r.is_ok(), "nest {k} (seed {NEST_SEED}): {}\n{p:?}\n{}", c.text, r.unwrap_err());
        }
    }
}
