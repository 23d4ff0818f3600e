//! Property test of soundness: random kernels whose indices may leave their arrays (drawn by
//! `build.rs`, seed `NUDA_BOUNDS_SEED`), with random loop extents and array dims (proptest).
//! On every engine a launch either matches the plain Rust reference and succeeds, or returns
//! one of the faults the reference finds, and its output still matches the reference (a
//! faulting read gives 0, a faulting write is skipped). The test runs in a child process,
//! so a crash (a corrupted heap, a segfault) fails it instead of killing the harness.

mod common;

use nuda::prelude::*;
use nuda::KernelFault;
use proptest::prelude::*;

/// Loop extents.
#[derive(Debug, Clone, Copy)]
struct P {
    n: [usize; 3],
}

/// A plain array: dims (padded with 1) and row-major data.
#[derive(Debug, Clone)]
struct Arr {
    dims: [usize; 3],
    rank: usize,
    data: Vec<i32>,
}

/// A fault the reference finds: the array and the index.
type Fault = (&'static str, Vec<u64>);

impl Arr {
    fn new(rank: usize, dims: [usize; 3], f: impl Fn(usize) -> i32) -> Arr {
        let mut dims = dims;
        dims[rank..].fill(1);
        let len = dims.iter().product();
        Arr {
            dims,
            rank,
            data: (0..len).map(f).collect(),
        }
    }

    fn offset(&self, idx: &[usize]) -> Option<usize> {
        let mut off = 0;
        for (k, &i) in idx.iter().enumerate() {
            if i >= self.dims[k] {
                return None;
            }
            off = off * self.dims[k] + i;
        }
        Some(off)
    }

    fn get(&self, idx: &[usize], name: &'static str, faults: &mut Vec<Fault>) -> i32 {
        match self.offset(idx) {
            Some(o) => self.data[o],
            None => {
                faults.push((name, idx.iter().map(|&i| i as u64).collect()));
                0
            }
        }
    }

    fn set(&mut self, idx: &[usize], v: i32, name: &'static str, faults: &mut Vec<Fault>) {
        match self.offset(idx) {
            Some(o) => self.data[o] = v,
            None => faults.push((name, idx.iter().map(|&i| i as u64).collect())),
        }
    }
}

/// A device run: the launch's result and the output's contents.
type DeviceRun = fn(&P, &Arr, &Arr) -> (nuda::Result<()>, Vec<i32>);

struct Case {
    text: &'static str,
    rank: usize,
    device: DeviceRun,
    host: fn(&P, &Arr, &mut Arr, &mut Vec<Fault>),
}

include!(concat!(env!("OUT_DIR"), "/random_bounds.rs"));

/// One case on every engine against the reference.
fn run(c: &Case, p: P, adims: [usize; 3], odims: [usize; 3]) -> Result<(), TestCaseError> {
    let a = Arr::new(c.rank, adims, |i| i as i32 * 3 + 1);
    let out0 = Arr::new(c.rank, odims, |_| -1);
    let mut want = out0.clone();
    let mut faults = Vec::new();
    (c.host)(&p, &a, &mut want, &mut faults);
    for d in common::engines() {
        let (r, got) = nuda::with_device(d.index, || (c.device)(&p, &a, &out0)).unwrap();
        let at = format!(
            "{} with {p:?}, a {adims:?}, out {odims:?} on {}",
            c.text, d.name
        );
        prop_assert_eq!(&got, &want.data, "{}", at);
        match (r, faults.is_empty()) {
            (Ok(()), true) => {}
            (
                Err(Error::Kernel {
                    fault: KernelFault::OutOfBounds(b),
                    ..
                }),
                false,
            ) => {
                let (array, index) = (&b.array, &b.index);
                let index: Vec<u64> = index.iter().map(|i| i.parse().unwrap()).collect();
                prop_assert!(
                    faults.iter().any(|(n, i)| *n == array && *i == index),
                    "{at}: {array}{index:?} is not among the faults {faults:?}"
                );
            }
            (r, _) => prop_assert!(false, "{at}: got {r:?}, reference faults {faults:?}"),
        }
    }
    Ok(())
}

fn in_child() {
    let cfg = ProptestConfig {
        cases: 12,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    for c in CASES {
        let mut runner = proptest::test_runner::TestRunner::new(cfg.clone());
        let strat = (
            prop::array::uniform3(0usize..7),
            prop::array::uniform3(0usize..9),
            prop::array::uniform3(0usize..9),
        );
        let r = runner.run(&strat, |(n, ad, od)| run(c, P { n }, ad, od));
        if let Err(e) = r {
            panic!("{}: {e}", c.text);
        }
    }
}

#[test]
fn random_kernels_either_agree_or_report_a_real_fault() {
    if std::env::var_os("NUDA_BOUNDS_CHILD").is_some() {
        return in_child();
    }
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args([
            "random_kernels_either_agree_or_report_a_real_fault",
            "--exact",
            "--nocapture",
        ])
        .env("NUDA_BOUNDS_CHILD", "1")
        .output()
        .expect("child test process");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the child failed or crashed ({:?}):\n{text}",
        out.status
    );
    assert!(text.contains("1 passed"), "the child ran no test:\n{text}");
}
