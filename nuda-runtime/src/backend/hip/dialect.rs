//! The HIP dialect (layer 1, the HIP backend): a program as hiprtc compiles it for an AMD
//! GPU. The marks are filled as the C++ dialects fill them (`backend/c/cxx.rs`, shared with
//! CUDA); this file gives what is HIP's own: the prologue before the shared header (warp
//! shuffles within 32 lanes, texture and surface objects), clang's pragma that makes the
//! prelude's and the macros' functions `__host__ __device__` (NVRTC's
//! `--device-as-default-execution-space`), and the prelude's parts (`offsetof`, unrolling
//! left to LLVM, a scan tile's unguarded full rounds, 128-bit staged copies, launch bounds
//! without CUDA's blocks-per-SM).
//!
//! The reduction trees' and scans' warp steps are written for 32 lanes. An AMD wavefront
//! has 64 lanes on CDNA (gfx9) and 32 on RDNA: HIP's shuffles take a width, and with 32 they
//! work within each half of a 64-lane wavefront as CUDA's do within a warp.

use crate::backend::c::cxx;
use crate::backend::c::dialect::{Dialect, KernelPlan, PreludeParts, Rendered};
use crate::backend::c::prelude::CXX_IMAGES;
use nuda_abi::dialect::Mark;

/// HIP C++, as hiprtc compiles it.
pub(crate) struct HipCxx;

/// The HIP dialect.
pub(crate) static HIP_CXX: HipCxx = HipCxx;

/// What HIP spells its own way, before the shared header.
const PROLOGUE: &str = "\
// HIP's spellings of what the C++ dialects' header leaves to each (backend/hip/dialect.rs).
#define NU_SHFL_DOWN_RAW(x, h) __shfl_down(x, h, 32)
#define NU_SHFL_UP_RAW(x, h) __shfl_up(x, h, 32)
#define NU_SHFL_IDX_RAW(x, h) __shfl(x, h, 32)
typedef hipTextureObject_t nu_texture_object;
typedef hipSurfaceObject_t nu_surface_object;
#define NU_HAS_ULONG
#define NU_ATOMIC_MIN_S64(p, v) nu_cas_minmax_s64<false>((long long*)(p), (long long)(v))
#define NU_ATOMIC_MAX_S64(p, v) nu_cas_minmax_s64<true>((long long*)(p), (long long)(v))
#pragma clang force_cuda_host_device begin
";

/// Closes the prologue's pragma.
const EPILOGUE: &str = "#pragma clang force_cuda_host_device end\n";

static PRELUDE: PreludeParts = PreludeParts {
    opencl: false,
    offsetof: "#define NU_OFFSETOF(T, f) __builtin_offsetof(T, f)\n",
    // LLVM unrolls what it finds worth it, as for OpenCL C: told to unroll a staged slice
    // fully, it issued every read of the slice first, and an sgemm tile of 64 x 64 took
    // 371 VGPRs (one wave per SIMD) where clang's build of the OpenCL C took 70 (seven).
    unroll: "#define NU_UNROLL\n",
    rows: "#define NU_PRED_ROWS 0\n",
    copy4: "#define NU_COPY4(d, s) nu_copy4((d), (s))\n",
    shfl: "#define NU_SHFL 1\n#define NU_WARPS\n#define NU_WARPED 1\n",
    // HIP's second bound is a count of waves per execution unit, not CUDA's blocks per SM:
    // the block's size alone.
    // Without a bound LLVM budgets for 1,024 work-items: 128 VGPRs, and the register blocks
    // spilled (`dmine(8, 1), vector(16)`: 58-535 VGPRs) where a group of 256 leaves 512.
    group: "#define NU_GROUP(x, y, z) __launch_bounds__((x) * (y) * (z))\n#define NU_BOUNDS(t) __launch_bounds__(t)\n#define NU_BOUNDS_WARPS(t, w) __launch_bounds__(t)\n",
    // A packed look-back's words at agent scope (`__hip_atomic_*`): the GNU builtins' system
    // scope asks gfx940 for coherence with the host on every poll.
    poll: "__device__ inline uint nu_poll(volatile uint* p) { return __atomic_load_n((uint*)p, __ATOMIC_RELAXED); }\n\
           __device__ inline uint nu_poll_acq(volatile uint* p) { return __atomic_load_n((uint*)p, __ATOMIC_ACQUIRE); }\n\
           __device__ inline void nu_flag_rel(volatile uint* p, uint v) { __atomic_exchange_n((uint*)p, v, __ATOMIC_RELEASE); }\n\
           #define NU_PACKED 1\n\
           __device__ inline ulong nu_poll64(volatile ulong* p) { return __hip_atomic_load((ulong*)p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }\n\
           __device__ inline void nu_pub64(volatile ulong* p, ulong v) { __hip_atomic_store((ulong*)p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }\n",
    images: CXX_IMAGES,
};

impl Dialect for HipCxx {
    fn mark(&self, m: &Mark<'_>, k: &KernelPlan) -> String {
        cxx::mark(m, k)
    }

    fn prelude(&self) -> &PreludeParts {
        &PRELUDE
    }

    fn bswap(&self, _t: &str, _bytes: u32) -> String {
        "nu_bswap(x)".into()
    }
}

/// The whole program in HIP C++: the prologue, the shared header, then `prelude` (nuda's,
/// in OpenCL C) and `source`, marked where the macros did not mark it, with the marks filled.
pub(crate) fn translate(prelude: &str, source: &str) -> Rendered {
    cxx::program(&HIP_CXX, [PROLOGUE, EPILOGUE], prelude, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hip_shuffles_within_32_lanes_and_kernels_are_cxx() {
        let t = translate(
            "",
            "kernel void f(global float* a, local float* t) { t[0] = a[0]; }\n",
        );
        assert!(t.text.contains("__shfl_down(x, h, 32)"), "{}", t.text);
        assert!(
            t.text
                .contains("extern \"C\" __global__ void f(float* a, uint t__nu_off) {"),
            "{}",
            t.text
        );
        assert!(t.moved.is_empty());
    }
}
