//! imgconv: a 3x3 filter over an image (and over a buffer), base `nuwork!` and annotated
//! variants, verified against plain Rust, with GFLOP/s, GB/s and speedups.
//!
//! `cargo run --release --example imgconv -- --size 4096`, `-- --quick`.

#[path = "../common/mod.rs"]
mod common;
#[path = "kernels.rs"]
mod kernels;

use common::{cli, picture, problem, report};

use clap::Parser;

/// imgconv with nuda.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    common: cli::Common,
    /// Write the input and the filtered output as `imgconv-input.png` and
    /// `imgconv-output.png` into this folder.
    #[arg(long)]
    png: Option<std::path::PathBuf>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    args.common.apply();
    nuda::init()?;
    let n = args.common.size_or(4096, 256);
    println!("imgconv 3x3, {n} x {n}");
    let work = report::Work {
        ops: kernels::flops(n, n),
        unit: "GFLOP/s",
        scale: 1e9,
        bytes: Some(kernels::bytes(n, n)),
    };
    let mut c = kernels::setup(n, n);
    println!("-- input as a NuImage2");
    let ok = args
        .common
        .run_all(&mut c, kernels::VARIANTS, &work, &kernels::CHECK)?;
    println!("-- input as a NuArray2: clamped by hand, or padded where the variant says so");
    let ok_buf = args
        .common
        .run_all(&mut c, kernels::BUFFER_VARIANTS, &work, &kernels::CHECK)?;
    if !(ok && ok_buf) {
        return Err("a variant's result is wrong".into());
    }
    if let Some(dir) = &args.png {
        pictures(&c, dir)?;
    }
    Ok(())
}

/// The input and the last variant's output, as grey levels (the output clamped to [0, 1]).
fn pictures(c: &kernels::Conv, dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    let written = |o: &[f32]| o.iter().any(|v| !v.is_nan());
    // The packed output's rows hold whole texels; the picture takes the first `w` of each.
    let packed: Vec<f32> = (c.out_img4.as_slice().as_flattened())
        .chunks(4 * c.w.div_ceil(4))
        .flat_map(|row| &row[..c.w])
        .copied()
        .collect();
    let out = [c.out_buf.as_slice(), c.out_img.as_slice(), &packed]
        .into_iter()
        .find(|o| written(o))
        .unwrap_or(&packed);
    for (name, data) in [
        ("imgconv-input.png", c.buf.as_slice()),
        ("imgconv-output.png", out),
    ] {
        let path = dir.join(name);
        picture::write_grey(&path, c.w, c.h, data, 0.0, 1.0)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
