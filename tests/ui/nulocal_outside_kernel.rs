use nuda::prelude::*;

fn main() {
    let mut a = NuArray1::<u32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8usize {
        let t = nulocal!(u32, 8);
        a[i] = t[i];
    }));
    let _host = nulocal!(u32, 8);
}
