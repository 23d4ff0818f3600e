//! Identities and combinations against plain Rust, and the reduction geometry.

use super::*;
use crate::backend::native::NativeEngine;
use crate::device::Device;
use std::sync::Arc;

#[test]
fn identities_leave_every_value_unchanged() {
    for v in [0i32, 1, -1, 7, i32::MIN, i32::MAX] {
        for op in RedOp::all() {
            assert_eq!(i32::combine(op, i32::identity(op), v), v, "{op:?}");
            assert_eq!(i32::combine(op, v, i32::identity(op)), v, "{op:?}");
        }
    }
    // Bit for bit, both ways round: -0.0 stays -0.0 and NaN stays NaN (0.0 and infinities,
    // the identities before, broke both).
    let sub = f32::from_bits(1);
    for v in [
        0.0f32,
        -0.0,
        -0.5,
        3.0,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        sub,
        -sub,
        f32::NAN,
    ] {
        for op in [RedOp::Add, RedOp::Mul, RedOp::Min, RedOp::Max] {
            for got in [
                f32::combine(op, f32::identity(op), v),
                f32::combine(op, v, f32::identity(op)),
            ] {
                let same = got.to_bits() == v.to_bits() || (got.is_nan() && v.is_nan());
                assert!(same, "{op:?} of {v:?} gave {got:?}");
            }
        }
    }
}

#[test]
fn integers_wrap_and_pointer_sized_ones_travel_as_64_bits() {
    assert_eq!(u8::combine(RedOp::Add, 200, 100), 44);
    assert_eq!(i16::combine(RedOp::Mul, 300, 300), 300i16.wrapping_mul(300));
    assert_eq!(usize::from_dev(usize::MAX.to_dev()), usize::MAX);
    assert_eq!(isize::from_dev((-5isize).to_dev()), -5);
    assert_eq!(reduce_cl_type(&0usize), "ulong");
    assert_eq!(reduce_cl_type(&0f32), "float");
}

#[test]
fn float_min_and_max_ignore_a_nan_as_opencl_fmin_does() {
    assert_eq!(f32::combine(RedOp::Max, f32::NAN, 1.0), 1.0);
    assert_eq!(f64::combine(RedOp::Min, 2.0, f64::NAN), 2.0);
}

fn native() -> Device {
    Device::new(Arc::new(NativeEngine::new(0)))
}

#[test]
#[cfg_attr(miri, ignore = "the native engine reads /proc for its thread count")]
fn the_geometry_caps_groups_in_whole_groups() {
    let dev = native();
    let cap = dev.info().compute_units as usize * 32;
    let g = reduce_global(&dev, [1 << 24], [256]);
    assert_eq!(g[0] % 256, 0);
    assert!(g[0] / 256 <= cap && g[0] / 256 > cap / 2, "{g:?}");
    assert_eq!(reduce_global(&dev, [1000], [256]), [1024]);
    assert_eq!(reduce_global(&dev, [0, 50], [8, 8])[0], 0);
    let g = reduce_global(&dev, [5000, 5000], [16, 16]);
    assert!((g[0] / 16) * (g[1] / 16) <= cap, "{g:?}");
}

