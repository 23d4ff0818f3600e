// A crate that forbids unsafe code uses every safe form: nuwork! with annotations and a
// reduction, #[nukernel] with nucall!, #[nucode] and #[nustruct].
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

fn main() -> nuda::Result<()> {
    let n = 100usize;
    let mut v = NuArray1::<f32>::from_fn(n, |i| i as f32);
    nucall!(0, [n], [32]; scale(&mut v, Pair { a: 1.0, b: 1.0 }))?;
    let mut s = 0.0f32;
    nuwork!(16; annot!(tile(8); nfor!(i in n { s += v[i]; })))?;
    assert_eq!(s, (0..n).map(|i| 2.0 * i as f32 + 1.0).sum::<f32>());
    Ok(())
}
