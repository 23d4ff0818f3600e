//! Generated code reaches a third backend through its one dispatch entry: the dummy backend
//! of the runtime's tests, registered by one line, runs `nuwork!` loops and a `#[nukernel]`
//! with a barrier in the native form, and they give what plain Rust gives.

#[path = "../nuda-runtime/tests/dummy/mod.rs"]
mod dummy;

use nuda::prelude::*;
use std::sync::atomic::Ordering;

#[nukernel]
fn block_reverse(out: &mut NuArray1<i32>, a: &NuArray1<i32>, scratch: &mut NuArray1<i32>) {
    let g = global_id(0);
    let l = local_id(0);
    let size = local_size(0);
    scratch[g] = a[g];
    barrier();
    out[g] = scratch[g - l + (size - 1 - l)];
}

#[test]
fn generated_kernels_dispatch_to_a_registered_backend() -> Result<()> {
    nuda::device::register(&dummy::DUMMY)?;
    let dev = dummy::index();
    let n = 1000;
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let mut b = NuArray1::<f32>::new(n);
    let before = dummy::TASKS.load(Ordering::Relaxed);
    with_device(
        dev,
        || nuwork!(64; nfor!(i in n { b[i] = 2.0 * a[i] + 1.0; })),
    )??;
    assert!(
        dummy::TASKS.load(Ordering::Relaxed) > before,
        "the dummy ran the loop"
    );
    let want: Vec<f32> = (0..n).map(|i| 2.0 * i as f32 + 1.0).collect();
    assert_eq!(b.to_vec(), want);

    let n = 64;
    let a = NuArray1::<i32>::from_fn(n, |i| i as i32 * 3);
    let (mut out, mut scratch) = (NuArray1::<i32>::new(n), NuArray1::<i32>::new(n));
    let before = dummy::TASKS.load(Ordering::Relaxed);
    nucall!(dev, [n], [16]; block_reverse(&mut out, &a, &mut scratch))?;
    assert_eq!(
        dummy::TASKS.load(Ordering::Relaxed) - before,
        4,
        "a task per work-group"
    );
    let want: Vec<i32> = (0..n)
        .map(|g| ((g / 16) * 16 + 15 - g % 16) as i32 * 3)
        .collect();
    assert_eq!(out.to_vec(), want);
    Ok(())
}