#[test]
fn push_counters_of_32_bits_are_guarded() {
    use super::scan::{push_guard, push_len, push_start};
    assert!(push_guard("v", 10, [1000, 1000], 3).is_ok());
    let e = push_guard("v", 10, [1 << 20, 1 << 12], 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`v`"), "{e}");
    assert!(push_guard("v", u32::MAX as usize, [1], 1).is_err());
    assert_eq!(push_start::<u32>(usize::MAX), u32::MAX);
    assert_eq!(push_len(push_start::<usize>(7)), 7);
}

#[test]
#[cfg_attr(miri, ignore = "the native engine reads /proc for its thread count")]
fn integer_arrays_that_fit_are_privatised() {
    use super::Privatised;
    use crate::kernel::desc::Input;
    let dev = native();
    let room = (dev.info().local_memory / 2) as usize;
    let bins = |n: usize, ty| Privatised::new(&dev, Input::Array([n, 1, 1], 1, ty)).on();
    assert!(bins(256, "uint") && bins(256, "long") && bins(16, "int"));
    assert_eq!(bins(8192, "uint"), room >= 32 << 10);
    // Past the budget, empty, floats (whose sums would reassociate), structs.
    assert!(!bins(8193, "uint") && !bins(4097, "ulong") && !bins(0, "uint"));
    assert!(!bins(256, "float") && !bins(256, "nu_s_Pair"));
    let grid = Privatised::new(&dev, Input::Array([64, 64, 1], 2, "uint"));
    assert!(grid.on());
    assert!(!Privatised::new(&dev, Input::Array([64, 64, 3], 3, "uint")).on());
    assert!(!Privatised::new(&dev, Input::Image(16, 16)).on());
}

/// A native segment's copy (`NativeCopy`) starts at zero, leaves the array alone until its
/// flush, and then composes into it exactly: an add of a wrapped negative is a `sub`, an
/// `or` or `xor` flushes as itself, when flushed or dropped. A float array, and a segment
/// shorter than the array, keep their atomics on the array (under Miri: the flush's typed
/// view of the cells).
#[test]
fn a_native_copy_flushes_what_its_atomics_did() {
    use crate::atomic::AtomicOp;
    use crate::backend::native::ArrayViewMut;
    use crate::element::Pod;
    let mut data = vec![5u32, 0, 7, 1];
    let target = ArrayViewMut::new(&mut data, 4usize);
    let mut copy = NativeCopy::new(&target, AtomicOp::Add, 4);
    let cells = copy.view().raw_cells();
    assert!(cells.iter().all(|c| u32::load(c) == 0));
    u32::store(&cells[1], 3);
    u32::store(&cells[2], 2u32.wrapping_neg());
    assert_eq!(u32::load(&target.raw_cells()[1]), 0);
    copy.flush();
    drop(copy); // flushed already: the drop adds nothing
    assert_eq!(data, [5, 3, 5, 1]);

    let mut bits = vec![0b0110i64, 0b1000];
    let target = ArrayViewMut::new(&mut bits, 2usize);
    let copy = NativeCopy::new(&target, AtomicOp::Xor, 2);
    i64::store(&copy.view().raw_cells()[0], 0b0011);
    drop(copy);
    assert_eq!(bits, [0b0101, 0b1000]);

    let mut real = vec![1.5f32; 2];
    let target = ArrayViewMut::new(&mut real, 2usize);
    let copy = NativeCopy::new(&target, AtomicOp::Add, 2);
    let same = std::ptr::eq(copy.view().raw_cells(), target.raw_cells());
    assert!(same, "a float array was copied");
    let mut few = vec![0u32; 8];
    let target = ArrayViewMut::new(&mut few, 8usize);
    let copy = NativeCopy::new(&target, AtomicOp::Add, 7);
    let same = std::ptr::eq(copy.view().raw_cells(), target.raw_cells());
    assert!(same, "a segment shorter than the array was given a copy");
}

/// Each thread's copy of a `#[nukernel]`'s privatised array is its own, with plain atomics,
/// and every copy lands in the array: the rayon slots', the foreign slots' and the spilled
/// threads'.
#[test]
#[cfg_attr(miri, ignore = "67 threads are slow under Miri")]
fn every_threads_copy_lands_in_the_array() {
    use crate::atomic::AtomicOp;
    use crate::backend::native::ArrayViewMut;
    use crate::fault::{Checker, Faults, Site, SiteKind};
    use crate::kernel::AtomicArray;
    static SITE: Site = Site::new(SiteKind::Write, "hist", 1, "t.rs", 1, 1);
    let mut data = vec![1u32, 0, 0];
    let target = ArrayViewMut::new(&mut data, 3usize);
    let copies = NativeCopies::new(&target, AtomicOp::Add);
    let n = crate::backend::native::FOREIGN + 3;
    let (all_in, faults) = (std::sync::Barrier::new(n), Faults::new());
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| {
                // SAFETY: the view stays on this thread.
                let own = unsafe { copies.view_plain() };
                let f = Checker::<false>::new(&faults);
                assert_eq!(own.rmw(2, AtomicOp::Add, 5, f, &SITE), 0, "a fresh copy");
                assert_eq!(
                    own.rmw(2, AtomicOp::Add, 1, f, &SITE),
                    5,
                    "one thread's copy"
                );
                // Every thread holds its copy until all have one.
                all_in.wait();
            });
        }
    });
    copies.flush();
    drop(copies);
    assert_eq!(data, [1, 0, 6 * n as u32]);
}
