use nuda::prelude::*;
fn main() -> nuda::Result<()> {
    let mut out = NuArray1::<f32>::new(8);
    nuwork!(8; nfor!(i in 8 {
        let pair = (1.0f32, 2.0f32);
        pair.0 = 3.0;
        let x = pair.2;
        out[i] = pair;
    }))?;
    Ok(())
}
