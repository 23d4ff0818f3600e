//! Warp shuffles on OpenCL devices with sub-groups (layer 1, the OpenCL backend). The
//! reduction tree's last five steps and the one-pass scan's rows are written for warps of 32
//! lanes (`nu_shfl_down`, `nu_shfl_up`, `nu_shfl_idx`, as CUDA's `__shfl_*_sync`). An OpenCL
//! device runs them so when it can be told to make sub-groups of exactly 32
//! (`cl_intel_required_subgroup_size`, with 32 among its sizes) and has shuffles
//! (`cl_khr_subgroup_shuffle` with `cl_khr_subgroup_shuffle_relative`, or
//! `cl_intel_subgroups` with its `char`, `short` and `long` forms). Intel's CPU and GPU
//! runtimes are such devices; PoCL 3.1 and NVIDIA's OpenCL are not, and keep the tree in
//! local memory.
//!
//! ROCm's OpenCL on an AMD GPU compiles with clang for `amdgcn-amd-amdhsa`, whose builtins
//! give the shuffles HIP's header builds `__shfl_down(x, h, 32)` from (`ds_bpermute` over
//! the lane numbers): the same width-32 warps on wave64 and wave32 GPUs, with no attribute.
//! `NUDA_AMDGCN_CHECK` compiles every program with them; no AMD GPU has run them yet.
//!
//! The shuffle pairs are the local tree's, so a device computes the same bits either way.
//! Sub-groups are runs of 32 consecutive items of the group's first dimension, so the warp
//! path is taken only where that dimension is a multiple of 32 (`NU_WARPED`).
//!
//! By default only GPUs take it (`NUDA_CL_SUBGROUPS`, `chosen`). On Intel's CPU runtime
//! sub-groups of 32 are four AVX2 vectors per value, and `NU_WARPS` made its dot 3x and its
//! scans and filters 10x slower (`benchmarks/issue49-s36-intel-warps/`); the attribute alone
//! did it, since the scan does not shuffle there. `NUDA_CL_SUBGROUPS=1` forces the path on
//! such a CPU, which is how `scripts/intel-opencl` runs the shuffles without a GPU. A CPU
//! device (`NU_CPU`) then shuffles in the tree alone: the one-pass scan keeps its CPU tile
//! there, and its rows of warps are a GPU's.

use crate::backend::{DeviceInfo, DeviceKind};
use crate::config::GpuScope;
use opencl3::device::Device as RawDevice;

/// `CL_DEVICE_SUB_GROUP_SIZES_INTEL`: the sub-group sizes a kernel may require, `size_t`s.
const SUB_GROUP_SIZES_INTEL: u32 = 0x4108;

/// The Khronos shuffles: typed for every scalar the trees carry.
const KHR: &str = "#define NU_SHFL 1\n\
#define NU_WARPS __attribute__((intel_reqd_sub_group_size(32)))\n\
#define NU_WARPED (get_local_size(0) % 32 == 0)\n\
#define nu_shfl_down(v, h) sub_group_shuffle_down(v, h)\n\
#define nu_shfl_up(v, h) sub_group_shuffle_up(v, h)\n\
#define nu_shfl_idx(v, h) sub_group_shuffle(v, h)\n";

/// Intel's own shuffles, for drivers without the Khronos ones. The two-operand forms take
/// the lanes past the sub-group's end from their second operand: here `v` again, which no
/// step reads there (the steps combine lanes below the stride only). `v` is always a
/// variable in the emitted code, so naming it twice evaluates nothing twice.
const INTEL: &str = "#define NU_SHFL 1\n\
#define NU_WARPS __attribute__((intel_reqd_sub_group_size(32)))\n\
#define NU_WARPED (get_local_size(0) % 32 == 0)\n\
#define nu_shfl_down(v, h) intel_sub_group_shuffle_down(v, v, h)\n\
#define nu_shfl_up(v, h) intel_sub_group_shuffle_up(v, v, h)\n\
#define nu_shfl_idx(v, h) intel_sub_group_shuffle(v, h)\n";

