//! Property test of the barrier split (issue 31): random `#[nukernel]`s drawn by `build.rs`
//! (seed `NUDA_BARRIER_SEED`, `testgen/barriers.rs`) exchange values between the work-items of
//! a group through a `nulocal!` array in phases separated by barriers: at shifting indices,
//! with barriers in uniform loops and branches, a tree, early returns of whole groups before
//! any barrier and of some work-items after the last. Each runs on PoCL and on the native
//! engine, which runs it split at its barriers, with random inputs; the outputs must agree.

mod common;

use nuda::prelude::*;
use nuda::DeviceKind;
use proptest::prelude::*;

type Run = fn(usize, &mut NuArray1<i32>, &NuArray1<i32>, i32, usize, usize) -> nuda::Result<()>;

struct Case {
    text: &'static str,
    form: &'static str,
    run: Run,
}

include!(concat!(env!("OUT_DIR"), "/random_barriers.rs"));

fn outputs(c: &Case, a: &NuArray1<i32>, p: i32, r: usize, q: usize) -> Vec<(String, Vec<i32>)> {
    let mut got = Vec::new();
    for d in common::engines() {
        let mut out = NuArray1::<i32>::from_fn(N, |_| 7);
        let res = (c.run)(d.index, &mut out, a, p, r, q);
        res.unwrap_or_else(|e| panic!("{}: {e}\n{}", d.name, c.text));
        got.push((format!("{:?} {}", d.kind, d.name), out.to_vec()));
    }
    got
}

#[test]
fn every_drawn_kernel_is_split() {
    for c in KERNELS {
        assert_eq!(c.form, "split", "seed {BARRIER_SEED}:\n{}", c.text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn split_barrier_kernels_agree_with_pocl(
        a in prop::collection::vec(-50i32..50, N),
        p in -4i32..4,
        r in 0usize..4,
        q in 0usize..4,
    ) {
        let a = NuArray1::<i32>::from_fn(N, |i| a[i]);
        for (k, c) in KERNELS.iter().enumerate() {
            let got = outputs(c, &a, p, r, q);
            let native = got.iter().find(|(n, _)| n.starts_with(&format!("{:?}", DeviceKind::Native)));
            let Some((_, native)) = native else { continue };
            for (name, out) in &got {
                prop_assert_eq!(out, native, "kernel {} (seed {}) on {}:\n{}", k, BARRIER_SEED, name, c.text);
            }
        }
    }
}
