//! Wide vector units for the native engine's kernels (layer 1, backends). One binary runs
//! everywhere, so the crate is built for the baseline x86-64 (SSE2: four f32 lanes, no FMA),
//! while the CPUs it runs on mostly have AVX2 and FMA (eight lanes). A kernel's segments run
//! through `run`, which enters a function compiled for AVX2 and FMA when the CPU has them.
//! LLVM may inline a function into one with more target features, so the generated kernel
//! closure, called from there, is compiled for the wider unit as well; where LLVM does not
//! inline it, it runs as built.
//!
//! The results do not change: the x86 vector instructions round every add, multiply, divide
//! and square root as the scalar SSE ones do, and Rust never fuses a multiply and an add
//! unless the code calls `mul_add`, which is exact (fused) on every path.

/// Runs `f`, compiled for AVX2 and FMA where this CPU has them.
#[inline(always)]
pub fn run<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: `run_avx2` needs AVX2 and FMA, and this CPU has both (detected above).
        return unsafe { run_avx2(f) };
    }
    f()
}

/// Whether the CPU has AVX2 and FMA; the standard library caches the detection.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
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
