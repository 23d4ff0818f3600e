//! A third backend next to OpenCL and the native engine, registered by one line: hand-written
//! kernels reach it through the same dispatch path as on the native engine (the device's
//! backend runs the launch's tasks), and give what plain Rust gives.

mod dummy;

use nuda_runtime::device::register;
use nuda_runtime::{device, devices, Error, Launch, NativeLaunch, NuArray1};
use nuda_runtime::{KernelSource, Result};
use std::sync::atomic::Ordering;

#[test]
fn a_registered_backend_runs_hand_written_kernels() -> Result<()> {
    register(&dummy::DUMMY)?;
    let dev = device(dummy::index())?;
    assert!(dev.is_native(), "the dummy runs the native form");
    let n = 1000;
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let mut b = NuArray1::<f32>::new(n);
    let (av, bv) = (a.read_view()?, b.write_view()?);
    let before = dummy::TASKS.load(Ordering::Relaxed);
    NativeLaunch::new([n]).local([64]).on(&dev).run(|w| {
        let i = w.global_id(0);
        if i < n {
            bv.set(i, 3.0 * av[i] + 1.0);
        }
    })?;
    // 1000 rounded up to 16 groups of 64: one task per group, all on the dummy.
    assert_eq!(dummy::TASKS.load(Ordering::Relaxed) - before, 16);
    let want: Vec<f32> = (0..n).map(|i| 3.0 * i as f32 + 1.0).collect();
    assert_eq!(b.as_slice(), &want[..]);
    barrier_kernel(&dev)?;
    refusals(&dev)
}

/// A work-group reduction with barriers: each group sums its 32 values through a tree.
fn barrier_kernel(dev: &nuda_runtime::Device) -> Result<()> {
    let (n, group) = (256, 32);
    let x = NuArray1::<u32>::from_fn(n, |i| i as u32 * 7 % 13);
    let mut sums = NuArray1::<u32>::new(n / group);
    let mut tmp = NuArray1::<u32>::new(n);
    let (xv, sv, tv) = (x.read_view()?, sums.write_view()?, tmp.write_view()?);
    NativeLaunch::new([n])
        .local([group])
        .on(dev)
        .run_with_barrier(|w, b| {
            let (g, l) = (w.global_id(0), w.local_id(0));
            tv.set(g, xv[g]);
            b.wait();
            let mut stride = group / 2;
            while stride > 0 {
                if l < stride {
                    tv.set(g, tv.get(g) + tv.get(g + stride));
                }
                b.wait();
                stride /= 2;
            }
            if l == 0 {
                sv.set(w.group_id(0), tv.get(g));
            }
        })?;
    let want: Vec<u32> = x.as_slice().chunks(group).map(|c| c.iter().sum()).collect();
    assert_eq!(sums.as_slice(), &want[..]);
    Ok(())
}

/// What the dummy cannot do is an error that names it, and the list is fixed once built.
fn refusals(dev: &nuda_runtime::Device) -> Result<()> {
    // SAFETY: the kernel is never built: the dummy device refuses OpenCL C before that.
    static SRC: KernelSource = unsafe { KernelSource::new("kernel void k() {}") };
    let e = Launch::new(&SRC, "k").on(dev).run().unwrap_err();
    assert!(e.to_string().contains("OpenCL C kernel"), "{e}");
    let e = register(&dummy::DUMMY).unwrap_err();
    assert!(matches!(e, Error::BadSelection { .. }), "{e}");
    assert!(e.to_string().contains("already built"), "{e}");
    assert_eq!(
        devices().iter().filter(|d| d.platform == "dummy").count(),
        1
    );
    Ok(())
}
