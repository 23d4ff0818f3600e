//! The static lab (`nuda::lab`): NVRTC and NVIDIA's disassembler judge kernels with no GPU.
//! A kernel launched on the lab device runs nothing and leaves a record of what an H100 or
//! H200 would run: its registers, spills, shared memory, occupancy and the instruction mix of
//! its hottest loop. Needs pip's nvidia-cuda-nvrtc-cu12, nvidia-cuda-cuobjdump and
//! nvidia-cuda-nvdisasm (`scripts/test` installs them); without them the lab says what is
//! missing, and under `NUDA_REQUIRE_NVRTC=1` that fails the test. AMD's compilers judge the
//! skeletons' loads in flight too, through their compile checks (`NUDA_HIP_CHECK`,
//! `NUDA_AMDGCN_CHECK`) in a child on OpenCL.

mod common;

use common::{dumped_files, dumping_child, have_opencl};
use nuda::prelude::*;

/// The lab's device index, or `None` (said on stderr) where its tools are missing.
fn lab() -> Option<usize> {
    static LAB: std::sync::OnceLock<Result<usize, String>> = std::sync::OnceLock::new();
    let found = LAB.get_or_init(|| nuda::lab::enable("sm_90").map_err(|e| e.to_string()));
    match found {
        Ok(i) => Some(*i),
        Err(e) if std::env::var("NUDA_REQUIRE_NVRTC").as_deref() == Ok("1") => {
            panic!("NUDA_REQUIRE_NVRTC=1, but the lab is missing: {e}")
        }
        Err(e) => {
            eprintln!("no static lab here: {e}");
            None
        }
    }
}

/// A dot-product-like loop of fused multiply-adds: the lab finds the loop, its FFMAs and
/// its global loads, and the occupancy its registers allow.
#[test]
fn a_kernel_on_the_lab_is_compiled_disassembled_and_recorded() {
    let Some(lab) = lab() else { return };
    nuda::with_device(lab, || -> nuda::Result<()> {
        let (n, m) = (256usize, 512usize);
        let a = NuArray2::<f32>::from_fn((n, m), |(i, j)| (i + j) as f32);
        let x = NuArray1::<f32>::from_fn(m, |j| j as f32);
        let mut y = NuArray1::<f32>::new(n);
        nuda::lab::take_records();
        nuwork!(128; nfor!(i in n {
            let mut s = 0.0f32;
            for j in 0..m {
                s = a[(i, j)].mul_add(x[j], s);
            }
            y[i] = s;
        }))?;
        let records = nuda::lab::take_records();
        assert_eq!(records.len(), 1, "{records:?}");
        let r = &records[0];
        assert!(r.origin.contains("static_lab.rs"), "{}", r.origin);
        assert_eq!(r.threads, 128);
        assert!(r.registers > 0 && r.spills == (0, 0), "{r:?}");
        assert!(
            r.inner.ffma >= 1 && r.inner.ldg.iter().sum::<u32>() >= 2,
            "{:?}",
            r.inner
        );
        assert!(
            r.occupancy.warps > 0 && r.occupancy.warps <= 64,
            "{:?}",
            r.occupancy
        );
        Ok(())
    })
    .unwrap()
    .unwrap();
}

/// CUDA's occupancy rules for sm_90, against NVIDIA's occupancy calculator's answers.
#[test]
fn occupancy_follows_cudas_rules() {
    use nuda::lab::Occupancy;
    // 256 threads of 32 registers: 8 blocks fill the 64 warps.
    assert_eq!(
        Occupancy::sm90(256, 32, 0),
        Occupancy {
            blocks: 8,
            warps: 64,
            limit: "threads"
        }
    );
    // 128 registers a thread: 16 warps of registers per SM (65,536 / (128 * 32)).
    assert_eq!(Occupancy::sm90(256, 128, 0).warps, 16);
    assert_eq!(Occupancy::sm90(256, 128, 0).limit, "registers");
    // 100 KiB of shared memory a block: two blocks per SM (228 KiB, 1 KiB reserved each).
    let o = Occupancy::sm90(128, 32, 100 << 10);
    assert_eq!((o.blocks, o.limit), (2, "shared"));
    // Tiny blocks: 32 per SM at most.
    assert_eq!(
        Occupancy::sm90(32, 16, 0),
        Occupancy {
            blocks: 32,
            warps: 32,
            limit: "blocks"
        }
    );
}

