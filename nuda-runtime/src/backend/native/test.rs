//! Tests of the native engine: work-item numbering, rounding of the global size, views, and
//! panics turned into errors.

use crate::launch::NativeLaunch;
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
fn a_panicking_work_item_is_one_error_at_the_callers_line() {
    let a = NuArray1::<f32>::new(4);
    let v = a.read_view().unwrap();
    let line = line!() + 2;
    let e = NativeLaunch::new([8]).name("oob").run(|w| {
        let _ = v[w.global_id(0)];
    });
    let e = e.unwrap_err();
    let (location, msg) = panic_fault(&e);
    assert!(msg.contains("out of bounds"), "{e}");
    assert_eq!(location, &format!("{}:{line}:18", file!()), "{e}");
}

/// A barrier some work-items skip is an error at the barrier, whichever side finishes
/// first, not a hang.
#[test]
fn a_skipped_barrier_is_an_error_not_a_hang() {
    for early in [0usize, 3] {
        let line = line!() + 6;
        let e = NativeLaunch::new([8])
            .local([4])
            .name("skip")
            .run_with_barrier(|w, b| {
                if w.local_id(0) != early {
                    b.wait();
                }
            })
            .unwrap_err();
        let (location, msg) = panic_fault(&e);
        assert!(msg.contains("without reaching a `barrier()`"), "{e}");
        assert!(location.starts_with(&format!("{}:{line}:", file!())), "{e}");
    }
    // Every work-item reaching every barrier is fine, with early finishers after the last.
    let done = AtomicUsize::new(0);
    NativeLaunch::new([8])
        .local([4])
        .run_with_barrier(|w, b| {
            b.wait();
            b.wait();
            if w.local_id(0) == 0 {
                return;
            }
            done.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    assert_eq!(done.into_inner(), 6);
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

/// Runs under Miri (`scripts/miri`): shared writable views from several threads, including
/// racing writes to one element, must not be undefined behaviour.
#[test]
fn views_shared_across_threads_are_free_of_undefined_behaviour() {
    use super::{ArrayView, ArrayViewMut, ImageViewMut};
    let mut data = vec![0.0f32; 64];
    let src: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let read = ArrayView::new(&src, (8, 8));
    let write = ArrayViewMut::new(&mut data, (8, 8));
    std::thread::scope(|s| {
        for t in 0..4 {
            let (read, write) = (&read, &write);
            s.spawn(move || {
                for j in 0..8 {
                    write.set((2 * t, j), read[(2 * t, j)] * 2.0);
                    write.set((2 * t + 1, j), read.get((2 * t + 1, j)) * 2.0);
                    write.set((0, 0), t as f32); // a race the user promised away: unspecified
                }
            });
        }
    });
    assert!(data[1..].iter().zip(&src[1..]).all(|(d, s)| *d == 2.0 * s));
    let mut texels = vec![[0.0f32; 4]; 4];
    let img = ImageViewMut::new(&mut texels, (2, 2));
    std::thread::scope(|s| {
        for y in 0..2 {
            let img = &img;
            s.spawn(move || img.write(1, y, [y as f32; 4]));
        }
    });
    assert_eq!(texels[3], [1.0; 4]);
}

#[test]
fn views_trusted_accesses_touch_exactly_their_element() {
    use super::{ArrayView, ArrayViewMut, ImageViewMut};
    use crate::fault::{Checker, Faults, Site, SiteKind};
    static SITE: Site = Site::new(SiteKind::Read, "a", 2, "test.rs", 1, 1);
    let faults = Faults::new();
    // SAFETY: every index below is inside its view's dims.
    let f = unsafe { Checker::trusting(&faults) };
    let src: Vec<u16> = (0..12).collect();
    let (mut data, mut texels) = (vec![0u16; 12], vec![[0.0f32; 4]; 6]);
    let read = ArrayView::new(&src, (3, 4));
    let write = ArrayViewMut::new(&mut data, (3, 4));
    for (i, j) in [(0, 0), (1, 3), (2, 3), (2, 0)] {
        write.store((i, j), read.load((i, j), f, &SITE) + 1, f, &SITE);
        assert_eq!(write.load((i, j), f, &SITE), (i * 4 + j) as u16 + 1);
    }
    let img = ImageViewMut::new(&mut texels, (3, 2));
    img.write_at(2, 1, [5.0; 4], f, &SITE);
    assert_eq!(data, [1, 0, 0, 0, 0, 0, 0, 8, 9, 0, 0, 12]);
    assert_eq!(texels[5], [5.0; 4]);
    assert!(faults.first().is_none());
}

#[test]
fn views_disjoint_plain_stores_from_many_threads() {
    use super::ArrayViewMut;
    use crate::fault::{Checker, Faults, Site, SiteKind};
    static SITE: Site = Site::new(SiteKind::Write, "out", 2, "test.rs", 1, 1);
    let faults = Faults::new();
    let mut data = vec![0u32; 4 * 8];
    let view = ArrayViewMut::new(&mut data, (4, 8));
    // SAFETY: thread t touches only row t.
    let rows = unsafe { view.disjoint() };
    std::thread::scope(|s| {
        for t in 0..4 {
            let faults = &faults;
            s.spawn(move || {
                let f = Checker::new(faults);
                for j in 0..8 {
                    rows.store((t, j), (t * 8 + j) as u32, f, &SITE);
                    let v = rows.load((t, j), f, &SITE);
                    rows.store((t, j), v * 2, f, &SITE);
                }
                rows.store((t, 8), 7, f, &SITE); // out of range: skipped and recorded
            });
        }
    });
    assert_eq!(data, (0..32).map(|v| 2 * v).collect::<Vec<u32>>());
    assert_eq!(faults.first().map(|r| r.index[1]), Some(8));
}

/// The location and message of a launch error that is a work-item's panic.
fn panic_fault(e: &Error) -> (&String, &String) {
    match e {
        Error::Kernel {
            location,
            fault: crate::KernelFault::Panic(msg),
            ..
        } => (location, msg),
        _ => panic!("not a panic fault: {e}"),
    }
}

/// A split kernel's group walks its work-items in the order, and with the ids, of the
/// engine's per-item runs (last dimension fastest), in 1, 2 and 3 dimensions.
#[test]
fn a_groups_items_match_the_per_item_numbering() {
    use super::GroupShape;
    use crate::backend::Geometry;
    let cases: [(&[usize], &[usize]); 4] = [
        (&[12], &[4]),
        (&[6, 10], &[3, 5]),
        (&[4, 6, 4], &[2, 3, 2]),
        (&[5, 1, 7], &[5, 1, 7]),
    ];
    for (global, local) in cases {
        // Built directly, not through a device's limits: Miri runs this test too.
        let geo = Geometry {
            global: global.to_vec(),
            local: Some(local.to_vec()),
        };
        let shape = GroupShape::new(&geo);
        for g in 0..shape.groups() {
            let group = super::Group::new(&shape, g);
            let walked: Vec<_> = group.items().collect();
            let want: Vec<_> = shape.items(g).enumerate().collect();
            assert_eq!(walked, want, "{global:?} / {local:?}, group {g}");
            assert_eq!(group.len(), want.len());
            for (op, bound) in [
                (0, 0),
                (0, 1),
                (0, 3),
                (1, 1),
                (1, 9),
                (2, 0),
                (2, 2),
                (2, 9),
            ] {
                let keep = |l: usize| [l < bound, l <= bound, l == bound][op as usize];
                let some: Vec<_> = group.items_where(op, bound).collect();
                let want: Vec<_> = (want.iter().filter(|(_, w)| keep(w.local_id(0))))
                    .copied()
                    .collect();
                assert_eq!(some, want, "{global:?} / {local:?}, op {op} {bound}");
            }
        }
    }
}
