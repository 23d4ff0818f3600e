//! Tests of the native engine: work-item numbering, rounding of the global size, views, and
//! panics turned into errors.

use super::NativeLaunch;
use crate::{Error, NuArray1, NuArray2, NuImage2};
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn every_work_item_runs_once_with_opencl_numbering() {
    let hits = NuArray2::<u32>::new((6, 10));
    let mut hits = hits;
    let view = hits.write_view().unwrap();
    let count = AtomicUsize::new(0);
    NativeLaunch::new([5, 10])
        .local([2, 4])
        .run(|w| {
            count.fetch_add(1, Ordering::Relaxed);
            let (i, j) = (w.global_id(0), w.global_id(1));
            assert_eq!(i, w.group_id(0) * w.local_size(0) + w.local_id(0));
            assert_eq!(
                (w.global_size(0), w.global_size(1)),
                (6, 12),
                "rounded up to the local size"
            );
            assert_eq!(w.num_groups(1), 3);
            if i < 5 && j < 10 {
                view.set((i, j), view.get((i, j)) + 1);
            }
        })
        .unwrap();
    assert_eq!(count.into_inner(), 6 * 12);
    let ran: u32 = hits.as_slice().iter().sum();
    assert_eq!(ran, 50);
    assert!(hits.as_slice()[..50].iter().all(|&h| h == 1));
}

#[test]
fn a_panicking_work_item_is_a_launch_error() {
    let a = NuArray1::<f32>::new(4);
    let v = a.read_view().unwrap();
    let e = NativeLaunch::new([8]).name("oob").run(|w| {
        let _ = v[w.global_id(0)];
    });
    let e = e.unwrap_err();
    assert!(matches!(e, Error::Launch { .. }), "{e}");
    assert!(e.to_string().contains("out of bounds"), "{e}");
}

#[test]
fn images_clamp_in_native_kernels_as_on_the_host() {
    let src = NuImage2::<f32>::from_fn((4, 3), |(x, y)| (x + 10 * y) as f32);
    let mut dst = NuImage2::<f32>::new((4, 3));
    let (s, d) = (src.read_view().unwrap(), dst.write_view().unwrap());
    NativeLaunch::new([4, 3])
        .run(|w| {
            let (x, y) = (w.global_id(0) as i32, w.global_id(1) as i32);
            d.write(x, y, s.read(x - 1, y + 1));
        })
        .unwrap();
    assert_eq!(dst.read(0, 0), src.read(-1, 1));
    assert_eq!(dst.read(3, 2), src.read(2, 3));
}

#[test]
fn bad_sizes_are_dims_errors() {
    let e = NativeLaunch::new([8, 8])
        .local([4])
        .run(|_| {})
        .unwrap_err();
    assert!(matches!(e, Error::DimsMismatch { .. }), "{e}");
    let e = NativeLaunch::new([1, 1, 1, 1]).run(|_| {}).unwrap_err();
    assert!(e.to_string().contains("1 to 3 global sizes"), "{e}");
}
