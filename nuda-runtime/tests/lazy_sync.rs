//! Lazy synchronisation on a real OpenCL device (PoCL in CI), asserted with transfer
//! counters: every transfer that happens is needed, and every needed one happens.

mod common;

use common::{native, opencl};
use nuda_runtime::DeviceKind;
use nuda_runtime::{thread_stats, Counts, KernelSource, Launch, NativeLaunch, NuArray1, Transfers};

// SAFETY: accesses are guarded by `n`, and every launch here passes `a` and `b` of one length.
static SCALE: KernelSource = unsafe {
    KernelSource::new(
        "kernel void scale(global const float* a, nu_idx n, global float* b, nu_idx m, float s) {
         nu_idx i = get_global_id(0);
         if (i < n) b[i] = s * a[i];
     }
     kernel void bump(global float* b, nu_idx n) {
         nu_idx i = get_global_id(0);
         if (i < n) b[i] += 1.0f;
     }",
    )
};

const N: usize = 1000;
const BYTES: u64 = (N * 4) as u64;

fn scale(dev: &nuda_runtime::Device, a: &NuArray1<f32>, b: &mut NuArray1<f32>, s: f32) {
    Launch::new(&SCALE, "scale")
        .on(dev)
        .global([N])
        .local([64])
        .array(a)
        .array_mut(b)
        .arg(s)
        .run()
        .unwrap();
}

fn moved<R>(f: impl FnOnce() -> R) -> Counts {
    let before = thread_stats();
    f();
    thread_stats() - before
}

#[test]
fn host_write_then_launch_uploads_once_and_zeros_are_filled_not_copied() {
    let Some(dev) = opencl() else { return };
    let a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let mut b = NuArray1::<f32>::new(N);
    let d = moved(|| scale(&dev, &a, &mut b, 2.0));
    assert_eq!(
        d.to_device,
        Transfers {
            count: 1,
            bytes: BYTES
        },
        "only `a` crosses; {d:?}"
    );
    assert_eq!(d.to_host.count, 0);
    assert_eq!(d.fills.count, 1, "the zeroed `b` is filled on the device");
    assert_eq!(d.launches, 1);
}

#[test]
fn launch_then_host_read_downloads_once() {
    let Some(dev) = opencl() else { return };
    let a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let mut b = NuArray1::<f32>::new(N);
    scale(&dev, &a, &mut b, 3.0);
    let d = moved(|| assert_eq!(b[10], 30.0));
    assert_eq!(
        d.to_host,
        Transfers {
            count: 1,
            bytes: BYTES
        }
    );
    let d = moved(|| assert_eq!(b.to_vec()[999], 2997.0));
    assert!(
        d.no_transfers(),
        "host read with no device write in between moves nothing: {d:?}"
    );
}

#[test]
fn two_launches_with_no_host_access_between_move_nothing() {
    let Some(dev) = opencl() else { return };
    let a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let mut b = NuArray1::<f32>::new(N);
    scale(&dev, &a, &mut b, 1.0);
    let d = moved(|| {
        scale(&dev, &a, &mut b, 4.0);
        Launch::new(&SCALE, "bump")
            .on(&dev)
            .global([N])
            .array_mut(&mut b)
            .run()
            .unwrap();
    });
    assert!(d.no_transfers(), "{d:?}");
    assert_eq!(d.launches, 2);
    assert_eq!(b[5], 21.0);
}

#[test]
fn reading_an_array_kernels_only_read_moves_nothing() {
    let Some(dev) = opencl() else { return };
    let a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let mut b = NuArray1::<f32>::new(N);
    scale(&dev, &a, &mut b, 1.0);
    let d = moved(|| assert_eq!(a[7], 7.0));
    assert!(
        d.no_transfers(),
        "a kernel read does not make the host copy stale: {d:?}"
    );
    assert_eq!(a.residency(), (true, vec![dev.index()]));
}

