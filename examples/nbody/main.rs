//! nbody: one all-pairs step, base `nuwork!` and annotated variants of the acceleration
//! kernel, verified against plain Rust, with GFLOP/s (20 flops per interaction) and speedups.
//!
//! `cargo run --release --example nbody -- --size 65536`, `-- --quick`.

#[path = "../common/mod.rs"]
mod common;
#[path = "kernels.rs"]
mod kernels;

use common::{cli, problem, report, split};

use clap::Parser;

/// nbody with nuda.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    common: cli::Common,
    /// Split the best variant over these devices, `all` or a list such as `0,1`, and report
    /// the scaling from 1 to k devices instead of the variants.
    #[arg(long, env = "NUDA_DEVICES")]
    devices: Option<String>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    args.common.apply();
    nuda::init()?;
    let n = args.common.size_or(65536, 2048);
    println!("nbody, {n} bodies, one step");
    let work = report::Work {
        ops: kernels::flops(n),
        unit: "GFLOP/s",
        scale: 1e9,
        bytes: None,
    };
    let mut b = kernels::setup(n);
    if let Some(spec) = &args.devices {
        let devices = split::parse_devices(spec)?;
        println!("split over devices {devices:?}");
        let reps = args.common.reps;
        let rows = split::scaling(&devices, n, 4, reps, |parts| kernels::split(&mut b, parts))?;
        split::print_scaling(&rows, kernels::flops(n), "GFLOP/s", 1e9);
        (kernels::CHECK.clear)(&mut b)?;
        kernels::split(
            &mut b,
            &split::partition(n, &devices, &vec![1.0; devices.len()], 4),
        )?;
        (kernels::CHECK.verify)(&b)?;
        println!("verified on {} devices", devices.len());
        return Ok(());
    }
    let ok = args
        .common
        .run_all(&mut b, kernels::VARIANTS, &work, &kernels::CHECK)?;
    let t = problem::best_time(&mut b, kernels::integrate, args.common.reps)?;
    println!("integration: {:.3} ms", t.as_secs_f64() * 1e3);
    if !ok {
        return Err("a variant's result is wrong".into());
    }
    Ok(())
}
