//! The CUDA dialect (layer 1, the CUDA backend): a program as NVRTC compiles it. The marks
//! the macros wrote, and those `backend/c/marker.rs` finds in the prelude and in
//! hand-written kernels, are filled as the C++ dialects fill them (`backend/c/cxx.rs`);
//! this file gives what is CUDA's own: the prologue before the shared header (warp shuffles
//! with a full mask, texture and surface objects), the prelude's parts (`offsetof` in EDG's
//! form, unrolling, a scan tile's predicated rows, 128-bit staged copies, shuffles in
//! reduction trees, launch bounds), byte
//! swaps by `__byte_perm`, and the 48 KiB a kernel may declare statically: past it a
//! kernel's local arrays move into its dynamic buffer (`KernelPlan::moved`), and the launch
//! learns how many bytes they take from `Rendered::moved`.

use crate::backend::c::cxx;
use crate::backend::c::dialect::{Dialect, KernelPlan, PreludeParts, Rendered};
use crate::backend::c::prelude::CXX_IMAGES;
use nuda_abi::dialect::Mark;

/// CUDA C++, as NVRTC compiles it.
pub(crate) struct CudaCxx;

/// The CUDA dialect.
pub(crate) static CUDA_CXX: CudaCxx = CudaCxx;

/// The static shared memory a CUDA kernel may declare; an sm_90 block may use 227 KiB once
/// the launch opts in to dynamic shared memory.
pub(crate) const STATIC_LIMIT: usize = 48 << 10;

/// What CUDA spells its own way, before the shared header.
const PROLOGUE: &str = "\
// CUDA's spellings of what the C++ dialects' header leaves to each (backend/cuda/dialect.rs).
#define NU_SHFL_DOWN_RAW(x, h) __shfl_down_sync(0xffffffffu, x, h)
#define NU_SHFL_UP_RAW(x, h) __shfl_up_sync(0xffffffffu, x, h)
#define NU_SHFL_IDX_RAW(x, h) __shfl_sync(0xffffffffu, x, h)
typedef cudaTextureObject_t nu_texture_object;
typedef cudaSurfaceObject_t nu_surface_object;
";

