use nuda::prelude::*;

fn main() {
    let _ = annot!(nudevs, unroll(2); nfor!(d in 2 { let _ = d; }));
}
