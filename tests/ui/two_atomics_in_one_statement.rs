use nuda::prelude::*;

fn main() {
    let mut h = NuArray1::<u32>::new(2);
    let mut d = NuArray1::<u32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8usize {
        d[i] = h.atomic_add(0, 1u32) - h.atomic_add(1, 1u32);
    }));
}
