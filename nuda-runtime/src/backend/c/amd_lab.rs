//! The static lab's AMD side (layer 1, shared by the AMD compile checks): while the lab
//! collects (`nuda::lab::enable` with `NUDA_HIP_CHECK` or `NUDA_AMDGCN_CHECK` set), every
//! check hiprtc or clang makes compiles, whatever the checks' memos say, and leaves each
//! kernel's resources here, in launch order, for `nuda::lab::take_amd_records`. Records
//! belong to the launching thread, as the lab's own do: the checks run on threads of their
//! own, whose records `offline_checks` hands to the launching thread with [`adopt`]. Unlike
//! the lab's thread-local records they sit in one process-wide list, so a thread that never
//! takes its own leaves them there until the process ends (a lab process is a bench run or a
//! test binary). So the bench's `--static` table puts an MI200's or MI300's registers,
//! spills, waves and loads in flight beside an H100's for the same launch.

use super::amdgpu::{waves_per_simd, Resources};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread::ThreadId;

static COLLECTING: AtomicBool = AtomicBool::new(false);
/// Each record, with the thread it belongs to.
static RECORDS: Mutex<Vec<(ThreadId, AmdRecord)>> = Mutex::new(Vec::new());

/// One kernel of one program as one AMD compiler built it for one architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmdRecord {
    /// `hiprtc` (the HIP dialect) or `clang` (OpenCL C, as ROCm's OpenCL compiles it).
    pub compiler: &'static str,
    /// The architecture, such as `gfx90a`.
    pub arch: String,
    /// The kernel's entry point.
    pub kernel: String,
    /// VGPRs (on gfx90a and gfx94x, AGPRs included), AGPRs and SGPRs.
    pub registers: (u32, u32, u32),
    /// Spilled VGPRs and SGPRs.
    pub spills: (u32, u32),
    /// Static LDS bytes.
    pub lds: u32,
    /// Waves per SIMD the registers allow, where AMD documents the budget.
    pub waves: Option<u32>,
    /// The most global loads a wave has in flight, where LLVM's disassembler read the ISA.
    pub loads: Option<u32>,
}

/// Whether the lab collects.
pub(crate) fn collecting() -> bool {
    COLLECTING.load(Ordering::Relaxed)
}

/// From now on the lab collects.
pub(crate) fn collect() {
    COLLECTING.store(true, Ordering::Relaxed);
}

/// Keeps what `compiler` made of one program for `arch`, if the lab collects.
pub(crate) fn push(compiler: &'static str, arch: &str, kernels: &[Resources]) {
    if !collecting() {
        return;
    }
    let me = std::thread::current().id();
    let records = kernels.iter().map(|k| AmdRecord {
        compiler,
        arch: arch.to_string(),
        kernel: k.name.clone(),
        registers: (k.vgprs, k.agprs, k.sgprs),
        spills: (k.vgpr_spills, k.sgpr_spills),
        lds: k.lds,
        waves: waves_per_simd(arch, k),
        loads: k.loads,
    });
    lock().extend(records.map(|r| (me, r)));
}

/// The records of threads `from` become the calling thread's.
pub(crate) fn adopt(from: &[ThreadId]) {
    let me = std::thread::current().id();
    for (owner, _) in lock().iter_mut().filter(|(o, _)| from.contains(o)) {
        *owner = me;
    }
}

/// The calling thread's records kept since its last call, oldest first.
pub fn take() -> Vec<AmdRecord> {
    let me = std::thread::current().id();
    let mut all = lock();
    let (mine, others) = std::mem::take(&mut *all)
        .into_iter()
        .partition(|(o, _)| *o == me);
    *all = others;
    mine.into_iter().map(|(_, r)| r).collect()
}

fn lock() -> std::sync::MutexGuard<'static, Vec<(ThreadId, AmdRecord)>> {
    RECORDS.lock().unwrap_or_else(PoisonError::into_inner)
}
