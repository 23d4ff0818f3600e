//! `nuda::lab`: the static lab, NVIDIA's compiler and disassembler judging every kernel with
//! no GPU (layer 5, above the device registry it adds a device to). [`enable`] registers a
//! device that compiles each launch for `sm_90` (an H100 or H200), reads the SASS, and runs
//! nothing; [`take_records`] returns what it found per launch, and [`take_amd_records`] what
//! AMD's compilers made of the same launches where their checks are on. The bench's
//! `--static sm_90` runs every variant of every model problem on it and prints the table.

pub use crate::backend::c::amd_lab::AmdRecord;
pub use crate::backend::cuda::lab::{take_records, Occupancy, Record};
pub use crate::backend::cuda::sass::Mix;

use crate::error::{Error, Result};

/// Registers the lab for `arch` (only `sm_90` today) and returns its device index, for
/// [`crate::set_device`]. Call it before any other nuda call, as backends are registered.
/// An `Err` says what is missing: NVRTC, or cuobjdump and nvdisasm (pip's
/// `nvidia-cuda-nvrtc-cu12`, `nvidia-cuda-cuobjdump`, `nvidia-cuda-nvdisasm`).
pub fn enable(arch: &str) -> Result<usize> {
    let bad = |reason: String| Error::BadSelection {
        source: "nuda::lab::enable".into(),
        value: arch.into(),
        reason,
        choices: "sm_90".into(),
    };
    if arch != "sm_90" {
        return Err(bad(
            "the lab knows the occupancy rules of sm_90 (H100, H200) only".into(),
        ));
    }
    use crate::backend::Provider;
    let lab = &crate::backend::cuda::lab::LAB_SM90;
    // Why there would be no device, said before the registry hides it.
    lab.devices().map_err(bad)?;
    crate::device::register(lab)?;
    let config = crate::config::config();
    let listed = |l: &Result<Vec<String>>| l.as_ref().is_ok_and(|a| !a.is_empty());
    if listed(&config.hip_check) || listed(&config.amdgcn_check) {
        crate::backend::c::amd_lab::collect();
    }
    let found = crate::device::devices()
        .into_iter()
        .find(|d| d.platform == "CUDA lab");
    found
        .map(|d| d.index)
        .ok_or_else(|| bad("the device list has no lab device".into()))
}

/// What AMD's compilers made of the calling thread's launches since its last call, oldest
/// first: with `NUDA_HIP_CHECK` or `NUDA_AMDGCN_CHECK` set, every launch after [`enable`] is
/// compiled by hiprtc or clang for each architecture listed (whatever the checks' memos say),
/// and each kernel's VGPRs, SGPRs, spills, LDS, waves per SIMD and global loads in flight are
/// kept. Empty where neither is set; a program with images has no record for gfx94x, which
/// has no image instructions.
pub fn take_amd_records() -> Vec<AmdRecord> {
    crate::backend::c::amd_lab::take()
}