/// The sgemm chain for GPUs, as an H100/H200 runs it: 128 x 128 tiles of C a work-group,
/// an 8 x 8 block a work-item, 16-deep slices of A and B double-buffered in shared memory,
/// fused multiply-adds. Its hottest loop must spill nothing, copy the slices with 128-bit
/// global loads, read shared memory with 128-bit loads, and be at least 75% FFMA (what
/// cuBLAS-class kernels reach). The work-group's size bounds its registers (at most 128,
/// so that two groups of 256 threads fit an SM). Where AMD's checks are on, both AMD
/// compilers' builds for an MI200 spill nothing and keep 4 waves per SIMD: hiprtc, told to
/// unroll each slice fully, took 457 VGPRs (one wave).
#[test]
fn the_gpu_sgemm_chain_is_ffma_bound_with_128_bit_shared_loads() {
    let Some(lab) = lab() else { return };
    let (r, amd) = nuda::with_device(lab, || -> nuda::Result<_> {
        let n = 1024usize;
        let a = NuArray2::<f32>::from_fn((n, n), |(i, j)| (i + j) as f32);
        let b = NuArray2::<f32>::from_fn((n, n), |(i, j)| (i * j) as f32);
        let mut c = NuArray2::<f32>::new((n, n));
        nuda::lab::take_records();
        nuda::lab::take_amd_records();
        nuwork!(16, 16; annot!(tilem(128, 128), stage(a, b, k: 16, buffers: 2), dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
            c[(i, j)] = s;
        })))?;
        Ok((nuda::lab::take_records().remove(0), nuda::lab::take_amd_records()))
    })
    .unwrap()
    .unwrap();
    eprintln!("{r:?}");
    for a in amd.iter().filter(|a| a.arch == "gfx90a") {
        assert!(a.spills == (0, 0) && a.waves >= Some(4), "{a:?}");
    }
    assert_eq!(r.spills, (0, 0), "{r:?}");
    assert!(
        r.inner.lds[2] > 0,
        "no 128-bit shared loads in the hottest loop: {:?}",
        r.inner
    );
    assert!(
        r.inner.ldg[2] > 0,
        "no 128-bit global loads in the hottest loop: {:?}",
        r.inner
    );
    assert!(r.registers <= 128 && r.occupancy.warps >= 16, "{r:?}");
    assert!(
        r.inner.fma_share() >= 0.75,
        "FFMA share {:.2}: {:?}",
        r.inner.fma_share(),
        r.inner
    );
}

/// The gate above can fail: the same chain written `s += a * b` has no FFMA at all (nuda
/// compiles with contraction off, as Rust never fuses), which the lab sees.
#[test]
fn without_mul_add_the_lab_sees_no_ffma() {
    let Some(lab) = lab() else { return };
    let r = nuda::with_device(lab, || -> nuda::Result<nuda::lab::Record> {
        let n = 1024usize;
        let a = NuArray2::<f32>::new((n, n));
        let b = NuArray2::<f32>::new((n, n));
        let mut c = NuArray2::<f32>::new((n, n));
        nuda::lab::take_records();
        nuwork!(16, 16; annot!(tilem(128, 128), stage(a, b, k: 16, buffers: 2), dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        })))?;
        Ok(nuda::lab::take_records().remove(0))
    })
    .unwrap()
    .unwrap();
    assert_eq!(r.inner.ffma, 0, "{:?}", r.inner);
    assert!(
        r.inner.add_mul >= 2048 && r.inner.fma_share() < 0.75,
        "{:?}",
        r.inner
    );
}

