use nuda::prelude::*;

fn main() -> nuda::Result<()> {
    let world = nuda::dist::init()?;
    let n = 16;
    let a = NuDist1::<f32>::new(&world, n, 1)?;
    let mut b = NuDist1::<f32>::new(&world, n, 1)?;
    let v = vec![1.0f32; n];
    annot!(nudist(2); nuwork!(8; nfor!(i in n { b[i] = a[i]; })))?;
    annot!(nudist, dmine(2); nuwork!(8; nfor!(i in n { b[i] = a[i]; })))?;
    annot!(nudist; nfor!(i in n { b[i] = a[i]; }))?;
    nuwork!(8; annot!(nudist; nfor!(i in n { b[i] = a[i]; })))?;
    annot!(nudist; nuwork!(8; nfor!(i in (0..n).rev() { b[i] = a[i]; })))?;
    annot!(nudist; nuwork!(8; nfor!(i in n { b[i] = v[i]; })))?;
    Ok(())
}
