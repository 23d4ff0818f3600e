use nuda::prelude::*;
// `T: nuda::Element` alone: the body multiplies, so rustc asks for the `Mul` bound.
fn scale<T: nuda::Element>(v: &mut NuArray1<T>, k: T) -> nuda::Result<()> {
    let n = v.len();
    nuwork!(64; nfor!(i in n { v[i] = v[i] * k; }))
}
fn main() {
    let mut v = NuArray1::<f32>::new(8);
    scale(&mut v, 2.0).unwrap();
}