/// sgemm's register block with no `stage` (`dmine(8, 1), vector(16)`), whose literal group of
/// 256 the kernel declares (`NU_BOUNDS`): hiprtc budgets registers for 256 work-items and
/// spills nothing for an MI200, where, budgeting for 1,024, it stopped at 128 VGPRs and
/// spilled 58 to 535 (session 38's table). sm_90 keeps its registers under 255.
#[test]
fn a_literal_group_lets_hiprtc_keep_a_register_block_unspilled() {
    let Some(lab) = lab() else { return };
    if !std::env::var("NUDA_HIP_CHECK").is_ok_and(|s| s.split(',').any(|a| a == "gfx90a")) {
        eprintln!("skipped: NUDA_HIP_CHECK does not list gfx90a");
        return;
    }
    let (r, amd) = nuda::with_device(lab, || -> nuda::Result<_> {
        let n = 512usize;
        let a = NuArray2::<f32>::from_fn((n, n), |(i, j)| (i + j) as f32);
        let b = NuArray2::<f32>::from_fn((n, n), |(i, j)| (i * j) as f32);
        let mut c = NuArray2::<f32>::new((n, n));
        nuda::lab::take_records();
        nuda::lab::take_amd_records();
        nuwork!(16, 16; annot!(dmine(8, 1), vector(16); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
            c[(i, j)] = s;
        })))?;
        Ok((
            nuda::lab::take_records().remove(0),
            nuda::lab::take_amd_records(),
        ))
    })
    .unwrap()
    .unwrap();
    let hip: Vec<_> = amd
        .iter()
        .filter(|a| (a.compiler, a.arch.as_str()) == ("hiprtc", "gfx90a"))
        .collect();
    assert!(!hip.is_empty(), "no hiprtc gfx90a record in {amd:?}");
    hip.iter()
        .for_each(|a| assert!(a.spills == (0, 0), "{a:?}"));
    assert_eq!(r.spills, (0, 0), "{r:?}");
}

/// sgemm's register block in a group of 1,024: unbounded, ptxas gives it over 64 registers a
/// thread, which 1,024 threads cannot hold (a GPU refuses the launch, and so does the lab).
/// Written as literals, the group bounds the kernel (`NU_BOUNDS`, CUDA's `__launch_bounds__`
/// past 256), and it launches; of a run-time size, the launch is an `Err` that says what to
/// do.
#[test]
fn a_literal_group_of_1024_bounds_a_cuda_kernels_registers() {
    let Some(lab) = lab() else { return };
    let run = |literal: bool| {
        nuda::with_device(lab, || -> nuda::Result<nuda::lab::Record> {
            let (n, g) = (512usize, 32usize);
            let a = NuArray2::<f32>::from_fn((n, n), |(i, j)| (i + j) as f32);
            let b = NuArray2::<f32>::from_fn((n, n), |(i, j)| (i * j) as f32);
            let mut c = NuArray2::<f32>::new((n, n));
            nuda::lab::take_records();
            match literal {
                true => nuwork!(32, 32; annot!(dmine(8, 1), vector(16); nfor!((i, j) in (n, n) {
                    let mut s = 0.0f32;
                    nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                    c[(i, j)] = s;
                })))?,
                false => nuwork!(g, g; annot!(dmine(8, 1), vector(16); nfor!((i, j) in (n, n) {
                    let mut s = 0.0f32;
                    nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                    c[(i, j)] = s;
                })))?,
            }
            Ok(nuda::lab::take_records().remove(0))
        })
        .unwrap()
    };
    let r = run(true).expect("a literal group of 1,024 was refused");
    assert_eq!(r.threads, 1024, "{r:?}");
    assert!(r.registers <= 64 && r.occupancy.blocks >= 1, "{r:?}");
    let e = run(false)
        .expect_err("a group of 1,024 of an unbounded register block launched")
        .to_string();
    assert!(
        e.contains("registers a work-item") && e.contains("integer literals"),
        "{e}"
    );
}

/// Staged slices of doubles 16 deep on 128 x 128 tiles, double-buffered, take 64 KiB of
/// shared memory, past the 48 KiB a CUDA kernel may declare: the CUDA dialect moves them into
/// the dynamic buffer, which a launch may take up to 227 KiB of. With 64 deep slices they
/// would take 256 KiB: an `Err` that says what to change, not a record, as a GPU's launch
/// would refuse them.
#[test]
fn stage_tiles_past_48_kib_are_dynamic_shared_memory_up_to_227_kib() {
    let Some(lab) = lab() else { return };
    let dgemm = |depth: usize| {
        nuda::with_device(lab, || -> nuda::Result<()> {
            let n = 256usize;
            let a = NuArray2::<f64>::new((n, n));
            let b = NuArray2::<f64>::new((n, n));
            let mut c = NuArray2::<f64>::new((n, n));
            match depth {
                16 => nuwork!(16, 16; annot!(tilem(128, 128), stage(a, b, k: 16, buffers: 2), dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
                    let mut s = 0.0f64;
                    nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                    c[(i, j)] = s;
                })))?,
                _ => nuwork!(16, 16; annot!(tilem(128, 128), stage(a, b, k: 64, buffers: 2), dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
                    let mut s = 0.0f64;
                    nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                    c[(i, j)] = s;
                })))?,
            }
            Ok(())
        })
        .unwrap()
    };
    nuda::lab::take_records();
    dgemm(16).expect("64 KiB of staged tiles are refused");
    let r = nuda::lab::take_records()
        .into_iter()
        .find(|r| r.threads == 256)
        .expect("the staged kernel's record");
    assert_eq!(r.shared, 65536, "{r:?}");
    assert!(r.occupancy.blocks <= 3, "{r:?}");
    let e = dgemm(64)
        .expect_err("256 KiB of shared memory were accepted")
        .to_string();
    assert!(e.contains("262144") && e.contains("k:"), "{e}");
}

