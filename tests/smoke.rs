use nuda::prelude::*;

#[test]
fn array_by_2() {
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
