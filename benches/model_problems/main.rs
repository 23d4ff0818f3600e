//! `cargo bench --bench model_problems`: nuda's benchmark. It runs on the best device found
//! (the native engine where there is no OpenCL) and reports, as figures measured in this run:
//! host-device transfer bandwidth and launch overhead, then the model problems.

mod overhead;
mod runtime;
mod sgemm_annot;

use clap::Parser;

/// Command-line options; `cargo bench` passes `--bench`, which is accepted and ignored.
#[derive(Parser, Debug)]
#[command(about = "nuda's model problems and runtime figures")]
struct Args {
    /// Small sizes and few repetitions, for CI.
    #[arg(long, short, env = "NUDA_QUICK")]
    quick: bool,
    /// Device index or name substring (as NUDA_DEVICE).
    #[arg(long, short)]
    device: Option<String>,
    #[arg(long, hide = true)]
    bench: bool,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    if let Some(d) = &args.device {
        // The runtime reads the environment once, at first use, which is below.
        std::env::set_var("NUDA_DEVICE", d);
    }
    nuda::init()?;
    let device = nuda::current_device()?;
    println!("nuda bench on {}", device.info());
    runtime::report(&device, args.quick)?;
    overhead::report(&device, args.quick)?;
    sgemm_annot::report(&device, args.quick)?;
    println!("\nno model problems yet");
    Ok(())
}