static PRELUDE: PreludeParts = PreludeParts {
    opencl: false,
    // NVRTC has no `__builtin_offsetof`; EDG's own form is a constant expression.
    offsetof: "#define NU_OFFSETOF(T, f) ((size_t)__INTADDR__(&(((T*)0)->f)))\n",
    unroll: "#define NU_UNROLL _Pragma(\"unroll\")\n",
    rows: crate::backend::c::dialect::PREDICATED_ROWS,
    // 128-bit loads where the source is aligned (`nu_copy4`, the header's).
    copy4: "#define NU_COPY4(d, s) nu_copy4((d), (s))\n",
    shfl: "#define NU_SHFL 1\n#define NU_WARPS\n#define NU_WARPED 1\n",
    // Enough blocks an SM for 16 warps (512 threads), which hide an FMA's latency: at 256
    // threads, 128 registers each, so that a GEMM's register block does not halve its warps
    // for a few registers (the static lab's dgemm: 130 without). At most 16 blocks, which
    // every architecture since sm_50 holds (ptxas warns past what an SM can hold: a staged
    // tile of 2 work-items asked for 256).
    // `NU_BOUNDS` only past 256 work-items: any kernel fits a group of 256 (255 registers a
    // thread in 64 Ki), and a bound there moves ptxas's choices both ways (session 40's
    // static table: the 8 x 8 sgemm tile of `dmine(4, 4)` fell from 27% to 9% of its FMA
    // bound; a bound of 256 changed the SASS of 45 of 93 model-problem programs). Past 256
    // an unbounded kernel of over 64 or 128 registers could not launch. A bound of 0 asks
    // for none: NVRTC writes no `.maxntid` (checked on NVRTC 12).
    // `NU_BOUNDS_WARPS` asks for the blocks that make `w` warps (at most 16 blocks): ptxas
    // then uses the registers that leaves, where its own choice may be fewer, with spills.
    // At most the warps every SM since sm_50 holds (48; Turing's sm_75 32), since past them
    // ptxas warns and ignores the request.
    group: "#define NU_GROUP(x, y, z) __launch_bounds__((x) * (y) * (z), NU_MIN_BLOCKS((x) * (y) * (z)))\n#define NU_MIN_BLOCKS(t) ((t) > 512 ? 1 : (511 + (t)) / (t) > 16 ? 16 : (511 + (t)) / (t))\n#define NU_BOUNDS(t) __launch_bounds__((t) > 256 ? (t) : 0)\n#define NU_BOUNDS_WARPS(t, w) __launch_bounds__(t, NU_BLOCKS_FOR(t, w))\n#define NU_BLOCKS_FOR(t, w) (NU_WARPS_SM(w) * 32 <= (t) ? 1 : NU_WARPS_SM(w) * 32 / (t) > 16 ? 16 : NU_WARPS_SM(w) * 32 / (t))\n#if __CUDA_ARCH__ == 750\n#define NU_WARPS_SM(w) ((w) > 32 ? 32 : (w))\n#else\n#define NU_WARPS_SM(w) ((w) > 48 ? 48 : (w))\n#endif\n",
    // PTX's relaxed and acquire loads and release exchange at GPU scope. The acquire load is
    // a strong load and an L1 invalidation; `__threadfence()` after a relaxed one added a
    // `MEMBAR.SC.GPU` for each of a window's 256 pollers. A packed look-back's words take
    // relaxed 64-bit loads and stores: a word is read whole, so nothing needs ordering. They
    // name the global space (the words are a kernel argument's, cuMemAlloc's memory), with
    // the address converted to it: `LDG`, not a generic `LD` that first asks where its
    // address points.
    poll: "__device__ inline uint nu_poll(volatile uint* p) { uint v; asm volatile(\"ld.relaxed.gpu.u32 %0, [%1];\" : \"=r\"(v) : \"l\"(p) : \"memory\"); return v; }\n\
           __device__ inline uint nu_poll_acq(volatile uint* p) { uint v; asm volatile(\"ld.acquire.gpu.u32 %0, [%1];\" : \"=r\"(v) : \"l\"(p) : \"memory\"); return v; }\n\
           __device__ inline void nu_flag_rel(volatile uint* p, uint v) { uint o; asm volatile(\"atom.release.gpu.exch.b32 %0, [%1], %2;\" : \"=r\"(o) : \"l\"(p), \"r\"(v) : \"memory\"); }\n\
           #define NU_PACKED 1\n\
           __device__ inline ulong nu_poll64(volatile ulong* p) { ulong v; asm volatile(\"ld.relaxed.gpu.global.u64 %0, [%1];\" : \"=l\"(v) : \"l\"(__cvta_generic_to_global((const void*)p)) : \"memory\"); return v; }\n\
           __device__ inline void nu_pub64(volatile ulong* p, ulong v) { asm volatile(\"st.relaxed.gpu.global.u64 [%0], %1;\" :: \"l\"(__cvta_generic_to_global((const void*)p)), \"l\"(v) : \"memory\"); }\n",
    images: CXX_IMAGES,
};

impl Dialect for CudaCxx {
    fn mark(&self, m: &Mark<'_>, k: &KernelPlan) -> String {
        cxx::mark(m, k)
    }

    fn static_shared_limit(&self) -> Option<usize> {
        Some(STATIC_LIMIT)
    }

    fn prelude(&self) -> &PreludeParts {
        &PRELUDE
    }

    fn bswap(&self, _t: &str, _bytes: u32) -> String {
        "nu_bswap(x)".into()
    }
}

