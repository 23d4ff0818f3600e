//! Strong and weak scaling of the heat stencil (`examples/heat`) over 1, 2 and 4 MPI ranks
//! (or `--ranks 1,2,4,8`), each step's time split into compute, halo exchange and waiting for other ranks
//! (issues 30 and 53), with the halo exchange overlapped (`exchange_start`) and blocking
//! (`exchange`), one after the other at each rank count.
//!
//! `cargo bench --features mpi --bench dist_scaling` starts itself under `mpirun` once per
//! rank count and mode (as root it adds `--allow-run-as-root`; always `--oversubscribe`, as a
//! laptop has fewer cores than ranks). Options after `--`: `--engine native`, `--n 1024`,
//! `--steps 20`, `--ranks 1,2,4`, `--repeat 3`, `--json FILE`. On the native engine every
//! rank gets the same threads (`RAYON_NUM_THREADS`): the machine's cores over the most
//! ranks, at least one, so that more ranks bring more cores, as more nodes would. Each row is
//! the slowest rank's time per step (after two warm-up steps, which build the program), the
//! best of `--repeat` runs, the two modes alternating; "efficiency" is the 1-rank step time
//! over ranks times this row's (strong) or the 1-rank time at the same rows per rank over
//! this row's (weak), within a mode.

#[path = "../examples/heat/step.rs"]
mod step;

use nuda::prelude::*;
use std::process::Command;

/// One run's figures, per step in milliseconds, the slowest rank's.
#[derive(Debug, Clone, Copy, Default)]
struct Row {
    ranks: usize,
    overlap: bool,
    n: usize,
    m: usize,
    total: f64,
    compute: f64,
    halo: f64,
    reduce: f64,
}

const WARMUP: usize = 2;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|k| args.get(k + 1))
            .cloned()
    };
    let n: usize = opt("--n").map_or(Ok(1024), |s| s.parse())?;
    let steps: usize = opt("--steps").map_or(Ok(20), |s| s.parse())?;
    if let Some(rows) = opt("--child") {
        return child(
            rows.parse()?,
            n,
            steps,
            !args.iter().any(|a| a == "--blocking"),
        );
    }
    if !cfg!(feature = "mpi") {
        println!("dist_scaling: built without `--features mpi`, so one rank only");
        let row = measure(&nuda::dist::init()?, n, n, steps, true)?;
        print_rows("one rank", &[row], false);
        return Ok(());
    }
    let engine = opt("--engine");
    let ranks: Vec<usize> = opt("--ranks")
        .unwrap_or_else(|| "1,2,4".into())
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let repeat: usize = opt("--repeat").map_or(Ok(3), |s| s.parse())?;
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let threads = (cores / ranks.iter().copied().max().unwrap_or(1)).max(1);
    let e = (engine.as_deref(), threads);
    let (mut strong, mut weak) = (Vec::new(), Vec::new());
    for &r in &ranks {
        strong.extend(best_pair(
            repeat,
            || spawn(r, n, n, steps, e, true),
            || spawn(r, n, n, steps, e, false),
        )?);
        let rows = n / 2 * r;
        weak.extend(best_pair(
            repeat,
            || spawn(r, rows, n, steps, e, true),
            || spawn(r, rows, n, steps, e, false),
        )?);
    }
    // The ranks' device, as rank 0 reported it (the engine asked for, not this process's).
    let device = match RANKS_DEVICE.get() {
        Some(d) => d.clone(),
        None => current_device()?.label(),
    };
    println!(
        "dist_scaling on {device}, {threads} threads per rank on the native engine, best of {repeat}{}",
        engine
            .map(|e| format!(" (NUDA_ENGINE={e})"))
            .unwrap_or_default()
    );
    print_rows(&format!("strong scaling, {n} x {n}"), &strong, false);
    print_rows(
        &format!("weak scaling, {} rows per rank x {n}", n / 2),
        &weak,
        true,
    );
    match opt("--json") {
        Some(path) => write_json(&path, &strong, &weak, (&device, threads)),
        None => Ok(()),
    }
}

