//! mandelbrot: the escape time of every pixel of the Mandelbrot set, base `nuwork!` and
//! annotated variants, verified exactly against plain Rust, with pixels per second and
//! speedups; `--png DIR` writes the colour-mapped picture.
//!
//! `cargo run --release --example mandelbrot -- --png out`, `-- --quick`.

#[path = "../common/mod.rs"]
mod common;
#[path = "kernels.rs"]
mod kernels;

use common::{cli, picture, problem, report};

use clap::Parser;

/// The Mandelbrot set with nuda.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    common: cli::Common,
    /// At most this many steps per pixel.
    #[arg(long, default_value_t = 512)]
    max: u32,
    /// Write `mandelbrot.png` (the last variant's rendering) into this folder.
    #[arg(long)]
    png: Option<std::path::PathBuf>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    args.common.apply();
    nuda::init()?;
    let w = args.common.size_or(2048, 256);
    let h = w * 3 / 4;
    println!("mandelbrot, {w} x {h} pixels, at most {} steps", args.max);
    let work = report::Work {
        ops: (w * h) as f64,
        unit: "Mpixel/s",
        scale: 1e6,
        bytes: None,
    };
    let mut f = kernels::setup(w, h, args.max);
    let ok = args
        .common
        .run_all(&mut f, kernels::VARIANTS, &work, &kernels::CHECK)?;
    if !ok {
        return Err("a variant's result is wrong".into());
    }
    if let Some(dir) = &args.png {
        std::fs::create_dir_all(dir)?;
        let path = dir.join("mandelbrot.png");
        picture::write_rgb(&path, w, h, &kernels::rgb(&f))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
