//! The dependence test's edges (issue 47): nests it used to refuse though nothing races run
//! and give plain Rust's result on every engine, and two names of one array, which only the
//! launch can see, are an `Err` before anything runs. The racing nests it must refuse are
//! compile-fail cases in `tests/ui/race_*.rs`.

mod common;

use common::engines;
use nuda::prelude::*;

fn on_each(f: impl Fn(&str) -> nuda::Result<()>) {
    for d in engines() {
        nuda::with_device(d.index, || f(&d.name)).unwrap().unwrap();
    }
}

/// `n / 2` has one value in every iteration, as a captured `h = n / 2` has: the halves the
/// loop reads and writes never meet.
#[test]
fn a_loop_invariant_division_in_an_index_compiles() {
    for n in [0usize, 1, 7, 1000] {
        let mut want: Vec<i32> = (0..n as i32).map(|i| i * 3 - 5).collect();
        for i in 0..n / 2 {
            want[i] = want[i + n / 2];
        }
        on_each(|dev| {
            let mut a = NuArray1::<i32>::from_fn(n, |i| i as i32 * 3 - 5);
            nuwork!(64; nfor!(i in 0..n / 2 { a[i] = a[i + n / 2]; }))?;
            assert_eq!(a.to_vec(), want, "{dev}, n = {n}");
            Ok(())
        });
    }
}

/// PolyBench trmm: after `permut(2, 1)` only `j` is mapped, each column is one work-item's,
/// and `i` runs in order inside it, as sequential Rust runs it.
#[test]
fn trmm_under_permut_compiles_and_matches_rust() {
    let (m, n) = (37usize, 23usize);
    let alpha = 1.5f32;
    let a_at = |i: usize, j: usize| ((i * 5 + j * 3) % 7) as f32 * 0.25;
    let b_at = |i: usize, j: usize| ((i * 2 + j * 11) % 13) as f32 - 6.0;
    let mut want: Vec<f32> = (0..m * n).map(|k| b_at(k / n, k % n)).collect();
    for i in 0..m {
        for j in 0..n {
            for k in i + 1..m {
                want[i * n + j] += a_at(k, i) * want[k * n + j];
            }
            want[i * n + j] *= alpha;
        }
    }
    on_each(|dev| {
        let a = NuArray2::<f32>::from_fn((m, m), |(i, j)| a_at(i, j));
        let mut b = NuArray2::<f32>::from_fn((m, n), |(i, j)| b_at(i, j));
        nuwork!(32; annot!(permut(2, 1); nfor!((i, j) in (m, n) {
            nfor!(k in i + 1..m { b[(i, j)] += a[(k, i)] * b[(k, j)]; });
            b[(i, j)] = alpha * b[(i, j)];
        })))?;
        assert_eq!(b.to_vec(), want, "{dev}");
        Ok(())
    });
}

/// A histogram through `atomic_add`, the form the refusal of `h[idx[i]] += 1` points to.
#[test]
fn a_histogram_through_atomics_matches_rust() {
    let n = 5000usize;
    let idx = NuArray1::<u32>::from_fn(n, |i| ((i * 7919) % 16) as u32);
    let mut want = vec![0u32; 16];
    for i in 0..n {
        want[(i * 7919) % 16] += 1;
    }
    on_each(|dev| {
        let mut h = NuArray1::<u32>::new(16);
        nuwork!(64; nfor!(i in n { h.atomic_add(idx[i] as usize, 1); }))?;
        assert_eq!(h.to_vec(), want, "{dev}");
        Ok(())
    });
}

/// One array under two `NuShared` names, read at `i + 1` through one and written at `i`
/// through the other, would race: the launch refuses it, names both, and runs nothing.
#[test]
fn two_shared_names_of_one_array_are_refused_at_the_launch() {
    let n = 1000usize;
    on_each(|dev| {
        let mut a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let p = a.as_shared();
        let q = p;
        let e = nuwork!(64; nfor!(i in 0..n - 1 { q[i] = p[i + 1]; })).unwrap_err();
        assert!(matches!(e, nuda::Error::Aliased { .. }), "{dev}: {e:?}");
        let text = e.to_string();
        assert!(
            text.contains("`p` and `q` are the same array") && text.contains("nothing ran"),
            "{dev}: {text}"
        );
        assert_eq!(
            a.to_vec(),
            (0..n).map(|i| i as f32).collect::<Vec<_>>(),
            "{dev}"
        );
        Ok(())
    });
}

/// Two names of two arrays, and two names of one array whose accesses never race, run.
#[test]
fn shared_names_that_cannot_race_run() {
    let n = 1000usize;
    let want: Vec<f32> = (0..n)
        .map(|i| if i + 1 < n { i as f32 + 1.0 } else { i as f32 })
        .collect();
    on_each(|dev| {
        let (mut a, mut b) = (
            NuArray1::<f32>::from_fn(n, |i| i as f32),
            NuArray1::<f32>::new(n),
        );
        let (p, q) = (a.as_shared(), b.as_shared());
        nuwork!(64; nfor!(i in 0..n - 1 { q[i] = p[i + 1]; }))?;
        // Each element read and written by its own iteration only: no race as one array.
        let mut c = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let s = c.as_shared();
        let t = s;
        nuwork!(64; nfor!(i in 0..n - 1 { t[i] = s[i] + 1.0; }))?;
        assert_eq!(c.to_vec(), want, "{dev}");
        assert_eq!(b[3], 4.0, "{dev}");
        Ok(())
    });
}
