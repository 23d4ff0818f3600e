use nuda::prelude::*;

#[test]
fn nuwork_array_by_2() {
    let n = 37;
    let a = NuArray2::<f32>::from_fn((n, n), |(i, j)| (i * n + j) as f32);
    let mut b = NuArray2::<f32>::new((n, n));
    for d in nuda::devices() {
        nuda::with_device(d.index, || {
            nuwork!(1, 16; nfor!((i, j) in (n, n) {
                b[(i, j)] = 2.0 * a[(i, j)];
            }))
        })
        .unwrap()
        .unwrap();
        for i in 0..n {
            for j in 0..n {
                assert_eq!(b[(i, j)], 2.0 * a[(i, j)], "{d}");
            }
        }
        b.copy_from_slice(&vec![0.0; n * n]).unwrap();
    }
}

#[nucode]
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

#[nucode]
fn twice_lerp(a: f32, b: f32) -> f32 {
    2.0 * lerp(a, b, 0.5)
}

#[nukernel]
fn array_by_2(b: &mut NuArray2<f32>, a: &NuArray2<f32>) {
    let i = global_id(0);
    let j = global_id(1);
    if i < a.dims().0 && j < a.dims().1 {
        b[(i, j)] = twice_lerp(0.0, a[(i, j)]);
    }
}

#[test]
fn nukernel_nucall() {
    let n = 37;
    let a = NuArray2::<f32>::from_fn((n, n), |(i, j)| (i * n + j) as f32);
    for d in nuda::devices() {
        let mut b = NuArray2::<f32>::new((n, n));
        nucall!(d.index, [n, n], [1, 16]; array_by_2(&mut b, &a)).unwrap();
        for i in 0..n {
            for j in 0..n {
                assert_eq!(b[(i, j)], a[(i, j)], "{d}");
            }
        }
    }
}
