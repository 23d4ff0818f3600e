//! A `nulocal!` array updated atomically is read with plain loads between the barriers where
//! no work-item updates it, and with atomic loads where one may (`checks/phases`).

use nuda_transforms::emit::template::render_for_test;
use quote::quote;

fn text(item: proc_macro2::TokenStream) -> String {
    render_for_test(&nuda_transforms::entry::nukernel::template(item).unwrap())
}

/// A sub-histogram's merge reads its bins after the barrier that ends the counting: plain
/// loads. A read beside the counting stays an atomic load.
#[test]
fn the_merge_of_a_sub_histogram_reads_plainly() {
    let t = text(quote!(
        fn sub(hist: &mut NuArray1<u32>, v: &NuArray1<u32>, out: &mut NuArray1<u32>) {
            let part = nulocal!(u32, 256);
            let l = local_id(0);
            part[l] = 0;
            barrier();
            part.atomic_add((v[global_id(0)] % 256) as usize, 1u32);
            out[global_id(0)] = part[l];
            barrier();
            if part[l] != 0 {
                hist.atomic_add(l, part[l]);
            }
        }
    ));
    assert_eq!(t.matches("nu_rd_part(part").count(), 2, "{t}");
    assert_eq!(t.matches("nu_ld_part(part").count(), 1, "{t}");
    assert!(t.contains("nu_latomic_load_"), "{t}");
}