/// A search on the lab ranks a tuned site's candidates by their static bound and keeps the
/// ranking as a seed (what `--static sm_90 --write-seeds` ships for H100s and H200s). The
/// staged chain's eight combinations are four that make its 16 x 16 work-group; the best
/// ranked runs last, and its record has the best bound.
#[test]
fn a_search_on_the_lab_ranks_candidates_by_their_static_bound() {
    let Some(lab) = lab() else { return };
    let records = nuda::with_device(lab, || -> nuda::Result<Vec<nuda::lab::Record>> {
        let n = 512usize;
        let a = NuArray2::<f32>::new((n, n));
        let b = NuArray2::<f32>::new((n, n));
        let mut c = NuArray2::<f32>::new((n, n));
        nuda::lab::take_records();
        nuda::with_tune_mode(nuda::TuneMode::Force, || {
            nuwork!(16, 16; annot!(tilem(tune(64, 128), 128), stage(a, b, k: tune(8, 16), buffers: 2), dmine(tune(4, 8), 1), vector(8); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s = a[(k, i)].mul_add(b[(k, j)], s); });
                c[(i, j)] = s;
            })))
        })?;
        Ok(nuda::lab::take_records())
    })
    .unwrap()
    .unwrap();
    let seeds = nuda::take_tune_seeds();
    let seed = seeds
        .iter()
        .find(|s| s.site.starts_with("tests/static_lab.rs:"))
        .expect("the lab's ranking");
    assert_eq!(seed.labels.len(), 4, "{seed:?}");
    assert!(
        seed.labels
            .iter()
            .all(|l| l.contains("tilem(64, 128)") == l.contains("dmine(4, 1)")),
        "{seed:?}"
    );
    assert_eq!(seed.winner, seed.order[0]);
    // One record per candidate, then the winner's again.
    assert_eq!(records.len(), 5, "{records:?}");
    let best = records.iter().map(|r| r.bound()).fold(0.0, f64::max);
    assert_eq!(records[4].bound(), best, "{records:?}");
    assert_eq!(nuda::last_tuned(), Some(seed.labels[seed.winner].as_str()));
}

/// A reduction's group tree ends in warp shuffles on CUDA (the last five steps in registers
/// of the first warp, not through shared memory and barriers), and a scan's rows are scanned
/// by warp shuffles: each kernel's SASS has `SHFL`. The results are the tree's own, pair for pair (`tests/reductions.rs` and
/// `tests/scans.rs` check them against Rust on PoCL and the native engine).
#[test]
fn reductions_and_scans_end_their_trees_in_warp_shuffles() {
    let Some(lab) = lab() else { return };
    let records = nuda::with_device(lab, || -> nuda::Result<Vec<nuda::lab::Record>> {
        let n = 1usize << 16;
        let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let b = NuArray1::<i64>::from_fn(n, |i| i as i64);
        let mut out = NuArray1::<i64>::new(n);
        nuda::lab::take_records();
        let (mut s, mut hi, mut t) = (0.0f32, 0u8, 0i64);
        nuwork!(256; nfor!(i in n {
            s += a[i];
            hi = hi.max((i % 200) as u8);
        }))?;
        nuwork!(256; nfor!(i in n {
            t += b[i];
            out[i] = t;
        }))?;
        let _ = (s, hi);
        Ok(nuda::lab::take_records())
    })
    .unwrap()
    .unwrap();
    // The reduction's kernel, then the scan's single pass (its rows' warp scans shuffle).
    assert_eq!(records.len(), 2, "{records:?}");
    for r in &records {
        assert!(r.whole.shfl > 0, "no SHFL in `{}`: {:?}", r.kernel, r.whole);
    }
}

