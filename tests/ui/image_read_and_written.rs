// Issue 47: one image read and written in one nuwork! was rustc's E0599 from the expansion
// (`no method named read` on the write view); nuda says what is wrong, at the second use.
use nuda::prelude::*;

fn main() -> nuda::Result<()> {
    let (w, h) = (64usize, 32usize);
    let mut img = NuImage2::<f32>::new((w, h));
    nuwork!(8, 8; nfor!((y, x) in (h, w) {
        let v = img.read(x, y) * 0.5;
        img.write(x, y, v);
    }))?;
    Ok(())
}
