//! Reduction trees and one-pass scans on OpenCL sub-groups (issue 49). A device that can be
//! told to make sub-groups of 32 and has shuffles (Intel's runtimes) takes the warp path, as
//! CUDA does, if it is a GPU or `NUDA_CL_SUBGROUPS=1` forces it (as `scripts/intel-opencl`
//! does on Intel's CPU runtime); one without (PoCL) keeps the tree in local memory. Either
//! way the results are plain Rust's.

mod common;

use common::{check, dumped_files, dumping_child, have_opencl};
use nuda::prelude::*;
use nuda::{KernelSource, Launch};

/// Whether the OpenCL device's compiler sees the extensions nuda's warp path needs: asked of
/// the device itself, not of nuda's detection.
static PROBE: KernelSource = unsafe {
    // SAFETY: the kernel writes element 0 of its one array, which has one element, from the
    // launch's one work-item.
    KernelSource::new(
        "kernel void probe(global uint* out, nu_idx out__d0) {\n\
         #if defined(cl_intel_required_subgroup_size) && ((defined(cl_khr_subgroup_shuffle) && \
         defined(cl_khr_subgroup_shuffle_relative)) || (defined(cl_intel_subgroups) && \
         defined(cl_intel_subgroups_char) && defined(cl_intel_subgroups_short) && \
         defined(cl_intel_subgroups_long)))\n\
         out[0] = 1;\n\
         #else\n\
         out[0] = 0;\n\
         #endif\n\
         }\n",
    )
};

fn device_has_shuffles() -> nuda::Result<bool> {
    let mut out = NuArray1::<u32>::new(1);
    Launch::new(&PROBE, "probe")
        .global([1])
        .local([1])
        .array_mut(&mut out)
        .run()?;
    Ok(out.to_vec()[0] == 1)
}

/// A reduction and a scan over groups of 64 and more (the warp path's), run in a child
/// with `NUDA_DUMP` set; the parent reads what it dumped. On a CPU device the scan's rows of
/// warps are compiled out (`NU_CPU`), so only the scan's total and the reduction shuffle
/// there; the gfx90a check below compiles the rows' shuffles.
#[test]
fn child_runs_a_tree_and_a_scan() {
    if std::env::var_os("NUDA_TEST_CHILD").is_none() {
        return;
    }
    let n = 5000usize;
    let a = NuArray1::<u32>::from_fn(n, |i| (i as u32).wrapping_mul(2_654_435_761) >> 20);
    let v = a.to_vec();
    let (mut sum, mut hi) = (0u64, 0u32);
    nuwork!(128; nfor!(i in n {
        sum += a[i] as u64;
        hi = hi.max(a[i]);
    }))
    .unwrap();
    assert_eq!(sum, v.iter().map(|&x| x as u64).sum::<u64>());
    assert_eq!(hi, *v.iter().max().unwrap());
    let mut incl = NuArray1::<u32>::new(n);
    let mut run = 0u32;
    nuwork!(256; nfor!(i in n {
        run += a[i];
        incl[i] = run;
    }))
    .unwrap();
    let want: Vec<u32> = v
        .iter()
        .scan(0u32, |s, &x| {
            *s = s.wrapping_add(x);
            Some(*s)
        })
        .collect();
    assert_eq!(incl.to_vec(), want);
    let flag = if device_has_shuffles().unwrap() {
        "yes"
    } else {
        "no"
    };
    println!("shuffles on the device: {flag}");
}

/// Runs the child with `env` set: its output, and (`None` if it failed) the files of
/// extension `ext` it dumped for this file's programs.
fn child_dumps(tag: &str, env: &[(&str, &str)], ext: &str) -> (String, Option<Vec<String>>) {
    let (passed, text, dir) = dumping_child("child_runs_a_tree_and_a_scan", tag, env);
    let files = passed.then(|| {
        let all = dumped_files(&dir, ext);
        all.into_iter()
            .filter(|t| t.contains("subgroups.rs:"))
            .collect()
    });
    let _ = std::fs::remove_dir_all(&dir);
    (text, files)
}