/// A histogram counts in shared memory (`ATOMS`), and the group's counts go to global memory
/// after the loop (issue 49). The compiler keeps two copies of the loop, one per value of the
/// launch's flag (`nu_pv0`, uniform), so the hottest loop it reports may be either.
#[test]
fn a_histogram_counts_in_shared_memory() {
    let Some(lab) = lab() else { return };
    let records = nuda::with_device(lab, || -> nuda::Result<Vec<nuda::lab::Record>> {
        let n = 1usize << 16;
        let v = NuArray1::<u32>::from_fn(n, |i| (i as u32).wrapping_mul(2_654_435_761));
        let mut hist = NuArray1::<u32>::new(256);
        nuda::lab::take_records();
        nuwork!(256; nfor!(i in n { hist.atomic_add((v[i] % 256) as usize, 1u32); }))?;
        Ok(nuda::lab::take_records())
    })
    .unwrap()
    .unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    let r = &records[0];
    assert!(r.whole.atoms > 0 && r.whole.atomg > 0, "{:?}", r.whole);
}

/// What the lab recorded of a single-pass scan and a filter (`push`) of 2^16 `u32`.
fn scan_and_filter_records(lab: usize) -> Vec<nuda::lab::Record> {
    nuda::with_device(lab, || -> nuda::Result<Vec<nuda::lab::Record>> {
        let n = 1usize << 16;
        let a = NuArray1::<u32>::from_fn(n, |i| i as u32);
        let mut out = NuArray1::<u32>::new(n);
        let mut v = NuVec::<u32>::new();
        nuda::lab::take_records();
        let mut s = 0u32;
        nuwork!(256; nfor!(i in n {
            s += a[i];
            out[i] = s;
        }))?;
        nuwork!(256; nfor!(i in n {
            if a[i] % 3 == 0 {
                v.push(a[i]);
            }
        }))?;
        Ok(nuda::lab::take_records())
    })
    .unwrap()
    .unwrap()
}

/// What the lab recorded of a single-pass scan of 2^16 `f32`, whose look-back keeps its
/// flags apart from its values (`window.rs`): floats do not take the packed words.
fn float_scan_record(lab: usize) -> nuda::lab::Record {
    let records = nuda::with_device(lab, || -> nuda::Result<Vec<nuda::lab::Record>> {
        let n = 1usize << 16;
        let a = NuArray1::<f32>::from_fn(n, |i| (i % 7) as f32);
        let mut out = NuArray1::<f32>::new(n);
        nuda::lab::take_records();
        let mut s = 0.0f32;
        nuwork!(256; nfor!(i in n {
            s += a[i];
            out[i] = s;
        }))?;
        Ok(nuda::lab::take_records())
    })
    .unwrap()
    .unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    records.into_iter().next().unwrap()
}

/// The single-pass scan's look-back orders its flags by acquire loads and release exchanges
/// (session 39): no `MEMBAR.SC.GPU`, which `__threadfence()` after each of a window's 256
/// polls had put in every work-item's path, each with an L1 invalidation. A float scan's
/// flags are apart from its values, so its release stays a `MEMBAR.ALL.GPU`.
#[test]
fn the_look_back_takes_no_sequentially_consistent_fence() {
    let Some(lab) = lab() else { return };
    let mut records = scan_and_filter_records(lab);
    records.push(float_scan_record(lab));
    for r in &records {
        let look_back = r.whole.atomg > 0;
        assert!(look_back, "no look-back in `{}`: {:?}", r.kernel, r.whole);
        assert_eq!(r.whole.membar_sc, 0, "`{}`: {:?}", r.kernel, r.whole);
    }
    let float = &records[2];
    eprintln!(
        "{}: {} registers, {:?}",
        float.origin, float.registers, float.whole
    );
    assert!(
        float.whole.membar > 0,
        "`{}`: {:?}",
        float.origin,
        float.whole
    );
}

