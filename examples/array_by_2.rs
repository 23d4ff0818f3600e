//! NUDA's Fig. 2 and Fig. 3: doubling a 2-D array, as an explicit kernel launched with
//! `nucall!`, and as a loop nest ported with `nuwork!`. Both run on every device nuda finds
//! and must agree with the host.
//!
//! `cargo run --release --example array_by_2 -- 2048`

use nuda::prelude::*;

/// Fig. 2: the kernel, written once; `nucall!` passes device, global and local sizes.
#[nukernel]
fn array_by_2(b: &mut NuArray2<f32>, a: &NuArray2<f32>) {
    let i = global_id(0);
    let j = global_id(1);
    if i < a.dims().0 && j < a.dims().1 {
        b[(i, j)] = 2.0 * a[(i, j)];
    }
}

fn main() -> Result<()> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024);
    let a = NuArray2::<f32>::from_fn((n, n), |(i, j)| (i * n + j) as f32);
    for d in nuda::devices() {
        let mut b1 = NuArray2::<f32>::new((n, n));
        nucall!(d.index, [n, n], [1, 128]; array_by_2(&mut b1, &a))?;

        // Fig. 3: the same loop, ported by wrapping it.
        let mut b2 = NuArray2::<f32>::new((n, n));
        nuda::with_device(d.index, || {
            nuwork!(1, 128; nfor!((i, j) in (n, n) {
                b2[(i, j)] = 2.0 * a[(i, j)];
            }))
        })??;

        let ok = (0..n)
            .all(|i| (0..n).all(|j| b1[(i, j)] == 2.0 * a[(i, j)] && b2[(i, j)] == b1[(i, j)]));
        println!(
            "{}: {}",
            d.name,
            if ok {
                "nucall! and nuwork! agree with the host"
            } else {
                "MISMATCH"
            }
        );
        if !ok {
            std::process::exit(1);
        }
    }
    Ok(())
}
