//! Wide vector units for the native engine's kernels (layer 1, backends). One binary runs
//! everywhere, so the crate is built for the baseline x86-64 (SSE2: four f32 lanes, no FMA),
//! while the CPUs it runs on mostly have AVX2 and FMA (eight lanes), and many AVX-512 (sixteen
//! lanes, 32 registers). A kernel's segments run through `run`, which enters a function
//! compiled for the widest of these the CPU has. LLVM may inline a function into one with more
//! target features, so the generated kernel closure, called from there, is compiled for the
//! wider unit as well. The macros mark their closures `#[inline(always)]`
//! (`macro_support::inlined`): left to LLVM's judgement, a big kernel with three callers
//! stayed out of line, built for SSE2 (sgemm's `dmine(8, 1), vector(16)` ran at 45 GFLOP/s
//! on a 2-core Zen 4 that way, and at 111 inlined into the AVX-512 path).
//!
//! The results do not change: the x86 vector instructions round every add, multiply, divide
//! and square root as the scalar SSE ones do, and Rust never fuses a multiply and an add
//! unless the code calls `mul_add`, which is exact (fused) on every path.

/// Runs `f`, compiled for AVX2 and FMA where this CPU has them.
#[inline(always)]
pub fn run<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if has_avx512() {
        // SAFETY: `run_avx512` needs these AVX-512 subsets, AVX2 and FMA, and this CPU has them
        // all (detected above).
        return unsafe { run_avx512(f) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: `run_avx2` needs AVX2 and FMA, and this CPU has both (detected above).
        return unsafe { run_avx2(f) };
    }
    f()
}

/// The vector unit `run` compiles for on this CPU, as tuning seeds name a class of CPU:
/// `x86-64-avx512`, `x86-64-avx2`, `x86-64` (SSE2), or the architecture's name elsewhere.
pub fn tier() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx512() {
            return "x86-64-avx512";
        }
        if has_avx2_fma() {
            return "x86-64-avx2";
        }
        "x86-64"
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::env::consts::ARCH
}

/// Whether the CPU has AVX2 and FMA; the standard library caches the detection.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// Whether the CPU has AVX-512's foundation with the VL, BW and DQ subsets (every AVX-512 CPU
/// since Skylake-SP and Zen 4), and AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn has_avx512() -> bool {
    has_avx2_fma()
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512dq")
}

/// `f()` in code compiled for AVX-512 (F, VL, BW, DQ), AVX2 and FMA: 32 vector registers, so
/// a `dmine(8, 1), vector(16)` block's accumulators stay in registers.
///
/// # Safety
/// The CPU must have those features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
unsafe fn run_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()` in code compiled for AVX2 and FMA.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod test {
    /// The value comes back on every path, and a float computed inside agrees bit for bit
    /// with the same computation outside.
    #[test]
    fn a_run_returns_its_value_unchanged() {
        let xs: Vec<f32> = (1..100).map(|k| k as f32 * 0.37).collect();
        let plain: Vec<f32> = xs.iter().map(|x| (x * 1.5 + 0.25).sqrt() / x).collect();
        let wide = super::run(|| {
            xs.iter()
                .map(|x| (x * 1.5 + 0.25).sqrt() / x)
                .collect::<Vec<f32>>()
        });
        assert_eq!(
            plain.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            wide.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }
}