/// ROCm's: lane numbers from `mbcnt` (on wave32 GPUs its high half adds nothing), a lane
/// `h` past the end of its run of 32 reads its own value, as in HIP's header; values wider
/// than 32 bits travel in two halves, narrower ones widened to an `int`. The overloads are
/// clang's (`overloadable`), which ROCm's OpenCL compiler is. The `double` overload is kept
/// with the others, so a program with a tree enables `cl_khr_fp64` on ROCm even in `f32`
/// (every GPU ROCm's OpenCL supports has it).
pub(crate) const AMDGCN: &str = "#define NU_SHFL 1\n\
#define NU_WARPS\n\
#define NU_WARPED 1\n\
#define NU_OVL __attribute__((overloadable))\n\
uint nu_lane(void) { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }\n\
uint nu_src_down(uint h) { uint l = nu_lane(); return (l & 31u) + h < 32u ? l + h : l; }\n\
uint nu_src_up(uint h) { uint l = nu_lane(); return (l & 31u) >= h ? l - h : l; }\n\
uint nu_src_idx(uint k) { return (nu_lane() & ~31u) + (k & 31u); }\n\
int nu_bperm(int v, uint src) { return __builtin_amdgcn_ds_bpermute((int)(src << 2), v); }\n\
NU_OVL int nu_shfl_at(int v, uint s) { return nu_bperm(v, s); }\n\
NU_OVL uint nu_shfl_at(uint v, uint s) { return as_uint(nu_bperm(as_int(v), s)); }\n\
NU_OVL float nu_shfl_at(float v, uint s) { return as_float(nu_bperm(as_int(v), s)); }\n\
NU_OVL char nu_shfl_at(char v, uint s) { return (char)nu_bperm((int)v, s); }\n\
NU_OVL uchar nu_shfl_at(uchar v, uint s) { return (uchar)nu_bperm((int)v, s); }\n\
NU_OVL short nu_shfl_at(short v, uint s) { return (short)nu_bperm((int)v, s); }\n\
NU_OVL ushort nu_shfl_at(ushort v, uint s) { return (ushort)nu_bperm((int)v, s); }\n\
NU_OVL long nu_shfl_at(long v, uint s) { int2 p = as_int2(v); return as_long((int2)(nu_bperm(p.x, s), nu_bperm(p.y, s))); }\n\
NU_OVL ulong nu_shfl_at(ulong v, uint s) { int2 p = as_int2(v); return as_ulong((int2)(nu_bperm(p.x, s), nu_bperm(p.y, s))); }\n\
NU_OVL double nu_shfl_at(double v, uint s) { int2 p = as_int2(v); return as_double((int2)(nu_bperm(p.x, s), nu_bperm(p.y, s))); }\n\
#define nu_shfl_down(v, h) nu_shfl_at(v, nu_src_down(h))\n\
#define nu_shfl_up(v, h) nu_shfl_at(v, nu_src_up(h))\n\
#define nu_shfl_idx(v, h) nu_shfl_at(v, nu_src_idx(h))\n";

/// How Intel's OpenCL platforms name themselves (CPU: "Intel(R) OpenCL"; GPUs: "Intel(R)
/// OpenCL Graphics", "Intel(R) OpenCL HD Graphics").
const INTEL_PLATFORM: &str = "Intel(R) OpenCL";

/// The platform ROCm's (and AMD's earlier) OpenCL runtime names itself: its compiler is
/// clang for `amdgcn-amd-amdhsa`. Other OpenCL drivers for AMD GPUs (Mesa's) compile
/// otherwise and keep the local tree.
const ROCM_PLATFORM: &str = "AMD Accelerated Parallel Processing";

/// The warp macros for `raw`, if it can run warps of 32 (`None`: the dialect's, no shuffles).
pub(crate) fn warps(raw: &RawDevice, info: &DeviceInfo) -> Option<&'static str> {
    if info.kind == DeviceKind::Gpu && info.platform == ROCM_PLATFORM {
        return Some(AMDGCN);
    }
    // nuda builds as OpenCL C 1.2, where Intel's compilers declare the sub-group shuffles;
    // upstream clang declares the Khronos ones from OpenCL C 2.0 only, so another driver
    // listing the extensions (Mesa's) could refuse them: only Intel's platforms take them.
    if !info.platform.starts_with(INTEL_PLATFORM) {
        return None;
    }
    let extensions = raw.extensions().unwrap_or_default();
    let sizes = raw.get_data(SUB_GROUP_SIZES_INTEL).unwrap_or_default();
    choose(&extensions, &sizes_of(&sizes))
}

