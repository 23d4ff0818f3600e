//! `cargo bench --bench model_problems`: nuda's benchmark. It runs on the best device found
//! (the native engine where there is no OpenCL) and reports, as figures measured in this run:
//! host-device bandwidth and launch overhead, the cost of `nuwork!` over a raw launch, and
//! NUDA's model problems (imgconv, nbody, sgemm, dgemm, md5, and mandelbrot) and Parboil's mri-q with every annotation variant,
//! base first, and their peers, as a table like NUDA's Table 3.

mod chart;
mod checks;
mod dot;
mod filter;
mod histogram;
#[path = "../../examples/imgconv/kernels.rs"]
mod imgconv;
mod lab;
mod lab_amd;
#[path = "../../examples/mandelbrot/kernels.rs"]
mod mandelbrot;
#[path = "../../examples/md5/kernels.rs"]
mod md5;
mod mriq;
#[path = "../../examples/nbody/kernels.rs"]
mod nbody;
mod overhead;
mod peers;
#[path = "../../examples/common/problem.rs"]
mod problem;
mod problems;
mod reduce;
mod runtime;
mod saxpy;
mod scaling;
mod scan;
#[path = "../../examples/sgemm/kernels.rs"]
mod sgemm;
mod spec;
#[path = "../../examples/common/split.rs"]
mod split;
mod table;
mod threaded;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};

const ALL: &[&str] = &[
    "runtime",
    "saxpy",
    "reduce",
    "dot",
    "scan",
    "filter",
    "histogram",
    "imgconv",
    "nbody",
    "sgemm",
    "dgemm",
    "md5",
    "mandelbrot",
    "mriq",
    "scaling",
];

