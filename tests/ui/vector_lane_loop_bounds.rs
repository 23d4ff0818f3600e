use nuda::prelude::*;
fn main() {
    let mut out = NuArray2::<f32>::new((8, 64));
    let _ = nuwork!(1, 8; annot!(vector(4); nfor!((i, j) in (8, 64) {
        let mut s = 0.0f32;
        for _t in 0..j {
            s += 1.0;
        }
        out[(i, j)] = s;
    })));
    let a = NuArray2::<f32>::new((8, 64));
    let mut b = NuArray1::<f32>::new(8);
    let _ = nuwork!(8; nfor!(i in 8 {
        let mut c = 0.0f32;
        annot!(vector(4); nfor!(j in 64 {
            {
                let c = 1.0f32;
                b[i] = c;
            }
            c += a[(i, j)];
        }));
        b[i] = c;
    }));
}