/// The warp macros a program for a device of `kind` gets, of those it `can` take, as
/// `NUDA_CL_SUBGROUPS` chooses.
pub(crate) fn chosen(
    can: Option<&'static str>,
    kind: DeviceKind,
    scope: GpuScope,
) -> Option<&'static str> {
    can.filter(|_| scope.takes(super::gpu_like(kind)))
}

/// The `size_t` values of a device query's bytes.
fn sizes_of(bytes: &[u8]) -> Vec<usize> {
    bytes
        .chunks_exact(size_of::<usize>())
        .map(|c| usize::from_ne_bytes(c.try_into().expect("chunks are usize-sized")))
        .collect()
}

/// The warp macros for a device with `extensions` whose kernels may require `sizes`.
fn choose(extensions: &str, sizes: &[usize]) -> Option<&'static str> {
    let has = |e: &str| extensions.split_whitespace().any(|x| x == e);
    if !has("cl_intel_required_subgroup_size") || !sizes.contains(&32) {
        return None;
    }
    if has("cl_khr_subgroup_shuffle") && has("cl_khr_subgroup_shuffle_relative") {
        return Some(KHR);
    }
    let intel = [
        "cl_intel_subgroups",
        "cl_intel_subgroups_char",
        "cl_intel_subgroups_short",
        "cl_intel_subgroups_long",
    ];
    intel.iter().all(|e| has(e)).then_some(INTEL)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQD: &str = "cl_khr_fp64 cl_intel_required_subgroup_size";

    #[test]
    fn khr_shuffles_need_a_required_size_of_32() {
        let khr = format!("{REQD} cl_khr_subgroup_shuffle cl_khr_subgroup_shuffle_relative");
        assert_eq!(choose(&khr, &[8, 16, 32]), Some(KHR));
        assert_eq!(choose(&khr, &[8, 16]), None, "no sub-groups of 32");
        let no_reqd = khr.replace("cl_intel_required_subgroup_size", "");
        assert_eq!(choose(&no_reqd, &[32]), None, "the size cannot be required");
    }

    #[test]
    fn intel_shuffles_need_every_type_the_trees_carry() {
        let intel = format!(
            "{REQD} cl_intel_subgroups cl_intel_subgroups_char cl_intel_subgroups_short \
             cl_intel_subgroups_long"
        );
        assert_eq!(choose(&intel, &[32]), Some(INTEL));
        let no_long = intel.replace("cl_intel_subgroups_long", "");
        assert_eq!(choose(&no_long, &[32]), None);
        // A name is matched whole: `cl_intel_subgroups_char` alone is not `cl_intel_subgroups`.
        let only_forms = intel.replace("cl_intel_subgroups ", "");
        assert_eq!(choose(&only_forms, &[32]), None);
    }

    /// GPUs take the warp path by default, CPUs when forced, and nothing when it is off.
    #[test]
    fn only_gpus_take_the_warp_path_by_default() {
        use GpuScope::{Auto, Off, On};
        assert_eq!(chosen(Some(KHR), DeviceKind::Gpu, Auto), Some(KHR));
        assert_eq!(chosen(Some(KHR), DeviceKind::Cpu, Auto), None);
        assert_eq!(chosen(Some(INTEL), DeviceKind::Cpu, On), Some(INTEL));
        assert_eq!(chosen(Some(KHR), DeviceKind::Gpu, Off), None);
        assert_eq!(
            chosen(None, DeviceKind::Gpu, On),
            None,
            "forcing adds no shuffles"
        );
    }

    #[test]
    fn pocl_has_no_shuffles() {
        let pocl = "cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics cl_khr_fp64";
        assert_eq!(choose(pocl, &[]), None);
    }

    #[test]
    fn sizes_are_read_as_size_t() {
        let bytes: Vec<u8> = [16usize, 32].iter().flat_map(|s| s.to_ne_bytes()).collect();
        assert_eq!(sizes_of(&bytes), vec![16, 32]);
    }
}
