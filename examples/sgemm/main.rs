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
#[path = "../common/split.rs"]
mod split;

use clap::Parser;

/// sgemm / dgemm with nuda.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    common: cli::Common,
    /// Double precision (dgemm).
    #[arg(long, env = "NUDA_F64")]
    f64: bool,
    /// Split the best variant over these devices, `all` or a list such as `0,1`, and report
    /// the scaling from 1 to k devices instead of the variants.
    #[arg(long, env = "NUDA_DEVICES")]
    devices: Option<String>,
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
    if let Some(spec) = &args.devices {
        let devices = split::parse_devices(spec)?;
        return if args.f64 {
            println!("dgemm C = AᵀB, n = {n}, split over devices {devices:?}");
            scale(
                &mut kernels::f64::setup(n),
                &devices,
                &args,
                &kernels::f64::CHECK,
                kernels::f64::split,
            )
        } else {
            println!("sgemm C = AᵀB, n = {n}, split over devices {devices:?}");
            scale(
                &mut kernels::f32::setup(n),
                &devices,
                &args,
                &kernels::f32::CHECK,
                kernels::f32::split,
            )
        };
    }
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

/// The scaling from 1 to k devices, then one run on all of them, verified.
fn scale<T: nuda::Element>(
    g: &mut kernels::Gemm<T>,
    devices: &[usize],
    args: &Args,
    check: &problem::Check<kernels::Gemm<T>>,
    run: fn(&mut kernels::Gemm<T>, &[split::Part]) -> nuda::Result<()>,
) -> Result<(), Box<dyn std::error::Error>> {
    let n = g.n;
    let rows = split::scaling(devices, n, 8, args.common.reps, |parts| run(g, parts))?;
    split::print_scaling(&rows, kernels::flops(n), "GFLOP/s", 1e9);
    (check.clear)(g);
    run(
        g,
        &split::partition(n, devices, &vec![1.0; devices.len()], 8),
    )?;
    (check.verify)(g)?;
    println!("verified on {} devices", devices.len());
    Ok(())
}
