//! sgemm and dgemm, C = AᵀB, the NUDA way: one loop nest, and the annotations that speed it
//! up. Each variant is one function; the bench counts their lines.

#![allow(dead_code)]

use nuda::prelude::*;

/// The matrices of one product.
pub struct Gemm<T: nuda::Element> {
    /// Order of the square matrices.
    pub n: usize,
    /// A, read transposed.
    pub a: NuArray2<T>,
    /// B.
    pub b: NuArray2<T>,
    /// C = AᵀB.
    pub c: NuArray2<T>,
}

/// Floating-point operations of one product.
pub fn flops(n: usize) -> f64 {
    2.0 * (n as f64).powi(3)
}

macro_rules! gemm {
    ($t:ident, $zero:literal, $ti:tt, $depth:tt, $rows:tt) => {
        /// The variants of one element type.
        pub mod $t {
            use super::*;

            /// The unannotated loop nest: one work-item per element of C.
            pub fn base(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                }))
            }

            /// Each work-item computes a 2x2 block: 4 accumulators.
            pub fn dmine22(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(2, 2); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// Each work-item computes a 4x4 block: 16 accumulators, each load used 4 times.
            pub fn dmine44(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(4, 4); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// Each work-item computes a 4x8 block: 32 accumulators, eight consecutive columns
            /// of B per row of A (natively 1.7x the 4x4 block on a 2-core x86-64).
            pub fn dmine48(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(4, 8); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// Each work-item computes an 8x8 tile as four jammed 4x4 blocks.
            pub fn tilem_dmine(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(tilem(8, 8), dmine(4, 4); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// A 4x4 block as four rows of one 4-lane vector each: the float4 peer's schedule,
            /// written as the base loop plus annotations.
            pub fn vector4(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(4, 1), vector(4); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// An 8x4 block: eight rows of one 4-lane vector.
            pub fn vector84(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(8, 1), vector(4); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// An 8x8 block: eight rows of one 8-lane vector.
            pub fn vector88(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// An 8x16 block: eight rows of one 16-lane vector.
            pub fn vector816(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(8, 1), vector(16); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// The 8x16 block with fused multiply-adds, as `mul_add` writes them (Rust never
            /// fuses `s += a * b`): half the instructions per step, one rounding per step
            /// instead of two, on every engine.
            pub fn vector816_fma(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(8, 1), vector(16); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                    c[(i, j)] = s;
                })))
            }

            /// A 4x8 block: four rows of one 8-lane vector.
            pub fn vector8(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(4, 1), vector(8); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// 16x16 tiles of C, one work-group each; A and B staged in 16-deep slices.
            pub fn staged(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(tilem(16, 16), stage(a, b, k: 16); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// myGEMM's scheme as annotations: 64x64 tiles of C per work-group of 16x16, A and
            /// B staged 16 rows of k at a time, a 4x4 block of C per work-item.
            pub fn staged_blocks(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(tilem(64, 64), stage(a, b, k: 16), dmine(4, 4); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// The 2D-blocktiling kernel as annotations: 64x64 tiles of C per work-group of
            /// 16x16, A and B staged 16 rows of k at a time, and per work-item four rows of a
            /// 4-lane vector, read from the copy of B by vector loads.
            pub fn staged_vector(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(tilem(64, 64), stage(a, b, k: 16), dmine(4, 1), vector(4); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// Its larger sibling: 128x128 tiles, 8 rows of k staged, an 8x8 block per
            /// work-item (eight rows of one 8-lane vector).
            pub fn staged_vector8(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(tilem(128, 128), stage(a, b, k: 8), dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// The chain for CPUs: on the native engine `stage` packs each tile's rows of A and
            /// columns of B into per-thread panels, as BLIS does, and each work-item's 8 x 16
            /// block (eight rows of one 16-lane vector) walks them; on a GPU it is a staged
            /// chain like the others.
            pub fn staged_cpu(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(tilem(128, 256), stage(a, b, k: 8), dmine(8, 1), vector(16); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// The chain for GPUs: 128x128 tiles with an 8x8 block per work-item in f32 (64x128
            /// and 4x8 in f64, for registers), slices of k double-buffered in local memory (16
            /// deep in f32, 8 in f64), and fused multiply-adds, as `mul_add` writes them (one
            /// FFMA where `s += a * b` is an FMUL and an FADD, as Rust never fuses). The static
            /// lab's test holds the f32 chain to no spills, 128-bit shared loads and at least
            /// 75% FFMA in its hottest loop (`tests/static_lab.rs`).
            pub fn gpu(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(tilem($ti, 128), stage(a, b, k: $depth, buffers: 2), dmine($rows, 1), vector(8); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                    c[(i, j)] = s;
                })))
            }

            /// The GPU chain's shape tuned per device: 64 x 128 tiles with 4 x 8 blocks or
            /// 128 x 128 with 8 x 8 (the tile must make the 16 x 16 work-group, so the other
            /// combinations are left out), slices 8 or 16 deep. A search times them in the
            /// order the static lab ranks them for an H100 or H200 (`nuda-runtime`'s
            /// `tune/defaults.json`), and where none is stored, runs the lab's best there.
            pub fn gpu_tuned(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(tilem(tune(64, 128), 128), stage(a, b, k: tune(8, 16), buffers: 2), dmine(tune(4, 8), 1), vector(8); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                    c[(i, j)] = s;
                })))
            }

            /// The register block and vector width tuned per device (`--tune`).
            pub fn tuned(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; annot!(dmine(tune(4, 8), 1), vector(tune(4, 8, 16)); nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                    c[(i, j)] = s;
                })))
            }

            /// The tuned variant's first candidate, whatever is stored or asked.
            pub fn untuned(g: &mut Gemm<$t>) -> Result<()> {
                nuda::with_tune_mode(nuda::TuneMode::Off, || tuned(g))
            }

            /// The k loop unrolled by 4, one accumulator: no reuse, no extra parallelism.
            pub fn unroll4(g: &mut Gemm<$t>) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, &mut g.c);
                nuwork!(16, 16; nfor!((i, j) in (n, n) {
                    let mut s = $zero;
                    annot!(unroll(4); nfor!(k in n { s += a[(k, i)] * b[(k, j)]; }));
                    c[(i, j)] = s;
                }))
            }

            /// The best variant split over devices (NUDA's `nudevs`): each computes its block
            /// of rows of C, on its own host thread; the blocks merge on the host.
            pub fn split(g: &mut Gemm<$t>, parts: &[Part]) -> Result<()> {
                let (n, a, b, c) = (g.n, &g.a, &g.b, g.c.as_shared());
                nuda::nudevs(parts.iter().map(|p| p.device), |d| {
                    let (lo, hi) = part_of(parts, d);
                    nuwork!(16, 16; annot!(tilem(8, 8), dmine(4, 4); nfor!((i, j) in (lo..hi, n) {
                        let mut s = $zero;
                        nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                        c[(i, j)] = s;
                    })))
                })?;
                // Timed to the merge: C complete on the host, as with one device.
                g.c.try_as_slice().map(drop)
            }

            /// The variants, base first.
            pub const VARIANTS: &[Variant<Gemm<$t>>] = &[
                Variant { name: "base", function: "base", run: base },
                Variant { name: "dmine(2, 2)", function: "dmine22", run: dmine22 },
                Variant { name: "dmine(4, 4)", function: "dmine44", run: dmine44 },
                Variant { name: "dmine(4, 8)", function: "dmine48", run: dmine48 },
                Variant { name: "tilem(8, 8), dmine(4, 4)", function: "tilem_dmine", run: tilem_dmine },
                Variant { name: "unroll(4) on k", function: "unroll4", run: unroll4 },
                Variant { name: "dmine(4, 1), vector(4)", function: "vector4", run: vector4 },
                Variant { name: "dmine(8, 1), vector(4)", function: "vector84", run: vector84 },
                Variant { name: "dmine(4, 1), vector(8)", function: "vector8", run: vector8 },
                Variant { name: "dmine(8, 1), vector(8)", function: "vector88", run: vector88 },
                Variant { name: "dmine(8, 1), vector(16)", function: "vector816", run: vector816 },
                Variant { name: "dmine(8, 1), vector(16); mul_add", function: "vector816_fma", run: vector816_fma },
                Variant { name: "tilem(16, 16), stage(a, b, k: 16)", function: "staged", run: staged },
                Variant { name: "tilem(64, 64), stage(a, b, k: 16), dmine(4, 4)", function: "staged_blocks", run: staged_blocks },
                Variant { name: "tilem(64, 64), stage(a, b, k: 16), dmine(4, 1), vector(4)", function: "staged_vector", run: staged_vector },
                Variant { name: "tilem(128, 128), stage(a, b, k: 8), dmine(8, 1), vector(8)", function: "staged_vector8", run: staged_vector8 },
                Variant { name: "tilem(128, 256), stage(a, b, k: 8), dmine(8, 1), vector(16)", function: "staged_cpu", run: staged_cpu },
                Variant { name: concat!("tilem(", stringify!($ti), ", 128), stage(a, b, k: ", stringify!($depth), ", buffers: 2), dmine(", stringify!($rows), ", 1), vector(8); mul_add"), function: "gpu", run: gpu },
                Variant { name: "tilem(tune(64, 128), 128), stage(a, b, k: tune(8, 16), buffers: 2), dmine(tune(4, 8), 1), vector(8); mul_add tuned", function: "gpu_tuned", run: gpu_tuned },
                Variant { name: "dmine(tune(4, 8), 1), vector(tune(4, 8, 16)) untuned", function: "tuned", run: untuned },
                Variant { name: "dmine(tune(4, 8), 1), vector(tune(4, 8, 16)) tuned", function: "tuned", run: tuned },
            ];

            /// Random-looking inputs, exact in binary so results compare tightly.
            pub fn setup(n: usize) -> Gemm<$t> {
                let a = NuArray2::<$t>::from_fn((n, n), |(i, j)| ((i * 7 + j * 3) % 17) as $t * 0.125);
                let b = NuArray2::<$t>::from_fn((n, n), |(i, j)| ((i * 5 + j) % 13) as $t * 0.25 - 1.0);
                Gemm { n, a, b, c: NuArray2::new((n, n)) }
            }

            /// How a product is checked: C poisoned with NaN, then compared.
            pub const CHECK: Check<Gemm<$t>> = Check { clear: |g| g.c.fill(<$t>::NAN), verify };

            /// Checks C against a plain Rust product on `samples` rows (all when `n` is small).
            pub fn verify(g: &Gemm<$t>) -> std::result::Result<(), String> {
                let n = g.n;
                let (a, b, c) = (g.a.as_slice(), g.b.as_slice(), g.c.as_slice());
                let rows: Vec<usize> = if n <= 128 { (0..n).collect() } else { (0..n).step_by(n / 61 + 1).collect() };
                for i in rows {
                    for j in 0..n {
                        let want: f64 = (0..n).map(|k| a[k * n + i] as f64 * b[k * n + j] as f64).sum();
                        let got = c[i * n + j] as f64;
                        if !close(got, want, 1e-4) {
                            return Err(format!("c[({i}, {j})] = {got}, want {want}"));
                        }
                    }
                }
                Ok(())
            }
        }
    };
}

gemm!(f32, 0.0f32, 128, 16, 8);
// f64: 64 x 128 tiles and a 4 x 8 block (an 8 x 8 block of doubles takes 218 registers, one
// block of 8 warps an SM; this one 112, two blocks of 8), slices 8 deep (25 KiB of shared memory).
gemm!(f64, 0.0f64, 64, 8, 4);

/// The hand-written OpenCL C peers of `dmine(4, 4)`, so the bench measures what the
/// translation costs. Work-item (p, q) computes the 4x4 block of C at rows 4p.., columns 4q..;
/// n must be a multiple of 4. `sgemm44` does exactly what the annotation does: 16 scalar
/// accumulators, each load used four times. `sgemm44v` does it with `float4` loads and
/// arithmetic, which nuda cannot express yet (vector types): the gap between the two is what
/// vector types would buy.
// SAFETY: `hand` launches them only on square n x n arrays with n a multiple of 4, one 4x4
// block per work-item, and the kernels return for blocks past n.
pub static HAND_SGEMM: KernelSource = unsafe {
    KernelSource::new(
        "#define ROW(r) float s##r##0 = 0.0f, s##r##1 = 0.0f, s##r##2 = 0.0f, s##r##3 = 0.0f;
     #define MAC(r) { float x = a[k * n + i + r]; \\
         s##r##0 += x * y0; s##r##1 += x * y1; s##r##2 += x * y2; s##r##3 += x * y3; }
     #define STORE(r) c[(i + r) * n + j] = s##r##0; c[(i + r) * n + j + 1] = s##r##1; \\
         c[(i + r) * n + j + 2] = s##r##2; c[(i + r) * n + j + 3] = s##r##3;
     kernel void sgemm44(global float* restrict c, nu_idx c0, nu_idx c1,
                         global const float* restrict a, nu_idx a0, nu_idx a1,
                         global const float* restrict b, nu_idx b0, nu_idx b1) {
         nu_idx n = a1, i = 4 * get_global_id(0), j = 4 * get_global_id(1);
         if (i >= n || j >= n) return;
         ROW(0) ROW(1) ROW(2) ROW(3)
         for (nu_idx k = 0; k < n; k++) {
             float y0 = b[k * n + j], y1 = b[k * n + j + 1], y2 = b[k * n + j + 2],
                   y3 = b[k * n + j + 3];
             MAC(0) MAC(1) MAC(2) MAC(3)
         }
         STORE(0) STORE(1) STORE(2) STORE(3)
     }
     kernel void sgemm44v(global float* restrict c, nu_idx c0, nu_idx c1,
                          global const float* restrict a, nu_idx a0, nu_idx a1,
                          global const float* restrict b, nu_idx b0, nu_idx b1) {
         nu_idx n = a1, i = 4 * get_global_id(0), j = 4 * get_global_id(1);
         if (i >= n || j >= n) return;
         float4 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
         for (nu_idx k = 0; k < n; k++) {
             float4 x = vload4(0, a + k * n + i), y = vload4(0, b + k * n + j);
             s0 += x.x * y;
             s1 += x.y * y;
             s2 += x.z * y;
             s3 += x.w * y;
         }
         vstore4(s0, 0, c + (i + 0) * n + j);
         vstore4(s1, 0, c + (i + 1) * n + j);
         vstore4(s2, 0, c + (i + 2) * n + j);
         vstore4(s3, 0, c + (i + 3) * n + j);
     }",
    )
};

/// The CLBlast/myGEMM-class peer: a work-group of 16x16 work-items computes a 64x64 tile of C;
/// the group stages 16-deep slices of A and B in local memory, each work-item loading one
/// `float4` of each (coalesced: neighbouring work-items, neighbouring addresses), and each
/// work-item keeps a 4x4 block of C in four `float4` registers. n must be a multiple of 64.
// SAFETY: `hand_tiled` launches it only on square n x n arrays with n a multiple of 64, over
// (n/4) x (n/4) work-items in 16x16 groups: every global index is below n*n, every local one
// below 16x16 float4s.
pub static TILED_SGEMM: KernelSource = unsafe {
    KernelSource::new(
        "#define TS 64
     #define TK 16
     kernel void sgemm_tiled(global float* restrict c, nu_idx c0, nu_idx c1,
                             global const float* restrict a, nu_idx a0, nu_idx a1,
                             global const float* restrict b, nu_idx b0, nu_idx b1) {
         local float4 as[TK][TS / 4], bs[TK][TS / 4];
         nu_idx n = a1, i0 = get_group_id(0) * TS, j0 = get_group_id(1) * TS;
         int tx = get_local_id(0), ty = get_local_id(1), l = ty * 16 + tx;
         int lk = l / 16, lc = l % 16;
         float4 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
         for (nu_idx k0 = 0; k0 < n; k0 += TK) {
             as[lk][lc] = vload4(0, a + (k0 + lk) * n + i0 + 4 * lc);
             bs[lk][lc] = vload4(0, b + (k0 + lk) * n + j0 + 4 * lc);
             barrier(CLK_LOCAL_MEM_FENCE);
             for (int k = 0; k < TK; k++) {
                 float4 x = as[k][tx], y = bs[k][ty];
                 s0 += x.x * y;
                 s1 += x.y * y;
                 s2 += x.z * y;
                 s3 += x.w * y;
             }
             barrier(CLK_LOCAL_MEM_FENCE);
         }
         nu_idx i = i0 + 4 * tx, j = j0 + 4 * ty;
         vstore4(s0, 0, c + (i + 0) * n + j);
         vstore4(s1, 0, c + (i + 1) * n + j);
         vstore4(s2, 0, c + (i + 2) * n + j);
         vstore4(s3, 0, c + (i + 3) * n + j);
     }",
    )
};

/// The register-blocked peer of `dmine(8, 1), vector(16)`: work-item (p, q) computes the 8x16
/// block of C at rows 8p.., columns 16q.., in eight `float16` registers, from one `float8` of
/// A and one `float16` of B per step of k. n must be a multiple of 256 (16x16 groups).
// SAFETY: `hand_sgemm_block` launches it only on square n x n arrays with n a multiple of 256,
// over (n/8) x (n/16) work-items: every block lies inside C, every load inside A and B.
pub static BLOCK_SGEMM: KernelSource = unsafe {
    KernelSource::new(
        "#define MAC(r) s##r += x.s##r * y;
     #define STORE(r) vstore16(s##r, 0, c + (i + r) * n + j);
     kernel void sgemm816v(global float* restrict c, nu_idx c0, nu_idx c1,
                           global const float* restrict a, nu_idx a0, nu_idx a1,
                           global const float* restrict b, nu_idx b0, nu_idx b1) {
         nu_idx n = a1, i = 8 * get_global_id(0), j = 16 * get_global_id(1);
         if (i >= n || j >= n) return;
         float16 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f, s4 = 0.0f, s5 = 0.0f,
                 s6 = 0.0f, s7 = 0.0f;
         for (nu_idx k = 0; k < n; k++) {
             float8 x = vload8(0, a + k * n + i);
             float16 y = vload16(0, b + k * n + j);
             MAC(0) MAC(1) MAC(2) MAC(3) MAC(4) MAC(5) MAC(6) MAC(7)
         }
         STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7)
     }",
    )
};

/// Runs the 8x16 `float16` peer on the current OpenCL device.
pub fn hand_sgemm_block(g: &mut Gemm<f32>) -> Result<()> {
    // Its blocks and groups would reach past n otherwise (see BLOCK_SGEMM).
    check_multiple(g.n, "sgemm816v", 256)?;
    launch(g, &BLOCK_SGEMM, "sgemm816v", [g.n / 8, g.n / 16])
}

/// Lines of the 8x16 `float16` peer, for the bench's table.
pub fn block_lines() -> usize {
    BLOCK_SGEMM.source.trim().lines().count()
}

/// Runs the tiled peer on the current OpenCL device.
pub fn hand_sgemm_tiled(g: &mut Gemm<f32>) -> Result<()> {
    // Its 64x64 tiles would read and write past n otherwise (see TILED_SGEMM).
    hand(g, &TILED_SGEMM, "sgemm_tiled", 64)
}

/// Lines of the tiled peer, for the bench's table.
pub fn tiled_lines() -> usize {
    TILED_SGEMM.source.trim().lines().count()
}

/// Lines of the scalar (`float4: false`, its macros included) or the `float4` hand-written
/// kernel, for the bench's table.
pub fn hand_lines(float4: bool) -> usize {
    let src = HAND_SGEMM.source;
    let split = src.find("kernel void sgemm44v(").unwrap_or(src.len());
    let part = if float4 { &src[split..] } else { &src[..split] };
    part.trim().lines().count()
}

/// Runs the scalar hand-written peer on the current OpenCL device.
pub fn hand_sgemm(g: &mut Gemm<f32>) -> Result<()> {
    // The kernels' 4x4 blocks would read and write past n otherwise (see HAND_SGEMM).
    hand(g, &HAND_SGEMM, "sgemm44", 4)
}

/// Runs the `float4` hand-written peer on the current OpenCL device.
pub fn hand_sgemm_float4(g: &mut Gemm<f32>) -> Result<()> {
    hand(g, &HAND_SGEMM, "sgemm44v", 4)
}

/// Launches `kernel` of `src` over one 4x4 block of C per work-item in 16x16 groups, after
/// checking that n is a multiple of `multiple`, as the kernel's SAFETY comment requires.
fn hand(
    g: &mut Gemm<f32>,
    src: &'static KernelSource,
    kernel: &str,
    multiple: usize,
) -> Result<()> {
    check_multiple(g.n, kernel, multiple)?;
    launch(g, src, kernel, [g.n / 4, g.n / 4])
}

/// An error unless `n` is a multiple of `multiple`, which `kernel`'s blocks need.
fn check_multiple(n: usize, kernel: &str, multiple: usize) -> Result<()> {
    if !n.is_multiple_of(multiple) {
        return Err(Error::DimsMismatch {
            what: format!("the hand-written `{kernel}`"),
            expected: format!("n a multiple of {multiple}"),
            found: format!("n = {n}"),
        });
    }
    Ok(())
}

/// Runs `kernel` of `src` over `global` work-items in 16x16 groups.
fn launch(
    g: &mut Gemm<f32>,
    src: &'static KernelSource,
    kernel: &str,
    global: [usize; 2],
) -> Result<()> {
    Launch::new(src, kernel)
        .global(global)
        .local([16, 16])
        .array_mut(&mut g.c)
        .array(&g.a)
        .array(&g.b)
        .run()
        .map(drop)
}

use super::problem::{close, Check, Variant};
use super::split::{part_of, Part};
