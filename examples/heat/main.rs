//! heat: a 2-D Jacobi (heat equation) stencil over MPI ranks with `nuda::dist`. Each rank
//! holds a block of rows plus one halo row on each side, exchanges only those with its
//! neighbours each step (overlapped with the rows that need no halo; `--blocking` waits
//! first), and runs the stencil on its rows; the largest change is reduced over the ranks.
//! `--split measured` shares the rows out by each rank's measured speed after the warm-up
//! (a GPU rank beside CPU ranks), `--split 3,1` by weights. The result is checked against
//! plain Rust on one process, bit for bit.
//!
//! ```text
//! cargo build --release --features mpi --example heat
//! mpirun -np 4 target/release/examples/heat -- --n 1024 --steps 50
//! ```
//!
//! As root (containers, CI) add `--allow-run-as-root --oversubscribe`. It needs the `mpi`
//! feature (Cargo.toml's `required-features`); without `mpirun` it runs as one rank.
//! `-x NUDA_ENGINE=native` runs every
//! rank on the native engine; Open MPI's `-np 1 -x NUDA_ENGINE=cuda prog : -np 1 -x
//! NUDA_ENGINE=native prog` puts one rank on the GPU and one on the CPU; add `--split
//! measured` to both.

#[path = "step.rs"]
mod step;

use clap::Parser;
use nuda::dist::Split;
use nuda::prelude::*;

/// heat with nuda::dist.
#[derive(Parser, Debug)]
struct Args {
    /// Grid rows (split over the ranks).
    #[arg(long, default_value_t = 512)]
    n: usize,
    /// Grid columns (default: as many as rows).
    #[arg(long)]
    m: Option<usize>,
    /// Steps.
    #[arg(long, default_value_t = 20)]
    steps: usize,
    /// Steps before the timed ones (the first builds the program), also checked.
    #[arg(long, default_value_t = 2)]
    warmup: usize,
    /// Skip the check against plain Rust (for grids too big for one process).
    #[arg(long)]
    no_check: bool,
    /// How the rows are split after the warm-up: `even`, `measured` (by each rank's speed
    /// in the warm-up, measured again after as many steps more), or weights `3,1,..`.
    #[arg(long, default_value = "even")]
    split: String,
    /// Exchange the halo before each step instead of overlapping it with the interior.
    #[arg(long)]
    blocking: bool,
}

/// The split `--split` names.
fn split_of(text: &str) -> Result<Split, String> {
    match text {
        "even" => Ok(Split::Even),
        "measured" => Ok(Split::Measured),
        w => w
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<Result<Vec<_>, _>>()
            .map(Split::Weights)
            .map_err(|e| format!("--split {w}: {e}; give even, measured or weights like 3,1")),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let world = nuda::dist::init()?;
    let (n, m) = (args.n, args.m.unwrap_or(args.n));
    let mut u = NuDist2::<f32>::from_fn(&world, (n, m), 1, |(i, j)| step::init(i, j))?;
    let mut v = NuDist2::<f32>::from_fn(&world, (n, m), 1, |(i, j)| step::init(i, j))?;
    let split = split_of(&args.split)?;
    let overlap = !args.blocking;
    let mut deltas = Vec::with_capacity(2 * args.warmup + args.steps);
    // A measured split is measured twice: the warm-up builds the program, which skews it.
    let rounds = if split == Split::Measured { 2 } else { 1 };
    for _ in 0..rounds {
        for _ in 0..args.warmup {
            deltas.push(step::step_with(
                &mut u,
                &mut v,
                &mut step::Times::default(),
                overlap,
            )?);
            std::mem::swap(&mut u, &mut v);
        }
        u.rebalance(&split)?;
        v.rebalance(&split)?;
    }
    world.barrier();
    let (mut times, began) = (step::Times::default(), std::time::Instant::now());
    for _ in 0..args.steps {
        deltas.push(step::step_with(&mut u, &mut v, &mut times, overlap)?);
        std::mem::swap(&mut u, &mut v);
    }
    let total = began.elapsed();
    report(&world, &u, &times, total)?;
    let whole = u.gather(0)?;
    if let (Some(whole), false) = (whole, args.no_check) {
        let steps = deltas.len();
        let (want, want_deltas) = step::plain(n, m, steps);
        if whole.to_vec() != want || deltas != want_deltas {
            return Err("heat: the distributed grid differs from plain Rust's".into());
        }
        println!(
            "heat: {n} x {m}, {steps} steps on {} ranks: equal to plain Rust, bit for bit",
            world.size()
        );
    }
    Ok(())
}

/// Each rank's device and time split over the timed steps, in rank order, then the
/// imbalance: the slowest rank's compute time over the fastest's.
fn report(
    world: &nuda::dist::World,
    u: &NuDist2<f32>,
    t: &step::Times,
    total: std::time::Duration,
) -> nuda::Result<()> {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let device = current_device()?.label();
    for r in 0..world.size() {
        if r == world.rank() {
            println!(
                "rank {r} on {device}: rows {:?}, compute {:.1} ms, halo {:.1} ms, waiting {:.1} ms, total {:.1} ms",
                u.rows(), ms(t.compute), ms(t.halo), ms(t.reduce), ms(total)
            );
        }
        world.barrier();
    }
    let computes = world.all_gather_vec(&[t.compute.as_secs_f64()])?;
    let (lo, hi) = computes
        .iter()
        .fold((f64::MAX, 0f64), |(a, b), &c| (a.min(c), b.max(c)));
    if world.rank() == 0 && world.size() > 1 {
        println!(
            "imbalance: slowest rank's compute / fastest's = {:.2}",
            hi / lo.max(1e-9)
        );
    }
    Ok(())
}
