//! sgemm (and dgemm with `--f64`): C = AᵀB, base `nuwork!` and annotated variants, verified
//! against plain Rust, with rates and speedups.
//!
//! `cargo run --release --example sgemm -- --size 2048`, `-- --f64`, `-- --quick`.

#[path = "../common/mod.rs"]
mod common;
#[path = "kernels.rs"]
mod kernels;

use common::{cli, problem, report, split};

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

/// What differs between sgemm and dgemm.
struct Precision<T: nuda::Element + 'static> {
    name: &'static str,
    setup: fn(usize) -> kernels::Gemm<T>,
    variants: &'static [problem::Variant<kernels::Gemm<T>>],
    check: &'static problem::Check<kernels::Gemm<T>>,
    split: fn(&mut kernels::Gemm<T>, &[split::Part]) -> nuda::Result<()>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    args.common.apply();
    nuda::init()?;
    let n = args.common.size_or(2048, 128);
    if args.f64 {
        run(
            &args,
            n,
            Precision {
                name: "dgemm",
                setup: kernels::f64::setup,
                variants: kernels::f64::VARIANTS,
                check: &kernels::f64::CHECK,
                split: kernels::f64::split,
            },
        )
    } else {
        run(
            &args,
            n,
            Precision {
                name: "sgemm",
                setup: kernels::f32::setup,
                variants: kernels::f32::VARIANTS,
                check: &kernels::f32::CHECK,
                split: kernels::f32::split,
            },
        )
    }
}

/// The variants on the current device, or with `--devices` the best one split over several.
fn run<T: nuda::Element>(
    args: &Args,
    n: usize,
    p: Precision<T>,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut g = (p.setup)(n);
    if let Some(spec) = &args.devices {
        let devices = split::parse_devices(spec)?;
        println!(
            "{} C = AᵀB, n = {n}, split over devices {devices:?}",
            p.name
        );
        return scale(&mut g, &devices, args, p.check, p.split);
    }
    println!("{} C = AᵀB, n = {n}", p.name);
    let work = report::Work {
        ops: kernels::flops(n),
        unit: "GFLOP/s",
        scale: 1e9,
        bytes: None,
    };
    if !args.common.run_all(&mut g, p.variants, &work, p.check)? {
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
    (check.clear)(g)?;
    run(
        g,
        &split::partition(n, devices, &vec![1.0; devices.len()], 8),
    )?;
    (check.verify)(g)?;
    println!("verified on {} devices", devices.len());
    Ok(())
}
