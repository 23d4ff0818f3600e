use nuda::prelude::*;

fn main() {
    let mut small = NuArray1::<u8>::new(8);
    let mut real = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8usize {
        small.atomic_add(i, 1u8);
        real.atomic_or(i, 1.0f32);
    }));
}
