//! Tests of host-side image behaviour: layout, edge clamping, writes.

use crate::NuImage2;

#[test]
fn from_fn_is_row_by_row_and_read_clamps_to_the_edge() {
    let img = NuImage2::<f32>::from_fn((3, 2), |(x, y)| (10 * y + x) as f32);
    assert_eq!(img.to_vec(), vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
    assert_eq!(img.read(2, 1), 12.0);
    assert_eq!(img.read(-5, 0), 0.0);
    assert_eq!(img.read(7, -1), 2.0);
    assert_eq!(img.read(1, 99), 11.0);
    assert_eq!(img.dims(), (3, 2));
}

#[test]
fn rgba_texels_write_and_read() {
    let mut img = NuImage2::<[f32; 4]>::new((2, 2));
    img.write(1, 0, [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(img.read(1, 0), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(img.read(5, -3), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(img.read(0, 1), [0.0; 4]);
}

#[test]
#[should_panic(expected = "outside an image of dims (2, 2)")]
fn writes_outside_panic() {
    NuImage2::<f32>::new((2, 2)).write(2, 0, 1.0);
}

#[test]
fn from_vec_checks_the_length() {
    assert!(NuImage2::<f32>::from_vec((2, 2), vec![0.0; 3]).is_err());
}

#[test]
fn fill_and_mutable_slices_write_every_texel() {
    let mut im = NuImage2::<f32>::from_fn((3, 2), |(x, y)| (x + y) as f32);
    im.fill(-1.0).unwrap();
    assert_eq!(im.to_vec(), vec![-1.0; 6]);
    im.as_mut_slice()[4] = 9.0;
    assert_eq!(im.read(1, 1), 9.0);
}
