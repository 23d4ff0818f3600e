use nuda::prelude::*;

#[nukernel]
fn count(hist: &NuArray1<u32>) {
    let g = global_id(0);
    hist.atomic_add(g % 8, 1u32);
}

fn main() {
    let hist = NuArray1::<u32>::new(8);
    let _ = nucall!(0, [64], [8]; count(&hist));
}
