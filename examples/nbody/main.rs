//! nbody: one all-pairs step, base `nuwork!` and annotated variants of the acceleration
//! kernel, verified against plain Rust, with GFLOP/s (20 flops per interaction) and speedups.
//!
//! `cargo run --release --example nbody -- --size 65536`, `-- --quick`.

#[path = "../common/cli.rs"]
mod cli;
#[path = "kernels.rs"]
mod kernels;
#[path = "../common/problem.rs"]
mod problem;
#[path = "../common/report.rs"]
mod report;

use clap::Parser;

/// nbody with nuda.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    common: cli::Common,
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
    let ok = report::run_all(
        &mut b,
        kernels::VARIANTS,
        &work,
        args.common.reps,
        |v| args.common.wants(v),
        &kernels::CHECK,
    )?;
    let t = problem::best_time(&mut b, kernels::integrate, args.common.reps)?;
    println!("integration: {:.3} ms", t.as_secs_f64() * 1e3);
    if !ok {
        return Err("a variant's result is wrong".into());
    }
    Ok(())
}