/// The rows as a JSON list.
fn write_json(
    path: &str,
    strong: &[Row],
    weak: &[Row],
    on: (&str, usize),
) -> Result<(), Box<dyn std::error::Error>> {
    let rows: Vec<String> = strong
        .iter()
        .map(|r| json("strong", r, on))
        .chain(weak.iter().map(|r| json("weak", r, on)))
        .collect();
    std::fs::write(path, format!("[\n{}\n]\n", rows.join(",\n")))?;
    Ok(())
}

type Spawned = Result<Row, Box<dyn std::error::Error>>;

/// The best (fastest) of `k` runs of each of `a` and `b`, alternating.
fn best_pair(
    k: usize,
    a: impl Fn() -> Spawned,
    b: impl Fn() -> Spawned,
) -> Result<[Row; 2], Box<dyn std::error::Error>> {
    let best = |x: Option<Row>, y: Row| match x {
        Some(x) if x.total <= y.total => x,
        _ => y,
    };
    let (mut ba, mut bb) = (None, None);
    for _ in 0..k.max(1) {
        ba = Some(best(ba, a()?));
        bb = Some(best(bb, b()?));
    }
    Ok([ba.unwrap_or_default(), bb.unwrap_or_default()])
}

/// The device rank 0 of the first run used.
static RANKS_DEVICE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Runs this bench under `mpirun -np ranks` on an `n` x `m` grid and reads rank 0's row.
fn spawn(
    ranks: usize,
    n: usize,
    m: usize,
    steps: usize,
    (engine, threads): (Option<&str>, usize),
    overlap: bool,
) -> Result<Row, Box<dyn std::error::Error>> {
    let mut cmd = mpirun(ranks, engine, threads)?;
    let sizes = [n.to_string(), m.to_string(), steps.to_string()];
    cmd.args(["--child", &sizes[0], "--n", &sizes[1], "--steps", &sizes[2]]);
    if !overlap {
        cmd.arg("--blocking");
    }
    let out = cmd.output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("dist_scaling row: "));
    if let Some(d) = text
        .lines()
        .find_map(|l| l.strip_prefix("dist_scaling device: "))
    {
        let _ = RANKS_DEVICE.set(d.to_string());
    }
    let (Some(line), true) = (line, out.status.success()) else {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("mpirun -np {ranks} failed: {text}{err}").into());
    };
    let v: Vec<f64> = line
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let [total, compute, halo, reduce] = v[..] else {
        return Err(format!("bad row {line}").into());
    };
    Ok(Row {
        ranks,
        overlap,
        n,
        m,
        total,
        compute,
        halo,
        reduce,
    })
}

/// `mpirun -np ranks <this bench>`, with the engine's variable when one is asked for.
fn mpirun(ranks: usize, engine: Option<&str>, threads: usize) -> std::io::Result<Command> {
    let mut cmd = Command::new("mpirun");
    // Unbound: Open MPI binds each rank of a small job to one core, which would leave one
    // rank's device (PoCL, the native engine) a single core of the machine.
    cmd.args(["--oversubscribe", "--bind-to", "none"]);
    // SAFETY: geteuid has no preconditions and only reads the process's credentials.
    if unsafe { geteuid() } == 0 {
        cmd.arg("--allow-run-as-root");
    }
    if let Some(e) = engine {
        cmd.args(["-x", &format!("NUDA_ENGINE={e}")]);
    }
    // The native engine's threads: the same for every rank count.
    if engine == Some("native") {
        cmd.args(["-x", &format!("RAYON_NUM_THREADS={threads}")]);
    }
    cmd.args(["-np", &ranks.to_string()])
        .arg(std::env::current_exe()?);
    Ok(cmd)
}

extern "C" {
    fn geteuid() -> u32;
}

