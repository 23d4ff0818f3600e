//! Several devices at once: `annot!(nudevs; ..)`, arrays shared across devices, writes from
//! several devices merged on the host, and several host threads on shared arrays. Each test
//! runs in a child process that sees two PoCL CPU devices (`POCL_DEVICES="pthread pthread"`)
//! plus the native engine, and compares with plain Rust. Transfers are asserted per device
//! with `nuda::stats()` (the child runs one test, so the process counters are the test's).

mod common;

use common::in_two_device_child;
use nuda::prelude::*;
use nuda::{stats, Counts, Transfers};

/// Counters of device `d` between two snapshots.
fn delta(before: &nuda::Stats, after: &nuda::Stats, d: usize) -> Counts {
    let get = |s: &nuda::Stats| s.per_device.get(d).copied().unwrap_or_default();
    get(after) - get(before)
}

fn inputs(n: usize) -> (NuArray2<f32>, NuArray2<f32>) {
    let a = NuArray2::from_fn((n, n), |(i, j)| (i * 3 + j) as f32 * 0.5);
    let b = NuArray2::from_fn((n, n), |(i, j)| (i + 7 * j) as f32);
    (a, b)
}

/// `c = a + b`, row blocks split over every device, as in the `nudevs` example of `nuda::guide::shared_writes`.
fn add_on_all_devices(a: &NuArray2<f32>, b: &NuArray2<f32>, c: &mut NuArray2<f32>) -> Result<()> {
    let n = a.dims().0;
    let ndev = nuda::devices().len();
    let c = c.as_shared();
    annot!(nudevs; nfor!(d in ndev {
        let rows = n.div_ceil(ndev);
        let (lo, hi) = ((d * rows).min(n), ((d + 1) * rows).min(n));
        nuwork!(1, 16; nfor!((i, j) in (lo..hi, n) {
            c[(i, j)] = a[(i, j)] + b[(i, j)];
        }))?;
    }))
}

#[test]
fn nudevs_splits_the_rows_and_the_writes_merge() {
    if !in_two_device_child("nudevs_splits_the_rows_and_the_writes_merge") {
        return;
    }
    let n = 90;
    let (a, b) = inputs(n);
    let mut c = NuArray2::<f32>::new((n, n));
    let s0 = stats();
    add_on_all_devices(&a, &b, &mut c).unwrap();
    for i in 0..n {
        for j in 0..n {
            assert_eq!(c[(i, j)], a[(i, j)] + b[(i, j)], "c[({i}, {j})]");
        }
    }
    let s1 = stats();
    let bytes = (n * n * 4) as u64;
    for d in 0..3 {
        assert_eq!(delta(&s0, &s1, d).launches, 1, "device {d} ran its rows");
    }
    for d in 0..2 {
        let k = delta(&s0, &s1, d);
        // a and b uploaded once each; c starts zero (a fill, no upload) and comes back once.
        let up = Transfers {
            count: 2,
            bytes: 2 * bytes,
        };
        let down = Transfers { count: 1, bytes };
        assert_eq!(
            (k.to_device, k.to_host, k.fills.count),
            (up, down, 1),
            "device {d}: {k:?}"
        );
    }
}

#[test]
fn a_second_run_moves_only_what_is_stale() {
    if !in_two_device_child("a_second_run_moves_only_what_is_stale") {
        return;
    }
    let n = 64;
    let (a, b) = inputs(n);
    let mut c = NuArray2::<f32>::new((n, n));
    add_on_all_devices(&a, &b, &mut c).unwrap();
    assert_eq!(c[(5, 6)], a[(5, 6)] + b[(5, 6)]);
    let s0 = stats();
    add_on_all_devices(&a, &b, &mut c).unwrap();
    assert_eq!(c[(n - 1, 0)], a[(n - 1, 0)] + b[(n - 1, 0)]);
    let s1 = stats();
    let bytes = (n * n * 4) as u64;
    for d in 0..2 {
        let k = delta(&s0, &s1, d);
        // a and b are still valid on the device. c's merged copy lives on the host, so each
        // device gets it once: a device's copy must hold the base wherever it does not write,
        // or the merge would take its stale elements for writes.
        let one = Transfers { count: 1, bytes };
        assert_eq!((k.to_device, k.to_host), (one, one), "device {d}: {k:?}");
    }
}

// SAFETY: the kernel touches no memory.
static BAD: KernelSource =
    unsafe { KernelSource::new("kernel void takes_two(float x, float y) {}") };

#[test]
fn an_error_on_one_device_is_reported_after_the_others_finish() {
    if !in_two_device_child("an_error_on_one_device_is_reported_after_the_others_finish") {
        return;
    }
    let n = 1000;
    let mut out = NuArray1::<f32>::new(n);
    let r = {
        let out = out.as_shared();
        annot!(nudevs; nfor!(d in 2usize {
            if d == 1 {
                // One argument for a kernel that takes two: a launch error on device 1.
                Launch::new(&BAD, "takes_two").arg(1.0f32).run()?;
            } else {
                nuwork!(64; nfor!(i in n { out[i] = i as f32 * 2.0; }))?;
            }
        }))
    };
    let e = r.expect_err("device 1's launch fails");
    let msg = e.to_string();
    assert!(matches!(e, Error::Launch { .. }), "{msg}");
    assert!(
        msg.contains("device 1 ("),
        "the error names device 1: {msg}"
    );
    assert!(msg.contains("declares 2 parameters"), "{msg}");
    // Device 0 finished its work, and its writes merged.
    assert!((0..n).all(|i| out[i] == i as f32 * 2.0));
}

