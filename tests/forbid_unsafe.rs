//! A crate that forbids unsafe code uses every safe form: nuwork! with annotations and a
//! reduction, #[nukernel] with nucall!, #[nucode] and #[nustruct]. (A test crate of its own,
//! not a trybuild pass case: a pass case makes trybuild build every compile-fail case and
//! every dependency with code generation, where checking them is enough.)
#![forbid(unsafe_code)]
use nuda::prelude::*;

#[nuda::nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Pair {
    a: f32,
    b: f32,
}

#[nucode]
fn twice(x: f32) -> f32 {
    2.0 * x
}

#[nukernel]
fn scale(v: &mut NuArray1<f32>, p: Pair) {
    let i = global_id(0);
    if i < v.len() {
        v[i] = twice(v[i]) * p.a + p.b;
    }
}

#[test]
fn safe_forms_compile_and_run_where_unsafe_code_is_forbidden() -> nuda::Result<()> {
    let n = 100usize;
    let mut v = NuArray1::<f32>::from_fn(n, |i| i as f32);
    nucall!(0, [n], [32]; scale(&mut v, Pair { a: 1.0, b: 1.0 }))?;
    let mut s = 0.0f32;
    nuwork!(16; annot!(tile(8); nfor!(i in n { s += v[i]; })))?;
    assert_eq!(s, (0..n).map(|i| 2.0 * i as f32 + 1.0).sum::<f32>());
    Ok(())
}