/// Command-line options; `cargo bench` passes `--bench`, which is accepted and ignored.
#[derive(Parser, Debug)]
#[command(about = "nuda's model problems and runtime figures")]
struct Args {
    /// Small sizes and one repetition, for CI.
    #[arg(long, short, env = "NUDA_QUICK")]
    quick: bool,
    /// Problems to run, comma-separated: runtime, saxpy, reduce, dot, scan, filter, histogram, imgconv, nbody,
    /// sgemm, dgemm, md5, mandelbrot, and scaling (sgemm and nbody split over `--devices`).
    #[arg(
        long,
        short,
        value_delimiter = ',',
        default_value = "runtime,saxpy,reduce,dot,scan,filter,histogram,imgconv,nbody,sgemm,dgemm,md5,mandelbrot,mriq,scaling"
    )]
    problems: Vec<String>,
    /// Devices the scaling problem splits over: `all`, or a list such as `0,1`.
    #[arg(long, default_value = "all")]
    devices: String,
    /// Device index or name substring (as NUDA_DEVICE).
    #[arg(long, short)]
    device: Option<String>,
    /// Engine: auto, cuda, opencl or native (as NUDA_ENGINE).
    #[arg(long, short)]
    engine: Option<String>,
    /// Only the variants whose name contains one of these, `;`-separated (names hold
    /// commas), such as `dmine(4, 8);stage(a, b, k: 16), dmine(4, 4)`; peers always run.
    /// Speedups are then over the first variant run.
    #[arg(long, value_delimiter = ';')]
    variants: Vec<String>,
    /// Timed repetitions per variant (the best is reported).
    #[arg(long, short, default_value_t = 3)]
    reps: u32,
    /// Tune the `tune(..)` variants on this device where no winner is stored yet (as
    /// `NUDA_TUNE=1`; set `NUDA_TUNE=force` to search again): the default, kept as a flag
    /// for older command lines. Their untuned rows run the first candidate.
    #[arg(long, conflicts_with = "no_tune")]
    tune: bool,
    /// Seconds a search may take before it stops timing new candidates (as
    /// `NUDA_TUNE_BUDGET`): each search times the likeliest winners first, in the order of the
    /// repository's seeds for the device (the static lab's ranking for an H100 or H200).
    #[arg(long, value_name = "SECONDS")]
    tune_budget: Option<f64>,
    /// Do not search: the tuned rows run a stored winner, or else their first candidate
    /// (as `NUDA_TUNE` unset). A `NUDA_TUNE` in the environment wins over both flags.
    #[arg(long)]
    no_tune: bool,
    /// Run every chosen variant on the native engine too, each timed in alternating rounds
    /// with the same variant on the selected device; the native row's `nuda/peer` column is
    /// then its speed over the device's. With `--variants vector`: every `vector(w)` chain,
    /// natively against the device, from one run.
    #[arg(long)]
    native_each: bool,
    /// Time every variant in alternating rounds with its problem's base as well; the variant
    /// row's `nuda/peer` column is then its speed over the base's, paired, so a machine whose
    /// speed drifts between the two measurements biases neither (the `speedup` column is not
    /// paired).
    #[arg(long)]
    paired_base: bool,
    /// On a GPU, how long each measurement's timed rounds last at least, past `--reps`, in
    /// milliseconds: an idle GPU's clocks rise only under load (0: `--reps` rounds alone,
    /// the bench before session 45, to compare).
    #[arg(long, value_name = "MS", default_value_t = 200)]
    gpu_window_ms: u64,
    /// Write the table as JSON.
    #[arg(long)]
    json: Option<String>,
    /// Write a bar chart of the speedups as SVG.
    #[arg(long)]
    svg: Option<String>,
    /// Write the same chart as PNG.
    #[arg(long)]
    png: Option<String>,
    /// Measure nothing: read the rows of an earlier `--json` and print and draw them.
    #[arg(long)]
    replot: Option<String>,
    /// Run nothing either: compile every variant of every problem (and each hand-written
    /// peer) for this NVIDIA architecture with NVRTC, read NVIDIA's disassembly, and print
    /// per kernel its registers, spills, shared memory, occupancy on an H100/H200 and the
    /// instruction mix of its hottest loop (`sm_90`; needs pip's nvidia-cuda-nvrtc-cu12,
    /// nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm, no GPU). With `NUDA_HIP_CHECK` or
    /// `NUDA_AMDGCN_CHECK` set, a column per AMD compiler and architecture too; `--json`
    /// writes the table (`kind: static`).
    #[arg(long = "static", value_name = "ARCH")]
    static_arch: Option<String>,
    /// With `--static`: write the lab's ranking of every tuned variant's candidates (best
    /// static bound first) into this seeds file, replacing the entries of the same call
    /// sites: `nuda-runtime/src/tune/defaults.json` is the one nuda ships, read by searches
    /// and untuned runs on an H100 or H200.
    #[arg(long, value_name = "PATH", requires = "static_arch")]
    write_seeds: Option<String>,
    #[arg(long, hide = true)]
    bench: bool,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    // The runtime reads the environment once, at first use, which is below.
    if let Some(d) = &args.device {
        std::env::set_var("NUDA_DEVICE", d);
    }
    if let Some(e) = &args.engine {
        std::env::set_var("NUDA_ENGINE", e);
    }
    if let Some(s) = args.tune_budget {
        std::env::set_var("NUDA_TUNE_BUDGET", s.to_string());
    }
    // Tuned rows are tuned unless asked not to be: a fresh machine has no stored winner, and
    // a "tuned" row running its first candidate would show that tuning buys nothing.
    // On the lab, which times nothing, a search ranks the candidates by their static bounds.
    let tuning = args.tune || !args.no_tune || args.static_arch.is_some();
    if tuning && std::env::var_os("NUDA_TUNE").is_none() {
        std::env::set_var("NUDA_TUNE", "1");
    }
    if let Some(bad) = args.problems.iter().find(|p| !ALL.contains(&p.as_str())) {
        return Err(format!("unknown problem `{bad}`; choose from {}", ALL.join(", ")).into());
    }
    if let Some(path) = &args.replot {
        let rows = table::read_rows(&std::fs::read_to_string(path)?)?;
        return report(&args, &rows, &[]);
    }
    if let Some(arch) = &args.static_arch {
        // Registered before anything else asks for devices; every launch then goes there.
        let lab = nuda::lab::enable(arch)?;
        nuda::set_device(lab)?;
    }
    nuda::init()?;
    let device = nuda::current_device()?;
    println!("nuda bench on {}", device.info());
    let mut figures = Vec::new();
    if args.problems.iter().any(|p| p == "runtime") && args.static_arch.is_none() {
        figures = runtime::report(&device, args.quick)?;
        figures.extend(overhead::report(&device, args.quick)?);
    }
    let (rows, lab) = problems(&args, device)?;
    if let Some(arch) = &args.static_arch {
        lab::print(&lab, arch);
        if let Some(path) = &args.json {
            lab_amd::write_json(&lab, arch, path)?;
        }
        if let Some(path) = &args.write_seeds {
            lab::write_seeds(path)?;
        }
        return Ok(());
    }
    if rows.is_empty() {
        return match &args.json {
            Some(path) if !figures.is_empty() => table::write_json(&[], &figures, path),
            _ => Ok(()),
        };
    }
    report(&args, &rows, &figures)
}

