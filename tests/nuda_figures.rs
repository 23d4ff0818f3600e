//! NUDA's Fig. 2 (`array_by_2` through `#[nukernel]` + `nucall!`) and Fig. 3 (through
//! `nuwork!`): identical results on OpenCL and on the native engine.

mod common;

use nuda::prelude::*;

#[nukernel]
fn array_by_2(b: &mut NuArray2<f32>, a: &NuArray2<f32>) {
    let i = global_id(0);
    let j = global_id(1);
    if i < a.dims().0 && j < a.dims().1 {
        b[(i, j)] = 2.0 * a[(i, j)];
    }
}

fn input(n: usize) -> NuArray2<f32> {
    NuArray2::<f32>::from_fn((n, n), |(i, j)| (i * n + j) as f32 * 0.5)
}

#[test]
fn fig2_nukernel_and_nucall() {
    let n = 300;
    let a = input(n);
    let want: Vec<f32> = a.to_vec().iter().map(|x| 2.0 * x).collect();
    for d in common::engines() {
        let mut b = NuArray2::<f32>::new((n, n));
        nucall!(d.index, [n, n], [1, 128]; array_by_2(&mut b, &a)).unwrap();
        assert_eq!(b.to_vec(), want, "{}", d.name);
    }
}

#[test]
fn fig3_nuwork() {
    let n = 300;
    let a = input(n);
    let want: Vec<f32> = a.to_vec().iter().map(|x| 2.0 * x).collect();
    common::check(want, || {
        let mut b = NuArray2::<f32>::new((n, n));
        nuwork!(1, 128; nfor!((i, j) in (n, n) {
            b[(i, j)] = 2.0 * a[(i, j)];
        }))?;
        Ok(b.to_vec())
    });
}

#[test]
fn nuwork_and_nucall_report_errors_as_results() {
    let a = input(4);
    let mut b = NuArray2::<f32>::new((4, 4));
    let n = nuda::devices().len();
    let e = nucall!(n, [4, 4], [1, 4]; array_by_2(&mut b, &a)).unwrap_err();
    assert!(matches!(e, nuda::Error::BadSelection { .. }), "{e}");
    let zero = 0;
    let e = nuwork!(zero; nfor!(i in 4 { b[(i, i)] = a[(i, i)]; })).unwrap_err();
    assert!(e.to_string().contains("work-group sizes"), "{e}");
}