/// nuda's programs ask for sub-groups of 32 and shuffle in them exactly where the device's
/// compiler has what that takes and `NUDA_CL_SUBGROUPS` lets it (by default GPUs only; `1`
/// CPUs too; `0` none), and the child's results are plain Rust's each way.
#[test]
fn programs_shuffle_exactly_where_the_device_has_subgroups() {
    if !have_opencl() {
        return;
    }
    // nuda takes the shuffles on Intel's platforms only, where they were tried (an OpenCL C
    // 1.2 build elsewhere may not declare them: `backend/opencl/subgroups.rs`).
    // The children run on OpenCL alone (`dumping_child`): its first device, not a CUDA GPU.
    let found = nuda::devices()
        .iter()
        .find(|d| d.backend == "OpenCL")
        .cloned();
    let Some(device) = found else { return };
    let intel = device.platform.starts_with("Intel(R) OpenCL");
    let gpu = device.kind == DeviceKind::Gpu;
    for (choice, allowed) in [("auto", gpu), ("1", true), ("0", false)] {
        let tag = format!("subgroups-cl-{choice}");
        let (text, programs) = child_dumps(&tag, &[("NUDA_CL_SUBGROUPS", choice)], ".cl");
        let programs = programs.unwrap_or_else(|| panic!("child failed:\n{text}"));
        let shuffles = allowed && intel && text.contains("shuffles on the device: yes");
        assert_eq!(programs.len(), 2, "a tree and a scan");
        for p in &programs {
            let warp =
                p.contains("#define NU_SHFL 1") && p.contains("intel_reqd_sub_group_size(32)");
            assert_eq!(
                warp, shuffles,
                "NUDA_CL_SUBGROUPS={choice}, the device has shuffles: {shuffles}; the \
                 program:\n{p}"
            );
            // Attributes may follow `NU_WARPS`: the group's bound (`NU_BOUNDS..`).
            assert!(p.contains("kernel void NU_WARPS "), "{p}");
            assert!(p.contains(" nuwork("), "{p}");
        }
    }
}

/// As ROCm's OpenCL compiles them for an MI200 (`NUDA_AMDGCN_CHECK=gfx90a`), the tree and
/// the scan shuffle with `ds_bpermute`, HIP's way; without AMD's compilers this skips, unless
/// `NUDA_REQUIRE_AMD=1`.
#[test]
fn rocm_builds_of_trees_and_scans_shuffle_with_ds_bpermute() {
    if !have_opencl() {
        return;
    }
    let env = [("NUDA_AMDGCN_CHECK", "gfx90a")];
    let (text, isa) = child_dumps("subgroups-amdgcn", &env, ".amdgcn.s");
    let Some(isa) = isa else {
        let missing = text.contains("NUDA_AMDGCN_CHECK is set, but");
        let required = std::env::var("NUDA_REQUIRE_AMD").as_deref() == Ok("1");
        assert!(missing && !required, "child failed:\n{text}");
        eprintln!("skipped: no AMD compilers");
        return;
    };
    assert_eq!(isa.len(), 2, "a tree and a scan");
    for code in &isa {
        let n = code.matches("ds_bpermute_b32").count();
        assert!(n >= 2, "{n} ds_bpermute in:\n{code}");
    }
}

/// One reduction of `a` over groups of the given shape: the sum, the minimum and the
/// count of positive elements.
macro_rules! reduce_in_groups {
    ($a:ident, $n:ident, $m:ident; $($g:literal),+) => {{
        let (mut s, mut lo, mut c) = (0i64, i32::MAX, 0u32);
        nuwork!($($g),+; nfor!((i, j) in ($n, $m) {
            s += $a[(i, j)] as i64;
            lo = lo.min($a[(i, j)]);
            if $a[(i, j)] > 0 {
                c += 1;
            }
        }))?;
        (s, lo, c)
    }};
}

/// Groups whose first dimension is not a multiple of 32 keep the local tree (their
/// sub-groups would not be the tree's runs of 32); groups of 32 and under have no warp path.
/// Every shape gives plain Rust's sums, minima and counts.
#[test]
fn every_group_shape_reduces_as_plain_rust() {
    let (n, m) = (77usize, 45usize);
    let a = NuArray2::<i32>::from_fn((n, m), |(i, j)| ((i * 131 + j * 71) % 201) as i32 - 100);
    let v = a.to_vec();
    let one = (
        v.iter().map(|&x| x as i64).sum::<i64>(),
        *v.iter().min().unwrap(),
        v.iter().filter(|&&x| x > 0).count() as u32,
    );
    check(vec![one; 4], || {
        Ok(vec![
            reduce_in_groups!(a, n, m; 32, 4),
            reduce_in_groups!(a, n, m; 16, 8),
            reduce_in_groups!(a, n, m; 96, 1),
            reduce_in_groups!(a, n, m; 8, 4),
        ])
    });
}