/// An integer scan's and a filter's look-back keeps each tile's state and value in one
/// 64-bit word (`packed.rs`), read and written whole by relaxed atomics: no fence of any
/// kind in their SASS, and the words' 64-bit loads (the data are 32-bit).
#[test]
fn integer_look_backs_read_packed_words_without_fences() {
    let Some(lab) = lab() else { return };
    let records = scan_and_filter_records(lab);
    assert_eq!(records.len(), 2, "{records:?}");
    for r in &records {
        eprintln!("{}: {} registers, {:?}", r.origin, r.registers, r.whole);
        assert_eq!(r.whole.membar, 0, "`{}`: {:?}", r.origin, r.whole);
        assert!(r.whole.ldg[1] > 0, "`{}`: {:?}", r.origin, r.whole);
    }
}

/// The single-pass scan and filter load a tile's rows four at a time before using them
/// (issue 49): one 4-byte load in flight per thread leaves an H200 SM a third of the bytes
/// in flight its HBM needs. Read off the SASS (`Kernel::loads_in_flight`): ptxas issues the
/// scan's four loads before the first use and the filter's first three (it interleaves the
/// fourth with the first use); each kernel here had 1 before.
#[test]
fn scans_and_filters_keep_several_loads_in_flight() {
    let Some(lab) = lab() else { return };
    let records = scan_and_filter_records(lab);
    assert_eq!(records.len(), 2, "{records:?}");
    for r in &records {
        assert!(
            r.loads >= 3,
            "`{}` keeps {} global loads in flight",
            r.origin,
            r.loads
        );
    }
}

/// A reduction's and a privatised histogram's grid-stride loops take four strides a round,
/// so a work-item's loads of them are in flight together (issue 49): a dot product's two
/// arrays had 2 loads in flight, a histogram's one array 1.
#[test]
fn grid_stride_loops_keep_several_loads_in_flight() {
    let Some(lab) = lab() else { return };
    let records = nuda::with_device(lab, || -> nuda::Result<Vec<nuda::lab::Record>> {
        let n = 1usize << 16;
        let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let b = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let v = NuArray1::<u32>::from_fn(n, |i| (i as u32).wrapping_mul(2_654_435_761));
        let mut hist = NuArray1::<u32>::new(256);
        nuda::lab::take_records();
        let mut dot = 0.0f32;
        nuwork!(256; nfor!(i in n { dot += a[i] * b[i]; }))?;
        nuwork!(256; nfor!(i in n { hist.atomic_add((v[i] % 256) as usize, 1u32); }))?;
        let _ = dot;
        Ok(nuda::lab::take_records())
    })
    .unwrap()
    .unwrap();
    assert_eq!(records.len(), 2, "{records:?}");
    for (r, least) in records.iter().zip([8, 4]) {
        assert!(
            r.loads >= least,
            "`{}` keeps {} global loads in flight",
            r.origin,
            r.loads
        );
    }
}

/// With AMD's compile checks on (`scripts/test` sets both), each launch on the lab also
/// leaves what hiprtc and clang made of it for an MI200 (`nuda::lab::take_amd_records`),
/// whatever the checks' memos say: the bench's `--static` table puts these beside the lab's
/// own record. A dot product's grid-stride loop keeps 8 loads in flight on each.
#[test]
fn each_lab_launch_also_leaves_amds_records() {
    let Some(lab) = lab() else { return };
    let set = |v: &str| std::env::var(v).is_ok_and(|s| s.split(',').any(|a| a == "gfx90a"));
    if !(set("NUDA_HIP_CHECK") && set("NUDA_AMDGCN_CHECK")) {
        eprintln!("skipped: NUDA_HIP_CHECK and NUDA_AMDGCN_CHECK do not both list gfx90a");
        return;
    }
    let amd = nuda::with_device(lab, || -> nuda::Result<Vec<nuda::lab::AmdRecord>> {
        let n = 1usize << 16;
        let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let b = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let mut dot = 0.0f32;
        // Twice: the second launch's program passed the checks already.
        for _ in 0..2 {
            nuda::lab::take_amd_records();
            nuwork!(256; nfor!(i in n { dot += a[i] * b[i]; }))?;
        }
        let _ = dot;
        Ok(nuda::lab::take_amd_records())
    })
    .unwrap()
    .unwrap();
    for compiler in ["hiprtc", "clang"] {
        let found = amd
            .iter()
            .find(|r| {
                (r.compiler, r.arch.as_str(), r.kernel.as_str()) == (compiler, "gfx90a", "nuwork")
            })
            .unwrap_or_else(|| panic!("no {compiler} gfx90a record in {amd:?}"));
        assert!(found.registers.0 > 0 && found.waves.is_some(), "{found:?}");
        assert!(found.loads >= Some(8), "{found:?}");
    }
}