/// Under `mpirun`: the stencil on an `n` x `m` grid, rank 0 printing the slowest rank's row.
fn child(
    n: usize,
    m: usize,
    steps: usize,
    overlap: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let world = nuda::dist::init()?;
    let row = measure(&world, n, m, steps, overlap)?;
    if world.rank() == 0 {
        println!(
            "dist_scaling device: {}\ndist_scaling row: {} {} {} {}",
            current_device()?.label(),
            row.total,
            row.compute,
            row.halo,
            row.reduce
        );
    }
    Ok(())
}

/// Steps of the stencil; each figure the largest over the ranks, per step, in ms.
fn measure(
    world: &nuda::dist::World,
    n: usize,
    m: usize,
    steps: usize,
    overlap: bool,
) -> nuda::Result<Row> {
    let mut u = NuDist2::<f32>::from_fn(world, (n, m), 1, |(i, j)| step::init(i, j))?;
    let mut v = NuDist2::<f32>::from_fn(world, (n, m), 1, |(i, j)| step::init(i, j))?;
    let mut t = step::Times::default();
    for _ in 0..WARMUP {
        step::step_with(&mut u, &mut v, &mut t, overlap)?;
        std::mem::swap(&mut u, &mut v);
    }
    world.barrier();
    let (mut t, began) = (step::Times::default(), std::time::Instant::now());
    for _ in 0..steps {
        step::step_with(&mut u, &mut v, &mut t, overlap)?;
        std::mem::swap(&mut u, &mut v);
    }
    world.barrier();
    let total = began.elapsed().as_secs_f64();
    let mine = [
        total,
        t.compute.as_secs_f64(),
        t.halo.as_secs_f64(),
        t.reduce.as_secs_f64(),
    ];
    let all = world.all_gather_vec(&mine)?;
    let max = |k: usize| all.chunks(4).map(|c| c[k]).fold(0f64, f64::max) * 1e3 / steps as f64;
    Ok(Row {
        ranks: world.size(),
        overlap,
        n,
        m,
        total: max(0),
        compute: max(1),
        halo: max(2),
        reduce: max(3),
    })
}

fn print_rows(title: &str, rows: &[Row], weak: bool) {
    println!("\n{title}");
    println!("| ranks | exchange | grid | ms/step | compute | halo | waiting | efficiency |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in rows {
        let one = rows
            .iter()
            .find(|o| o.ranks == 1 && o.overlap == r.overlap)
            .map_or(1.0, |o| o.total);
        let mode = if r.overlap { "overlapped" } else { "blocking" };
        println!(
            "| {} | {mode} | {} x {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.ranks,
            r.n,
            r.m,
            r.total,
            r.compute,
            r.halo,
            r.reduce,
            efficiency(r, one, weak)
        );
    }
}

/// Strong rows share the grid: 1-rank time / (ranks x time). Weak rows grow the grid with
/// the ranks: 1-rank time / time.
fn efficiency(r: &Row, one: f64, weak: bool) -> f64 {
    match weak {
        false => one / (r.ranks as f64 * r.total),
        true => one / r.total,
    }
}

/// One row as JSON, with the device each rank ran on and its threads (`scripts/bench-report`
/// reads them).
fn json(mode: &str, r: &Row, (device, threads): (&str, usize)) -> String {
    let device = device.replace('\\', "\\\\").replace('"', "\\\"");
    format!(
        "  {{\"kind\": \"dist-scaling\", \"device\": \"{device}\", \"threads\": {threads}, \"mode\": \"{mode}\", \"ranks\": {}, \"overlap\": {}, \"n\": {}, \"m\": {}, \"ms_per_step\": {:.4}, \"compute\": {:.4}, \"halo\": {:.4}, \"reduction\": {:.4}}}",
        r.ranks, r.overlap, r.n, r.m, r.total, r.compute, r.halo, r.reduce
    )
}
