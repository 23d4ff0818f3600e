//! Shared writes (`NuArray::as_shared`) through the launch path, on one OpenCL device (PoCL in
//! CI) and the native engine: what moves, what stays valid, and how writes merge. The
//! two-device cases are in the facade's `tests/multi_device.rs`.

mod common;

use common::{native, opencl};
use nuda_runtime::{
    thread_stats, with_device, Counts, KernelSource, Launch, NativeLaunch, NuArray1, Transfers,
};

// SAFETY: the one access is guarded by the dim `n`.
static FILL: KernelSource = unsafe {
    KernelSource::new(
        "kernel void fill_range(global float* a, nu_idx n, nu_idx lo, nu_idx hi, float v) {
         nu_idx i = get_global_id(0);
         if (i >= lo && i < hi && i < n) a[i] = v;
     }",
    )
};

const N: usize = 1000;
const BYTES: u64 = (N * 4) as u64;

fn moved<R>(f: impl FnOnce() -> R) -> (R, Counts) {
    let before = thread_stats();
    let r = f();
    (r, thread_stats() - before)
}

fn fill_range(a: nuda_runtime::NuShared<'_, NuArray1<f32>>, lo: usize, hi: usize, v: f32) {
    let dev = opencl().expect("checked by the caller");
    Launch::new(&FILL, "fill_range")
        .on(&dev)
        .global([N])
        .array_shared(a)
        .index(lo)
        .index(hi)
        .arg(v)
        .run()
        .unwrap();
}

#[test]
fn a_scope_without_launches_moves_nothing() {
    let mut a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let ((), d) = moved(|| {
        let _ = a.as_shared();
    });
    assert_eq!(d, Counts::default());
    assert_eq!(a.residency(), (true, vec![]));
    assert_eq!(a[7], 7.0);
}

#[test]
fn one_writer_keeps_its_copy_and_nothing_is_merged() {
    let Some(dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    let ((), d) = moved(|| fill_range(a.as_shared(), 10, 20, -1.0));
    assert_eq!(
        d.to_device,
        Transfers {
            count: 1,
            bytes: BYTES
        }
    );
    assert_eq!(
        a.residency(),
        (false, vec![dev.index()]),
        "only the writer holds the data"
    );
    let (v, d) = moved(|| a[15]);
    assert_eq!((v, d.to_host.count), (-1.0, 1));
    assert_eq!((a[9], a[20]), (9.0, 20.0));
}

#[test]
fn opencl_and_native_writes_merge_and_untouched_elements_keep_the_base() {
    let Some(_dev) = opencl() else { return };
    let native = native();
    let mut a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    {
        let s = a.as_shared();
        fill_range(s, 0, 100, -1.0);
        with_device(native.index(), || {
            let v = s.write_view();
            NativeLaunch::new([N]).run(|w| {
                let i = w.global_id(0);
                if (900..N).contains(&i) {
                    v.set(i, -2.0);
                }
            })
        })
        .unwrap()
        .unwrap();
    }
    let (got, d) = moved(|| a.to_vec());
    assert_eq!(
        d.to_host,
        Transfers {
            count: 1,
            bytes: BYTES
        },
        "one download, to merge"
    );
    let want: Vec<f32> = (0..N)
        .map(|i| match i {
            0..100 => -1.0,
            900.. => -2.0,
            _ => i as f32,
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        a.residency(),
        (true, vec![]),
        "each device held only its own writes"
    );
}

#[test]
fn writing_what_was_already_there_is_no_change() {
    let Some(_dev) = opencl() else { return };
    let native = native();
    let mut a = NuArray1::<f32>::from_fn(N, |i| if i % 2 == 0 { f32::NAN } else { 1.0 });
    {
        let s = a.as_shared();
        // The same NaN bits over NaN, and 1.0 over 1.0: no element changes, whoever merges.
        fill_range(s, 0, N, 1.0);
        with_device(native.index(), || {
            let v = s.write_view();
            NativeLaunch::new([N]).run(|w| v.set(w.global_id(0), 3.0))
        })
        .unwrap()
        .unwrap();
    }
    // OpenCL changed the NaNs to 1.0, the native engine everything to 3.0: elements both
    // changed are a race, so only check that nothing unwritten survived.
    assert!(a.to_vec().iter().all(|&v| v == 1.0 || v == 3.0));
}

#[test]
fn overwriting_on_the_host_discards_pending_shared_writes() {
    let Some(_dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::from_fn(N, |i| i as f32);
    fill_range(a.as_shared(), 0, N, 5.0);
    let (r, d) = moved(|| a.fill(8.0));
    r.unwrap();
    assert!(d.no_transfers(), "{d:?}");
    assert_eq!(a[3], 8.0);
}