/// The rows measured, and what the static lab recorded (with `--static`).
type Ran = (Vec<table::Row>, Vec<spec::LabRow>);

fn problems(args: &Args, device: nuda::Device) -> Result<Ran, Box<dyn std::error::Error>> {
    let native = nuda::devices()
        .iter()
        .find(|d| d.kind == nuda::DeviceKind::Native && d.index != device.index())
        .map(|d| d.index);
    // The lab runs the problems' variants: neither runtime figures nor scaling.
    let lab_mode = args.static_arch.is_some();
    let chosen: Vec<String> = args
        .problems
        .iter()
        .filter(|p| *p != "runtime" && !(lab_mode && *p == "scaling"))
        .cloned()
        .collect();
    // The native engine's peers run natively: nothing for the lab.
    let native = native.filter(|_| !lab_mode);
    // Each problem adds its own steps as it starts (`Bench::run`).
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let reps = if args.quick { 1 } else { args.reps };
    problem::set_gpu_window(std::time::Duration::from_millis(args.gpu_window_ms));
    let mut bench = spec::Bench {
        device,
        native,
        reps,
        bar,
        rows: Vec::new(),
        only: args.variants.clone(),
        native_each: args.native_each,
        paired_base: args.paired_base,
        lab_mode,
        lab: Vec::new(),
        quick: args.quick,
    };
    for p in &chosen {
        match p.as_str() {
            "saxpy" => saxpy::run(&mut bench, args.quick)?,
            "reduce" => reduce::run(&mut bench, args.quick)?,
            "dot" => dot::run(&mut bench, args.quick)?,
            "scan" => scan::run(&mut bench, args.quick)?,
            "filter" => filter::run(&mut bench, args.quick)?,
            "histogram" => histogram::run(&mut bench, args.quick)?,
            "imgconv" => problems::conv(&mut bench, args.quick)?,
            "nbody" => problems::bodies(&mut bench, args.quick)?,
            "sgemm" => problems::gemm(&mut bench, args.quick, false)?,
            "dgemm" => problems::gemm(&mut bench, args.quick, true)?,
            "md5" => problems::hashes(&mut bench, args.quick)?,
            "mandelbrot" => problems::fractal(&mut bench, args.quick)?,
            "mriq" => mriq::run(&mut bench, args.quick)?,
            "scaling" => {
                let devices = split::parse_devices(&args.devices)?;
                scaling::report(&mut bench, args.quick, &devices)?
            }
            _ => {}
        }
    }
    bench.bar.finish_and_clear();
    Ok((bench.rows, bench.lab))
}

/// Prints the table and writes the files asked for (the JSON with the runtime figures);
/// an unverified row is an error.
fn report(
    args: &Args,
    rows: &[table::Row],
    figures: &[table::RuntimeRow],
) -> Result<(), Box<dyn std::error::Error>> {
    table::print(rows);
    table::print_check_costs(rows);
    if let Some(path) = &args.json {
        table::write_json(rows, figures, path)?;
    }
    if let Some(path) = &args.svg {
        chart::write_svg(rows, path)?;
    }
    if let Some(path) = &args.png {
        chart::write_png(rows, path)?;
    }
    if rows.iter().any(|r| !r.verified) {
        return Err("a result did not match its CPU reference".into());
    }
    Ok(())
}
