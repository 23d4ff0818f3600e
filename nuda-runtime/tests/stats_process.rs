//! `nuda::stats()`, the process-wide counters, asserted exactly: this binary holds one test,
//! so no other thread moves data meanwhile. Several host threads share one read-only array.

mod common;

use common::opencl;
use nuda_runtime::{stats, KernelSource, Launch, NuArray1, Transfers};

// SAFETY: accesses are guarded by `n`, and every launch here passes `a` and `b` of one length.
static SCALE: KernelSource = unsafe {
    KernelSource::new(
        "kernel void scale(global const float* a, nu_idx n, global float* b, nu_idx m, float s) {
         nu_idx i = get_global_id(0);
         if (i < n) b[i] = s * a[i];
     }",
    )
};

#[test]
fn shared_read_only_array_uploads_once_for_all_threads() {
    let Some(dev) = opencl() else { return };
    let n = 4096;
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let before = stats();
    let results: Vec<Vec<f32>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let (a, dev) = (&a, &dev);
                s.spawn(move || {
                    let mut b = NuArray1::<f32>::new(n);
                    for _ in 0..10 {
                        Launch::new(&SCALE, "scale")
                            .on(dev)
                            .global([n])
                            .local([64])
                            .array(a)
                            .array_mut(&mut b)
                            .arg(t as f32)
                            .run()
                            .unwrap();
                    }
                    b.to_vec()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let after = stats();
    for (t, r) in results.iter().enumerate() {
        assert!(
            r.iter().enumerate().all(|(i, &v)| v == t as f32 * i as f32),
            "thread {t}"
        );
    }
    let d = after.total - before.total;
    assert_eq!(
        d.to_device,
        Transfers {
            count: 1,
            bytes: (n * 4) as u64
        },
        "`a` went up once: {d:?}"
    );
    assert_eq!(
        d.to_host,
        Transfers {
            count: 4,
            bytes: (4 * n * 4) as u64
        },
        "each `b` came down once"
    );
    assert_eq!(d.launches, 40);
    let per = after.per_device[dev.index()]
        - before
            .per_device
            .get(dev.index())
            .copied()
            .unwrap_or_default();
    assert_eq!(per.launches, 40, "counted on the device that ran them");
}
