//! sgemm (and dgemm with `--f64`): C = AᵀB, base `nuwork!` and annotated variants, verified
//! against plain Rust, with rates and speedups.
//!
//! `cargo run --release --example sgemm -- --size 2048`, `-- --f64`, `-- --quick`.

#[path = "../common/cli.rs"]
mod cli;
#[path = "kernels.rs"]
mod kernels;
#[path = "../common/problem.rs"]
mod problem;
#[path = "../common/report.rs"]
mod report;

use clap::Parser;

/// sgemm / dgemm with nuda.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    common: cli::Common,
    /// Double precision (dgemm).
    #[arg(long, env = "NUDA_F64")]
    f64: bool,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    args.common.apply();
    nuda::init()?;
    let n = args.common.size_or(2048, 128);
    let work = report::Work {
        ops: kernels::flops(n),
        unit: "GFLOP/s",
        scale: 1e9,
        bytes: None,
    };
    let wants = |v: &str| args.common.wants(v);
    let ok = if args.f64 {
        println!("dgemm C = AᵀB, n = {n}");
        let mut g = kernels::f64::setup(n);
        report::run_all(
            &mut g,
            kernels::f64::VARIANTS,
            &work,
            args.common.reps,
            wants,
            &kernels::f64::CHECK,
        )?
    } else {
        println!("sgemm C = AᵀB, n = {n}");
        let mut g = kernels::f32::setup(n);
        report::run_all(
            &mut g,
            kernels::f32::VARIANTS,
            &work,
            args.common.reps,
            wants,
            &kernels::f32::CHECK,
        )?
    };
    if !ok {
        return Err("a variant's result is wrong".into());
    }
    Ok(())
}
