//! md5: brute-force search for a 4-byte message whose MD5 truncated to k bits matches a
//! target, base `nuwork!` and annotated variants, with hashes per second and speedups; prints
//! the message found.
//!
//! `cargo run --release --example md5 -- --size 4294967296 --bits 32`, `-- --quick`.

#[path = "../common/mod.rs"]
mod common;
#[path = "kernels.rs"]
mod kernels;

use common::{cli, problem, report};

use clap::Parser;

/// md5 collision search with nuda.
#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    common: cli::Common,
    /// Bits of the digest to match.
    #[arg(short, long, env = "NUDA_BITS", default_value_t = 32)]
    bits: u32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    args.common.apply();
    nuda::init()?;
    assert_eq!(
        kernels::md5(b"abc")[0].to_be(),
        0x90015098,
        "the reference MD5 is RFC 1321's"
    );
    let count = args
        .common
        .size
        .map_or(if args.common.quick { 1 << 20 } else { 1 << 32 }, |s| {
            s as u64
        });
    let mut q = kernels::setup(count, args.bits);
    println!(
        "md5 search, {count} candidates, {} bits, target {:#010x}",
        args.bits, q.target
    );
    let work = report::Work {
        ops: count as f64,
        unit: "Mhash/s",
        scale: 1e6,
        bytes: None,
    };
    let ok = args
        .common
        .run_all(&mut q, kernels::VARIANTS, &work, &kernels::CHECK)?;
    let c = (q.found[0].max(1) - 1) as u32;
    println!(
        "found message {:02x?} (candidate {c:#010x}): md5 {:08x}..",
        c.to_le_bytes(),
        kernels::md5(&c.to_le_bytes())[0].to_be()
    );
    if !ok {
        return Err("a variant's result is wrong".into());
    }
    Ok(())
}
