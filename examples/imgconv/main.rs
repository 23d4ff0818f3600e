//! imgconv: a 3x3 filter over an image (and over a buffer), base `nuwork!` and annotated
//! variants, verified against plain Rust, with GFLOP/s, GB/s and speedups.
//!
//! `cargo run --release --example imgconv -- --size 4096`, `-- --quick`.

#[path = "../common/cli.rs"]
mod cli;
#[path = "kernels.rs"]
mod kernels;
#[path = "../common/problem.rs"]
mod problem;
#[path = "../common/report.rs"]
mod report;

use clap::Parser;

/// imgconv with nuda.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    common: cli::Common,
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
    let ok = report::run_all(
        &mut c,
        kernels::VARIANTS,
        &work,
        args.common.reps,
        |v| args.common.wants(v),
        &kernels::CHECK,
    )?;
    println!("-- input as a NuArray2, clamped by hand");
    let ok_buf = report::run_all(
        &mut c,
        kernels::BUFFER_VARIANTS,
        &work,
        args.common.reps,
        |v| args.common.wants(v),
        &kernels::CHECK,
    )?;
    if !(ok && ok_buf) {
        return Err("a variant's result is wrong".into());
    }
    Ok(())
}
