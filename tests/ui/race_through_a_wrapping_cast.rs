// Session 45: arithmetic inside `( .. ) as usize` runs in the operand's type, which wraps:
// in `u32`, `i + 4294967295` is `i - 1`, and in `u8`, `i * 2` meets itself at `i + 128`.
// Both nests race, and each is refused, saying to cast first.
use nuda::prelude::*;

fn main() -> nuda::Result<()> {
    let mut a = NuArray1::<f32>::new(512);
    nuwork!(4; nfor!(i in 1u32..100u32 {
        a[i as usize] = a[(i + 4294967295u32) as usize] + 1.0;
    }))?;
    nuwork!(4; nfor!(i in 0u8..255u8 { a[(i * 2) as usize] = i as f32; }))?;
    // Beside the same index as written, a shifted loop variable wraps alike: accepted.
    nuwork!(4; nfor!(i in -5i32..7 { a[(i + 5) as usize] = (i * i) as f32; }))?;
    Ok(())
}