/// The skeletons of the two tests above, each checked against plain Rust: run in a child with
/// AMD's compile checks on, whose dumps the next test reads.
#[test]
fn child_runs_the_skeletons() {
    if std::env::var_os("NUDA_TEST_CHILD").is_none() {
        return;
    }
    let n = 100_003usize;
    let v: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let a = NuArray1::<u32>::from_fn(n, |i| v[i] % 1000);
    let b = NuArray1::<f32>::from_fn(n, |i| (v[i] % 7) as f32);
    let c = NuArray1::<f32>::from_fn(n, |i| (v[i] % 5) as f32);
    let (mut out, mut kept) = (NuArray1::<u32>::new(n), NuVec::<u32>::new());
    let mut hist = NuArray1::<u32>::new(256);
    let (mut s, mut dot, mut f) = (0u32, 0.0f32, 0.0f32);
    let mut floats = NuArray1::<f32>::new(n);
    nuwork!(256; nfor!(i in n { s += a[i]; out[i] = s; })).unwrap();
    nuwork!(256; nfor!(i in n { f += b[i]; floats[i] = f; })).unwrap();
    nuwork!(256; nfor!(i in n { if a[i] % 3 == 0 { kept.push(a[i]); } })).unwrap();
    nuwork!(256; nfor!(i in n { dot += b[i] * c[i]; })).unwrap();
    nuwork!(256; nfor!(i in n { hist.atomic_add((a[i] % 256) as usize, 1u32); })).unwrap();
    let a = a.to_vec();
    let scan: Vec<u32> = a
        .iter()
        .scan(0u32, |r, &x| {
            *r += x;
            Some(*r)
        })
        .collect();
    assert_eq!(out.to_vec(), scan);
    let mut got = kept.to_vec();
    got.sort_unstable();
    let mut want: Vec<u32> = a.iter().copied().filter(|x| x % 3 == 0).collect();
    want.sort_unstable();
    assert_eq!(got, want);
    let (b, c) = (b.to_vec(), c.to_vec());
    // Sums of small integers below 2^24: exact in any order.
    let fsum: Vec<f32> = b
        .iter()
        .scan(0.0f32, |r, &x| {
            *r += x;
            Some(*r)
        })
        .collect();
    assert_eq!(floats.to_vec(), fsum);
    let want: f64 = b.iter().zip(&c).map(|(&x, &y)| (x * y) as f64).sum();
    assert!(
        (dot as f64 - want).abs() <= want * 1e-5,
        "{dot} against {want}"
    );
    let mut bins = vec![0u32; 256];
    a.iter().for_each(|&x| bins[(x % 256) as usize] += 1);
    assert_eq!(hist.to_vec(), bins);
}

