use nuda::prelude::*;
// A type parameter without `nuda::Element` cannot be a kernel value.
fn fill<T: Copy + std::ops::Add<Output = T>>(v: &mut NuArray1<f32>, k: T) -> nuda::Result<()> {
    let n = v.len();
    nuwork!(64; nfor!(i in n { let t = k + k; v[i] = 1.0; }))
}
fn main() {
    let mut v = NuArray1::<f32>::new(8);
    fill(&mut v, 2u32).unwrap();
}
