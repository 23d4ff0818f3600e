use nuda::prelude::*;

fn main() {
    let _ = annot!(nudevs; nfor!((d, e) in (2, 2) { let _ = (d, e); }));
}
