//! What a problem declares for the bench (its variants, peers, work and check) and the run's
//! state. The problem modules (dot, scan, ...) build a `Spec`; `problems.rs` runs it. This
//! file imports no problem, so no problem module and the runner import each other.

use super::problem::{Check, Variant};
use super::table::Row;
use indicatif::ProgressBar;
use nuda::lab::Record;
use nuda::{Device, DeviceKind};

/// Which peak a rate is a share of.
#[derive(Clone, Copy)]
pub enum Peak {
    Fp32,
    Fp64,
    Bandwidth,
    Unknown,
}

/// One run of a problem: a variant's or a peer's.
pub type Run<S> = fn(&mut S) -> nuda::Result<()>;

/// A comparison measured beside the variants, with its source lines where it has source.
pub struct Peer<'a, S> {
    pub name: &'a str,
    pub run: Run<S>,
    pub lines: Option<usize>,
}

/// What one problem needs measured.
pub struct Spec<'a, S> {
    pub problem: &'a str,
    pub size: String,
    pub source: &'static str,
    pub variants: &'a [Variant<S>],
    /// Work per run in the rate's unit times its scale: `rate = ops / seconds / scale`.
    pub ops: f64,
    pub unit: &'a str,
    pub scale: f64,
    /// Floating-point operations per run, for the GFLOP/s column.
    pub flops: Option<f64>,
    pub peak: Peak,
    /// Elements per run (streaming problems): the static lab's bytes moved per element.
    pub elements: Option<usize>,
    pub check: &'a Check<S>,
    /// Peers run on the selected OpenCL device (hand-written OpenCL C).
    pub same_device_peers: Vec<Peer<'a, S>>,
    /// Peers run on the host, outside nuda (matrixmultiply).
    pub host_peers: Vec<Peer<'a, S>>,
}

/// The run's state: device, progress, rows.
pub struct Bench {
    pub device: Device,
    pub native: Option<usize>,
    pub reps: u32,
    pub bar: ProgressBar,
    pub rows: Vec<Row>,
    /// `--variants`: name parts of the variants to run; empty runs all.
    pub only: Vec<String>,
    /// `--native-each`: every variant also on the native engine, paired with this device.
    pub native_each: bool,
    /// `--paired-base`: every variant also timed in alternating rounds with the base.
    pub paired_base: bool,
    /// `--static`: run each variant once on the static lab, time and check nothing.
    pub lab_mode: bool,
    /// What the lab recorded per variant (`lab.rs`).
    pub lab: Vec<LabRow>,
    /// `--quick`: the "every check kept" way is left out (it builds every program again with
    /// 64-bit indices: 17 more imgconv builds on PoCL, the CI run's costliest step).
    pub quick: bool,
}

/// A bandwidth-bound problem of `n` elements moving `bytes` per run, rated in GB/s, with one
/// hand-written threaded Rust peer on the host.
pub fn streaming<S>(
    problem: &'static str,
    n: usize,
    bytes: f64,
    variants: &'static [Variant<S>],
    check: &'static Check<S>,
    source: &'static str,
    peer: Peer<'static, S>,
) -> Spec<'static, S> {
    Spec {
        problem,
        size: format!("2^{}", n.trailing_zeros()),
        source,
        variants,
        ops: bytes,
        unit: "GB/s",
        scale: 1e9,
        flops: None,
        peak: Peak::Bandwidth,
        elements: Some(n),
        check,
        same_device_peers: vec![],
        host_peers: vec![peer],
    }
}

/// Whether the device is a CPU (PoCL, native): sizes shrink so a run stays in minutes.
pub fn on_cpu(device: &Device) -> bool {
    matches!(device.info().kind, DeviceKind::Cpu | DeviceKind::Native)
}

/// Elements a streaming problem moves: `on_cpu` on a CPU device, 2^26 on a GPU and 2^16 with
/// `--quick`. A GPU gets 2^26 because an H100's or H200's L2 (50-60 MB) holds most of 2^24
/// four-byte elements between runs, and a 2^24 kernel's 30 µs leave the launch's ramp and
/// tail a visible share: the copy peer would not show the memory's bandwidth.
pub fn stream_len(device: &Device, quick: bool, on_cpu_len: usize) -> usize {
    match (quick, on_cpu(device)) {
        (true, _) => 1 << 16,
        (false, true) => on_cpu_len,
        (false, false) => 1 << 26,
    }
}

/// The kernels one variant launched, as the lab saw them.
pub struct LabRow {
    pub problem: String,
    pub variant: String,
    pub peak: Peak,
    /// Elements per run, where the problem streams them.
    pub elements: Option<usize>,
    pub records: Vec<Record>,
    /// What AMD's compilers made of the same launches, where their checks are on.
    pub amd: Vec<nuda::lab::AmdRecord>,
    /// What the lab refused, as a GPU's launch would (too much shared memory, ..).
    pub error: Option<String>,
}