/// What AMD's compilers make of the skeletons for an MI200 (gfx90a): hiprtc on the HIP text,
/// clang on the OpenCL C as ROCm's OpenCL compiles it. Each keeps as many global loads in
/// flight per wave as ptxas does per thread (`s_waitcnt vmcnt`, `backend/c/amdgpu_flight.rs`):
/// the scan's and the filter's rows had 1 or 2, since AMD's compilers keep each row's guard a
/// branch, and the histogram 1 under clang, which kept a branch on the privatisation flag
/// between every load and the next. Without AMD's compilers this skips, unless
/// `NUDA_REQUIRE_AMD=1`.
#[test]
fn amds_compilers_keep_several_loads_in_flight_in_the_skeletons() {
    let env = [
        ("NUDA_HIP_CHECK", "gfx90a"),
        ("NUDA_AMDGCN_CHECK", "gfx90a"),
    ];
    let Some(dir) = skeleton_dumps("amd-flight", &env) else {
        return;
    };
    let least = [
        ("out[i] = s", 4),
        ("kept.push", 4),
        ("dot +=", 8),
        ("atomic_add", 4),
    ];
    for ext in [".hip.s", ".amdgcn.s"] {
        let files = dumped_files(&dir, ext);
        for (what, n) in least {
            let found: Vec<&String> = files.iter().filter(|f| origin(f).contains(what)).collect();
            assert!(!found.is_empty(), "no {ext} dump of `{what}`");
            for f in found {
                let loads = loads_in_flight(f);
                assert!(loads >= n, "`{what}` keeps {loads} loads in flight ({ext})");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The look-back's flags cross compute units, so on an AMD GPU their fences must have agent
/// scope: OpenCL C 1.2's `mem_fence` has work-group scope, which ROCm's clang compiles on
/// CDNA to no wait between a tile's value stores and its flag store, and to no L1
/// invalidation after a poll. With agent scope, gfx90a's acquire invalidates the L1
/// (`buffer_wbinvl1_vol`) after each poll, and gfx940's release writes back and its acquire
/// invalidates (`buffer_wbl2 sc1`, `buffer_inv sc1`): a float scan's, whose flags are apart
/// from its values. An integer scan's and a filter's states and values share a word
/// (`packed.rs`), which needs no order: neither. Nothing else in these kernels has them.
/// (gfx940's listing is clang's assembly: Debian's llvm-objdump 15 crashes on it.)
#[test]
fn the_look_back_orders_its_flags_across_amds_compute_units() {
    let env = [("NUDA_AMDGCN_CHECK", "gfx90a,gfx940")];
    let Some(dir) = skeleton_dumps("amd-fence", &env) else {
        return;
    };
    let fences = [
        // gfx90a's agent release is a wait alone (`s_waitcnt vmcnt(0)`), too common to count.
        ("gfx90a", ["", "buffer_wbinvl1_vol"]),
        ("gfx940", ["buffer_wbl2 sc1", "buffer_inv sc1"]),
    ];
    for (arch, [release, acquire]) in fences {
        let files = dumped_files(&dir, &format!("-{arch}.amdgcn.s"));
        let of = |what: &str| -> Vec<&String> {
            let found: Vec<&String> = files.iter().filter(|f| origin(f).contains(what)).collect();
            assert!(!found.is_empty(), "no {arch} dump of `{what}`");
            found
        };
        for f in of("floats[i] = f") {
            let k = kernel_listing(f);
            assert!(
                k.contains(release),
                "the float scan on {arch}: no agent-scope release"
            );
            assert!(
                k.contains(acquire),
                "the float scan on {arch}: no agent-scope acquire"
            );
        }
        for what in ["out[i] = s", "kept.push", "dot +="] {
            let fenced = of(what).iter().any(|f| kernel_listing(f).contains(acquire));
            assert!(!fenced, "`{what}` on {arch}: an acquire fence");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The dump folder of `child_runs_the_skeletons` run with AMD's checks `env`; `None` (the
/// test skips) without OpenCL, or without AMD's compilers unless `NUDA_REQUIRE_AMD=1`.
fn skeleton_dumps(tag: &str, env: &[(&str, &str)]) -> Option<std::path::PathBuf> {
    // The lab registers itself before the device list is built: whichever test of this
    // binary builds the list first, the others still find the lab (run alone, these two
    // tests had the list built before it).
    let _ = lab();
    if !have_opencl() {
        return None;
    }
    let (passed, text, dir) = dumping_child("child_runs_the_skeletons", tag, env);
    if !passed {
        let missing = text.contains("is set, but");
        let required = std::env::var("NUDA_REQUIRE_AMD").as_deref() == Ok("1");
        assert!(missing && !required, "child failed:\n{text}");
        eprintln!("skipped: no AMD compilers");
        return None;
    }
    Some(dir)
}

/// The kernel's own part of an AMD listing (`<nuwork>:` to the next symbol): the prelude's
/// functions are in the object whether the kernel calls them or not (`nu_poll_acq`'s
/// invalidation is in every one).
fn kernel_listing(dump: &str) -> String {
    let symbol = |l: &str| l.trim_end().ends_with(">:");
    dump.lines()
        .skip_while(|l| !l.contains("<nuwork>:"))
        .enumerate()
        .take_while(|(i, l)| *i == 0 || !symbol(l))
        .map(|(_, l)| format!("{l}\n"))
        .collect()
}

/// A dump's first line, which names the macro call.
fn origin(dump: &str) -> &str {
    dump.lines().next().unwrap_or_default()
}

/// The fewest loads in flight a dump's head gives any of its kernels.
fn loads_in_flight(dump: &str) -> u32 {
    let counts = dump
        .lines()
        .take_while(|l| l.starts_with("//"))
        .filter_map(|l| {
            let head = l.strip_suffix(" global loads in flight")?;
            head.rsplit(", ").next()?.parse().ok()
        });
    counts.min().unwrap_or(0)
}