#[test]
fn host_threads_share_read_only_arrays_with_no_lost_update() {
    if !in_two_device_child("host_threads_share_read_only_arrays_with_no_lost_update") {
        return;
    }
    let (n, threads, iters) = (4096usize, 6usize, 20i64);
    let a = NuArray1::<i64>::from_fn(n, |i| i as i64 % 97);
    let b = NuArray1::<i64>::from_fn(n, |i| 3 - i as i64 % 5);
    let mut totals = NuArray2::<i64>::new((threads, n));
    let ndev = nuda::devices().len();
    let s0 = stats();
    {
        let totals = totals.as_shared();
        std::thread::scope(|s| {
            for t in 0..threads {
                let (a, b) = (&a, &b);
                s.spawn(move || {
                    nuda::with_device(t % ndev, || -> Result<()> {
                        let mut acc = NuArray1::<i64>::new(n);
                        for k in 0..iters {
                            nuwork!(64; nfor!(i in n { acc[i] += a[i] * b[i] + k; }))?;
                        }
                        nuwork!(64; nfor!(i in n { totals[(t, i)] = acc[i]; }))
                    })
                    .unwrap()
                    .unwrap()
                });
            }
        });
    }
    let ks: i64 = (0..iters).sum();
    for t in 0..threads {
        for i in 0..n {
            let want = iters * a[i] * b[i] + ks;
            assert_eq!(totals[(t, i)], want, "thread {t}, element {i}");
        }
    }
    let s1 = stats();
    for d in 0..2 {
        // Three threads ran 21 launches each on this device; a and b went up once.
        let k = delta(&s0, &s1, d);
        assert_eq!(k.launches, 42, "device {d}: {k:?}");
        assert_eq!(k.to_device.count, 2, "device {d}: {k:?}");
    }
}

/// NUDA's own form: the body writes `c` directly, and nudevs shares it (as `c.as_shared()`).
fn add_as_nuda_wrote_it(a: &NuArray2<f32>, b: &NuArray2<f32>, c: &mut NuArray2<f32>) -> Result<()> {
    let n = a.dims().0;
    let ndev = nuda::devices().len();
    annot!(nudevs; nfor!(d in ndev {
        let (lo, hi) = (d * n / ndev, (d + 1) * n / ndev);
        nuwork!(1, 16; nfor!((i, j) in (lo..hi, n) {
            c[(i, j)] = a[(i, j)] * 2.0 + b[(i, j)];
        }))?;
    }))
}

#[test]
fn nudevs_shares_an_array_its_body_writes() {
    if !in_two_device_child("nudevs_shares_an_array_its_body_writes") {
        return;
    }
    let n = 45;
    let (a, b) = inputs(n);
    let mut c = NuArray2::<f32>::new((n, n));
    add_as_nuda_wrote_it(&a, &b, &mut c).unwrap();
    for i in 0..n {
        for j in 0..n {
            assert_eq!(c[(i, j)], a[(i, j)] * 2.0 + b[(i, j)], "c[({i}, {j})]");
        }
    }
    // The owned array works too (it needs `mut`, as `c.as_shared()` does).
    let mut owned = NuArray2::<f32>::new((n, n));
    let ndev = nuda::devices().len();
    annot!(nudevs; nfor!(d in ndev {
        nuwork!(16; nfor!(i in (d..n).step_by(ndev) { owned[(i, 0)] = i as f32; }))?;
    }))
    .unwrap();
    assert_eq!(owned[(44, 0)], 44.0);
}

/// A vector filtered in one pass keeps a device buffer larger than its length; shared writes
/// from two devices over it (as an array) still upload and merge only its elements.
#[test]
fn a_filtered_vector_takes_shared_writes_from_two_devices() {
    if !in_two_device_child("a_filtered_vector_takes_shared_writes_from_two_devices") {
        return;
    }
    let n = 1000;
    let a = NuArray1::<u32>::from_fn(n, |i| (i * 7 % 13) as u32);
    let mut v = NuVec::<u32>::new();
    nuda::with_device(
        0,
        || nuwork!(64; nfor!(i in n { if a[i] > 6 { v.push(a[i]); } })),
    )
    .unwrap()
    .unwrap();
    let kept: Vec<u32> = a.to_vec().into_iter().filter(|&x| x > 6).collect();
    let mut arr = v.into_array();
    let m = arr.len();
    assert_eq!(m, kept.len());
    {
        let out = arr.as_shared();
        let ndev = nuda::devices().len();
        annot!(nudevs; nfor!(d in ndev {
            let rows = m.div_ceil(ndev);
            let (lo, hi) = ((d * rows).min(m), ((d + 1) * rows).min(m));
            nuwork!(64; nfor!(i in lo..hi { out[i] = out[i] + 1; }))?;
        }))
        .unwrap();
    }
    let want: Vec<u32> = kept.iter().map(|x| x + 1).collect();
    assert_eq!(arr.to_vec(), want);
}
