//! Tests of host-side array behaviour: constructors, row-major indexing, bounds, copies.

use crate::{Error, NuArray1, NuArray2, NuArray3};

#[test]
fn from_fn_is_row_major_with_the_last_index_fastest() {
    let a = NuArray2::<i32>::from_fn((2, 3), |(i, j)| (10 * i + j) as i32);
    assert_eq!(a.to_vec(), vec![0, 1, 2, 10, 11, 12]);
    assert_eq!(a[(1, 2)], 12);
    let b = NuArray3::<u16>::from_fn((2, 2, 2), |(i, j, k)| (100 * i + 10 * j + k) as u16);
    assert_eq!(b.as_slice(), &[0, 1, 10, 11, 100, 101, 110, 111]);
    assert_eq!(b.dims(), (2, 2, 2));
}

#[test]
fn new_is_zeroed_and_index_mut_writes() {
    let mut a = NuArray1::<f64>::new(4);
    assert_eq!(a.to_vec(), vec![0.0; 4]);
    a[2] = 1.5;
    assert_eq!(a.as_slice(), &[0.0, 0.0, 1.5, 0.0]);
    assert_eq!((a.len(), a.dims(), a.is_empty()), (4, 4, false));
}

#[test]
fn from_vec_checks_the_length() {
    let e = NuArray2::<f32>::from_vec((2, 3), vec![0.0; 5]).unwrap_err();
    assert!(matches!(e, Error::DimsMismatch { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("NuArray2::from_vec") && msg.contains("6 elements"),
        "{msg}"
    );
    assert!(NuArray2::<f32>::from_vec((2, 3), vec![0.0; 6]).is_ok());
}

#[test]
fn copy_from_slice_checks_the_length() {
    let mut a = NuArray1::<i8>::new(3);
    assert!(a.copy_from_slice(&[1, 2]).is_err());
    a.copy_from_slice(&[1, 2, 3]).unwrap();
    assert_eq!(a.to_vec(), vec![1, 2, 3]);
}

#[test]
#[should_panic(expected = "index (0, 3) out of bounds for NuArray2 of dims (2, 3)")]
fn each_coordinate_is_bounds_checked() {
    // (0, 3) has flat offset 3, inside the 6 elements: only a per-dimension check catches it.
    let a = NuArray2::<f32>::new((2, 3));
    let _ = a[(0, 3)];
}

#[test]
fn clone_copies_and_empty_arrays_work() {
    let a = NuArray1::<u32>::from_fn(3, |i| i as u32);
    let mut b = a.clone();
    b[0] = 9;
    assert_eq!((a[0], b[0]), (0, 9));
    let e = NuArray2::<f32>::new((0, 5));
    assert!(e.is_empty() && e.as_slice().is_empty());
}

#[test]
fn arrays_handles_and_views_cross_threads() {
    // Shared across host threads (Sync) and movable to them (Send): what nudevs needs.
    fn both<T: Send + Sync>() {}
    both::<NuArray1<f32>>();
    both::<crate::NuArray3<u8>>();
    both::<crate::NuImage2<[f32; 4]>>();
    both::<crate::NuShared<'static, NuArray1<f64>>>();
    both::<crate::NuConst<'static, NuArray1<i32>>>();
    both::<crate::ArrayView<'static, f32, usize>>();
    both::<crate::ArrayViewMut<'static, f32, (usize, usize)>>();
    both::<crate::Device>();
    both::<crate::Error>();
}
