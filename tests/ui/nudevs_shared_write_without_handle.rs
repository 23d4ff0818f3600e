use nuda::prelude::*;

// Writing one array from several devices needs `c.as_shared()`: a plain array cannot be
// borrowed mutably by every iteration at once.
fn main() -> Result<()> {
    let mut c = NuArray1::<f32>::new(8);
    let ndev = nuda::devices().len();
    annot!(nudevs; nfor!(d in ndev {
        nuwork!(8; nfor!(i in 8 { c[i] = d as f32; }))?;
    }))
}