#[test]
fn host_writes_make_the_device_copy_stale() {
    let Some(dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let mut b = NuArray1::<f32>::new(N);
    scale(&dev, &a, &mut b, 1.0);
    a[0] = 100.0;
    let d = moved(|| scale(&dev, &a, &mut b, 1.0));
    assert_eq!(
        d.to_device,
        Transfers {
            count: 1,
            bytes: BYTES
        },
        "{d:?}"
    );
    assert_eq!(b[0], 100.0);
}

#[test]
fn copy_from_slice_over_device_data_downloads_nothing() {
    let Some(dev) = opencl() else { return };
    let a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let mut b = NuArray1::<f32>::new(N);
    scale(&dev, &a, &mut b, 1.0);
    let d = moved(|| b.copy_from_slice(&vec![5.0; N]).unwrap());
    assert!(d.no_transfers(), "{d:?}");
    assert_eq!(b.residency(), (true, vec![]));
    assert_eq!(b[3], 5.0);
}

#[test]
fn fill_over_device_data_downloads_nothing_and_the_next_launch_uploads() {
    let Some(dev) = opencl() else { return };
    let a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let mut b = NuArray1::<f32>::new(N);
    scale(&dev, &a, &mut b, 1.0);
    let d = moved(|| b.fill(f32::NAN).unwrap());
    assert!(d.no_transfers(), "{d:?}");
    assert!(b[7].is_nan());
    let d = moved(|| {
        Launch::new(&SCALE, "bump")
            .on(&dev)
            .global([N])
            .array_mut(&mut b)
            .run()
            .unwrap()
    });
    assert_eq!(d.to_device.bytes, BYTES, "{d:?}");
    assert!(
        b[7].is_nan(),
        "NaN + 1 is NaN: the filled data reached the device"
    );
}

#[test]
fn launches_add_their_kernel_time() {
    let Some(dev) = opencl() else { return };
    let a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let mut b = NuArray1::<f32>::new(N);
    let d = moved(|| scale(&dev, &a, &mut b, 1.0));
    assert_eq!(d.launches, 1);
    assert!(d.kernel_nanos > 0, "{d:?}");
    let d = moved(|| NativeLaunch::new([N]).run(|_| {}).unwrap());
    assert_eq!(d.launches, 1);
    assert!(d.kernel_nanos > 0, "{d:?}");
}

#[test]
fn data_follows_writes_between_opencl_and_the_native_engine() {
    let Some(dev) = opencl() else { return };
    let _native = native();
    let a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let mut b = NuArray1::<f32>::new(N);
    scale(&dev, &a, &mut b, 2.0);
    // The native engine works on the host copy: one download, then the device copy is stale.
    let d = moved(|| {
        let v = b.write_view().unwrap();
        NativeLaunch::new([N])
            .run(|w| v.set(w.global_id(0), v.get(w.global_id(0)) + 1.0))
            .unwrap();
    });
    assert_eq!(d.to_host.count, 1, "{d:?}");
    assert_eq!(b.residency(), (true, vec![]));
    let d = moved(|| {
        Launch::new(&SCALE, "bump")
            .on(&dev)
            .global([N])
            .array_mut(&mut b)
            .run()
            .unwrap()
    });
    assert_eq!(d.to_device.count, 1, "{d:?}");
    assert_eq!(b[10], 22.0);
}

/// A large array through many rounds of host write, kernel and host read, on every device
/// that is not the native engine, every element checked: on CUDA and HIP its host copy is
/// pinned from its ninth transfer (`NUDA_PIN_HOST`), so the later rounds copy straight from
/// and into it, where the first stage; elsewhere every round stages or copies as before.
#[test]
fn a_large_array_round_trips_many_times_on_every_device() {
    if opencl().is_none() {
        return;
    }
    let n = 3 << 20; // 12 MiB of f32, over the pins' 4 MiB and a CUDA staging chunk
    let listed = nuda_runtime::devices()
        .into_iter()
        .filter(|d| d.kind != DeviceKind::Native);
    for info in listed {
        let dev = nuda_runtime::device(info.index).unwrap();
        let mut a = NuArray1::<f32>::from_fn(n, |i| (i % 1000) as f32);
        for round in 1..=7u32 {
            a.as_mut_slice()[round as usize] = -1.0;
            Launch::new(&SCALE, "bump")
                .on(&dev)
                .global([n])
                .local([64])
                .array_mut(&mut a)
                .run()
                .unwrap();
            let got = a.as_slice();
            let bad = (0..n).find(|&i| {
                let base = if (1..=round as usize).contains(&i) {
                    // Set to -1 in round `i`, bumped in that round and every later one.
                    -1.0 + (round as usize - i + 1) as f32
                } else {
                    (i % 1000) as f32 + round as f32
                };
                got[i] != base
            });
            assert!(
                bad.is_none(),
                "{}: round {round}, element {bad:?}",
                info.name
            );
        }
    }
}