/// The whole program in CUDA C++: the prologue, the shared header, then `prelude` (nuda's,
/// in OpenCL C) and `source`, marked where the macros did not mark it, with the marks
/// filled.
pub(crate) fn translate(prelude: &str, source: &str) -> Rendered {
    cxx::program(&CUDA_CXX, [PROLOGUE, ""], prelude, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written program in CUDA C++, without a prelude.
    fn translate_text(text: &str, _hand_written: bool) -> String {
        translate("", text).text
    }

    #[test]
    fn attributes_before_the_name_are_skipped() {
        let cu = translate_text(
            "kernel void NU_GROUP(16, 16, 1) f(global float* a, local float* t) {}\n",
            false,
        );
        assert!(
            cu.contains("__global__ void NU_GROUP(16, 16, 1) f(float* a, uint t__nu_off) {"),
            "{cu}"
        );
    }

    #[test]
    fn kernels_named_in_capitals_are_kernels() {
        let cu = translate_text(
            "kernel void SGEMM(global float* a, local float* t) {}\n",
            true,
        );
        assert!(
            cu.contains("__global__ void SGEMM(float* a, uint t__nu_off) {"),
            "{cu}"
        );
    }

    #[test]
    fn shared_arrays_past_48_kib_are_moved_and_counted() {
        let t = translate(
            "",
            "kernel void f(global float* a, local float* t) {\n    local float s[16384];\n    s[0] = a[0];\n}\n",
        );
        assert_eq!(t.moved.get("f"), Some(&65536));
        assert!(
            t.text
                .contains("extern __shared__ __align__(128) uchar nu_smem[];"),
            "{}",
            t.text
        );
        assert!(
            t.text
                .contains("    float* restrict s = (float*)(nu_smem + 0);\n    s[0] = a[0];\n}"),
            "{}",
            t.text
        );
    }

    #[test]
    fn local_parameters_become_offsets_into_one_shared_buffer() {
        let cu = translate_text("kernel void f(global float* restrict a, local float* restrict t, nu_idx n) {\n    t[0] = a[0];\n}\n", false);
        assert!(
            cu.contains(
                "extern \"C\" __global__ void f(float* restrict a, uint t__nu_off, nu_idx n) {"
            ),
            "{cu}"
        );
        assert!(
            cu.contains("float* restrict t = (float*)(nu_smem + t__nu_off);"),
            "{cu}"
        );
    }

    #[test]
    fn local_declarations_in_bodies_are_shared() {
        let cu = translate_text(
            "kernel void f(global float* a) {\n    local float tile[16];\n}\n",
            false,
        );
        assert!(
            cu.contains("    __shared__ __align__(16) float tile[16];"),
            "{cu}"
        );
    }

    #[test]
    fn hand_written_swizzles_are_calls() {
        let cu = translate_text(
            "float4 g(float4 v) { return v.zyxw + v.s1032 + v.x + 1.5f; }\n",
            true,
        );
        assert!(
            cu.contains("v.swz<2, 1, 0, 3>() + v.swz<1, 0, 3, 2>() + v.x + 1.5f"),
            "{cu}"
        );
    }

    #[test]
    fn file_scope_constants_are_device_constants_and_parameters_lose_the_word() {
        let cu = translate_text("constant float W[2] = {1.0f, 2.0f};\nkernel void f(\n    constant float* c,\n    global float* a) {}\n", true);
        assert!(cu.contains("__constant__ const float W[2]"), "{cu}");
        assert!(
            cu.contains("__global__ void f(\n    float* c,\n    float* a) {}"),
            "{cu}"
        );
    }

    #[test]
    fn underscored_qualifiers_are_kernels_too() {
        let cu = translate_text(
            "__kernel void f(__global int* a, __local int* t) {}\n",
            true,
        );
        assert!(
            cu.contains("extern \"C\" __global__ void f(int* a, uint t__nu_off) {"),
            "{cu}"
        );
    }

    #[test]
    fn indented_kernels_are_kernels() {
        let cu = translate_text("    kernel void f(global int* a) {}\n", true);
        assert!(
            cu.contains("    extern \"C\" __global__ void f(int* a) {}"),
            "{cu}"
        );
    }

    #[test]
    fn vector_literals_are_calls() {
        let cu = translate_text(
            "float4 f(float x) { return (float4)(x, 0.0f, 0.0f, 1.0f) + ((float4)(x)); }\n",
            false,
        );
        assert!(
            cu.contains("return nu_make<float4>(x, 0.0f, 0.0f, 1.0f) + (nu_make<float4>(x));"),
            "{cu}"
        );
    }

    // The fragile cases of issue 50: each was a silent wrong program under the text
    // rewriter that read OpenCL C by its layout.

    #[test]
    fn an_attribute_after_the_signature_keeps_local_parameters_offsets() {
        let cu = translate_text(
            "__kernel void f(__local float* t, __global float* a) __attribute__((reqd_work_group_size(64, 1, 1))) {\n    t[0] = a[0];\n}\n",
            true,
        );
        assert!(cu.contains("void f(uint t__nu_off, float* a)"), "{cu}");
        assert!(
            cu.contains("float* restrict t = (float*)(nu_smem + t__nu_off);"),
            "{cu}"
        );
    }

    #[test]
    fn an_attribute_before_the_qualifier_still_makes_a_kernel() {
        let cu = translate_text(
            "__attribute__((reqd_work_group_size(64, 1, 1))) __kernel void f(__local float* t) {}\n",
            true,
        );
        assert!(
            cu.contains("extern \"C\" __global__ void f(uint t__nu_off)"),
            "{cu}"
        );
    }

    #[test]
    fn local_declarations_not_starting_a_line_stay_shared() {
        let cu = translate_text(
            "kernel void f(global float* a) { local float t[16]; __local float u[16];\n    t[0] = u[0] = a[0];\n}\n",
            true,
        );
        assert!(
            cu.contains("{ __shared__ __align__(16) float t[16];"),
            "{cu}"
        );
        assert!(
            cu.contains(" __shared__ __align__(16) float u[16];"),
            "{cu}"
        );
    }

    #[test]
    fn a_local_pointer_variable_is_not_shared_storage() {
        let cu = translate_text(
            "kernel void f(local float* t) {\n    local float* p = t + 1;\n    p[0] = 1.0f;\n}\n",
            true,
        );
        assert!(cu.contains("    float* p = t + 1;"), "{cu}");
    }

    #[test]
    fn vector_literals_with_a_space_are_calls_not_broadcasts() {
        let cu = translate_text(
            "float4 f(float d) { return (float4) (1.0f, 2.0f, 3.0f, d) + ( float2 )(d, d).xyxy; }\n",
            true,
        );
        assert!(
            cu.contains("return nu_make<float4>(1.0f, 2.0f, 3.0f, d) + nu_make<float2>(d, d).swz<0, 1, 0, 1>();"),
            "{cu}"
        );
    }

    #[test]
    fn parentheses_in_comments_do_not_end_the_parameter_list() {
        let cu = translate_text(
            "kernel void f(global int* a /* (a) ) */, local int* t) {}\n",
            true,
        );
        assert!(cu.contains(", uint t__nu_off)"), "{cu}");
    }

    #[test]
    fn byte_swaps_are_the_dialects_whatever_the_variable() {
        use crate::backend::c::prelude::Prelude;
        use crate::backend::IndexType;
        let prelude = Prelude {
            index: IndexType::U32,
            images: false,
            cpu: false,
            dialect: &CUDA_CXX,
            warps: None,
            rows: None,
        };
        let (text, _) =
            prelude.for_source("nu_swap_bytes_int nu_swap_bytes_ulong nu_swap_bytes_short");
        assert!(!text.contains("as_uchar"), "{text}");
        assert!(
            text.contains("int nu_swap_bytes_int(int x) { return nu_bswap(x); }"),
            "{text}"
        );
    }

    #[test]
    fn the_prelude_of_a_generated_program_is_marked_too() {
        use nuda_abi::dialect::{Mk, Space};
        let source = format!(
            "{} void g({}uint* e) {{{}}}\n",
            Mk::kernel("g"),
            Mk::space(Space::Global),
            Mk::body()
        );
        let t = translate("float2 h(float4 v) { return v.zx; }\n", &source);
        assert!(t.text.contains("return v.swz<2, 0>();"), "{}", t.text);
        assert!(
            t.text
                .contains("extern \"C\" __global__ void g(uint* e) {}"),
            "{}",
            t.text
        );
    }

    #[test]
    fn an_opencl_work_group_attribute_bounds_the_block() {
        let cu = translate_text(
            "kernel __attribute__((reqd_work_group_size(16, 8, 1))) void f(global int* a) {}\n",
            true,
        );
        assert!(
            cu.contains(
                "extern \"C\" __global__ __launch_bounds__((16) * (8) * (1)) void f(int* a) {}"
            ),
            "{cu}"
        );
    }
}
