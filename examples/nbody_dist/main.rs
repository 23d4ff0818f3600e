//! nbody_dist: all-pairs n-body steps over MPI ranks with `nuda::dist`. Each rank owns a
//! block of bodies; every step the positions travel to every rank through an allgather, and
//! each rank advances its own bodies. Checked against plain Rust on one process.
//!
//! ```text
//! cargo build --release --features mpi --example nbody_dist
//! mpirun -np 4 target/release/examples/nbody_dist -- --n 8192 --steps 4
//! ```

use clap::Parser;
use nuda::prelude::*;

/// nbody over MPI ranks.
#[derive(Parser, Debug)]
struct Args {
    /// Bodies.
    #[arg(long, default_value_t = 2048)]
    n: usize,
    /// Steps.
    #[arg(long, default_value_t = 3)]
    steps: usize,
}

const DT: f32 = 0.01;
const SOFT: f32 = 0.01;

/// A body's starting position and mass.
fn body(i: usize) -> [f32; 4] {
    let t = i as f32;
    [
        (t * 0.37).sin() * 10.0,
        (t * 0.11).cos() * 10.0,
        (t * 0.013).sin(),
        1.0 + (i % 3) as f32,
    ]
}

/// The distributed state: positions, masses and velocities, one block of bodies per rank.
struct Bodies {
    x: [NuDist1<f32>; 3],
    mass: NuDist1<f32>,
    vel: [NuDist1<f32>; 3],
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let world = nuda::dist::init()?;
    let n = args.n;
    let coord = |k: usize| NuDist1::<f32>::from_fn(&world, n, 0, |i| body(i)[k]);
    let zeros = || NuDist1::<f32>::new(&world, n, 0);
    let mut b = Bodies {
        x: [coord(0)?, coord(1)?, coord(2)?],
        mass: coord(3)?,
        vel: [zeros()?, zeros()?, zeros()?],
    };
    let began = std::time::Instant::now();
    for _ in 0..args.steps {
        step(&mut b, n)?;
    }
    let secs = began.elapsed().as_secs_f64();
    let got: Vec<Vec<f32>> =
        b.x.iter()
            .map(|x| x.to_vec())
            .collect::<nuda::Result<_>>()?;
    if world.rank() == 0 {
        let flops = 20.0 * (n * n * args.steps) as f64;
        println!(
            "nbody_dist: {n} bodies, {} steps on {} ranks: {:.2} GFLOP/s",
            args.steps,
            world.size(),
            flops / secs / 1e9
        );
        check(&got, n, args.steps)?;
    }
    Ok(())
}

/// One step: every position to every rank, then each rank's bodies accelerate and move.
fn step(b: &mut Bodies, n: usize) -> nuda::Result<()> {
    let (px, py, pz, m) = (
        b.x[0].allgather()?,
        b.x[1].allgather()?,
        b.x[2].allgather()?,
        b.mass.allgather()?,
    );
    let [x, y, z] = &mut b.x;
    let [vx, vy, vz] = &mut b.vel;
    annot!(nudist; nuwork!(64; nfor!(i in n {
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        for j in 0..n {
            let (dx, dy, dz) = (px[j] - px[i], py[j] - py[i], pz[j] - pz[i]);
            let r2 = dx * dx + dy * dy + dz * dz + SOFT;
            let s = m[j] / (r2 * r2.sqrt());
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        vx[i] += ax * DT;
        vy[i] += ay * DT;
        vz[i] += az * DT;
        x[i] = px[i] + vx[i] * DT;
        y[i] = py[i] + vy[i] * DT;
        z[i] = pz[i] + vz[i] * DT;
    })))
}

/// The same steps in plain Rust; positions within a relative 1e-3 (the square root and the
/// order of the sums may differ by an ulp per step on a device).
fn check(got: &[Vec<f32>], n: usize, steps: usize) -> Result<(), Box<dyn std::error::Error>> {
    let mut p: Vec<[f32; 4]> = (0..n).map(body).collect();
    let mut v = vec![[0f32; 3]; n];
    for _ in 0..steps {
        let old = p.clone();
        for i in 0..n {
            let mut a = [0f32; 3];
            for q in &old {
                let d = [q[0] - old[i][0], q[1] - old[i][1], q[2] - old[i][2]];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + SOFT;
                let s = q[3] / (r2 * r2.sqrt());
                (0..3).for_each(|k| a[k] += d[k] * s);
            }
            (0..3).for_each(|k| {
                v[i][k] += a[k] * DT;
                p[i][k] = old[i][k] + v[i][k] * DT;
            });
        }
    }
    for (i, body) in p.iter().enumerate() {
        for k in 0..3 {
            let (g, w) = (got[k][i], body[k]);
            if (g - w).abs() > 1e-3 * (1.0 + w.abs()) {
                return Err(format!("nbody_dist: body {i} coordinate {k}: {g} != {w}").into());
            }
        }
    }
    println!("nbody_dist: positions match plain Rust");
    Ok(())
}
