//! The C dialects a source-form backend compiles (layer 1, shared by the backends beside
//! it): the seam between the one emitter and the several compilers, cubecl-cpp's `Dialect`
//! in spirit. The macros write every construct whose spelling differs as a dialect mark
//! (`nuda_abi::dialect`): kernel qualifiers, address spaces, local-memory parameters and
//! declarations, vector literals. Hand-written kernels and nuda's prelude are marked by
//! `marker.rs`. A dialect fills each mark, knowing the kernel it sits in ([`KernelPlan`]),
//! and gives the prelude its few parts; what remains (builtins, barriers, atomics, shuffles,
//! math, images) are names that each dialect's header or prelude part defines.
//!
//! OpenCL C is [`OPENCL_C`] here; CUDA's and HIP's live in their backends' folders.

use nuda_abi::dialect::{self as marks, Mark};
use std::collections::HashMap;

/// A C dialect: how it spells each mark and the prelude's parts that differ.
pub(crate) trait Dialect: Sync {
    /// Mark `m`'s text; `k` is what the kernel around it declares (empty outside kernels).
    fn mark(&self, m: &Mark<'_>, k: &KernelPlan) -> String;
    /// The static local memory a kernel may declare; past it, its arrays move into the
    /// dynamic buffer (CUDA's 48 KiB). `None`: no such limit.
    fn static_shared_limit(&self) -> Option<usize> {
        None
    }
    /// The prelude's parts in this dialect.
    fn prelude(&self) -> &PreludeParts;
    /// `x`, of integer type `t` of `bytes` bytes, with its bytes reversed.
    fn bswap(&self, t: &str, bytes: u32) -> String;
}

/// The prelude's text that differs per dialect.
#[derive(Debug)]
pub(crate) struct PreludeParts {
    /// Whether the dialect is OpenCL C itself: its pragmas (`FP_CONTRACT OFF`, `cl_khr_fp64`)
    /// and clang's diagnostics for CPUs.
    pub opencl: bool,
    /// `NU_OFFSETOF(T, f)`, for `#[nustruct]` layout checks.
    pub offsetof: &'static str,
    /// `NU_UNROLL`, before a loop a GPU should unroll.
    pub unroll: &'static str,
    /// `NU_PRED_ROWS`: 1 where the compiler makes the row guards of an unrolled loop
    /// predicates and issues the rows' loads before their uses (ptxas), so the one-pass
    /// scan's tile keeps one loop of guarded rounds; 0 where it keeps each guard a branch
    /// that waits for the row's load (LLVM's AMDGPU back end), so full rounds run unguarded
    /// and the tile's rest in a loop of its own. Each form is the worse on the other
    /// compiler (ptxas kept 2 loads of a filter's 4 in flight unguarded, 3 guarded).
    pub rows: &'static str,
    /// `NU_COPY4(d, s)`, four elements of a staged box into local memory.
    pub copy4: &'static str,
    /// `NU_SHFL`: 1 where the reduction tree's last steps use warp shuffles; `NU_WARPS`, a
    /// kernel attribute asking for warps of 32; `NU_WARPED`, whether a group's items run in
    /// such warps.
    pub shfl: &'static str,
    /// `NU_GROUP(x, y, z)`: a staged kernel's fixed work-group. `NU_BOUNDS(t)`: the most
    /// work-items any launch of the kernel has in a group (a `nuwork!` with literal sizes),
    /// so that a compiler budgets registers for them rather than for its 1,024.
    /// `NU_BOUNDS_WARPS(t, w)`: that bound, and `w` warps wanted per multiprocessor.
    pub group: &'static str,
    /// `nu_poll(p)`: a look-back's read of another group's flag, a relaxed atomic load where
    /// the dialect has one. OpenCL C 1.2's only atomic read is an `or` with 0, which each
    /// poller makes a read-modify-write at the L2; CUB polls with plain relaxed loads.
    /// `nu_poll_acq(p)`: the same read with acquire order (the values published before the
    /// flag are seen by reads after it), and `nu_flag_rel(p, v)` a flag's store with release
    /// order. OpenCL C 1.2 spells both with `mem_fence`, which CUDA's header makes
    /// `__threadfence()`: a sequentially consistent fence (`MEMBAR.SC.GPU` and an L1
    /// invalidation), where an acquire load needs neither the fence nor its SC part.
    /// `NU_PACKED`: whether `nu_poll64(p)` and `nu_pub64(p, v)`, a relaxed 64-bit atomic load
    /// and store, exist, for a look-back whose states and values share a word
    /// (`nuda-transforms`' `emit/cl/packed.rs`).
    pub poll: &'static str,
    /// The image helpers (`nu_read4`, `nu_write1`, ..).
    pub images: &'static str,
}

/// What a kernel declares that its marks' text depends on: its local parameters, and its
/// local arrays' offsets where they moved into the dynamic buffer.
#[derive(Debug, Default, Clone)]
pub(crate) struct KernelPlan {
    pub name: String,
    /// `(type, name)` of each local parameter, in order.
    pub local_params: Vec<(String, String)>,
    /// Each moved array's byte offset in the dynamic buffer.
    pub moved: HashMap<String, usize>,
    /// The bytes the moved arrays take (0: none moved).
    pub moved_bytes: usize,
}

/// A program in a dialect, and per kernel the bytes of local arrays moved to the start of
/// its dynamic buffer (absent: none).
pub(crate) struct Rendered {
    pub text: String,
    pub moved: HashMap<String, usize>,
}

/// `text`'s marks filled by dialect `d`: first each kernel's plan, then the text.
pub(crate) fn render(text: &str, d: &dyn Dialect) -> Rendered {
    let plans = plans(text, d);
    let moved = plans
        .iter()
        .filter(|p| p.moved_bytes > 0)
        .map(|p| (p.name.clone(), p.moved_bytes))
        .collect();
    let (empty, mut k, mut signature) = (KernelPlan::default(), None::<usize>, false);
    let text = marks::render(text, &mut |m| {
        let plan = k.map_or(&empty, |n| &plans[n]);
        match *m {
            Mark::Kernel(_) => {
                signature = true;
                k = Some(k.map_or(0, |n| n + 1));
            }
            Mark::Body => signature = false,
            // A function's pointer into local memory (a helper's, or a `nulocal!` array
            // passed on): an address space, not a kernel's parameter.
            Mark::LocalParam { ty, name, restrict } if !signature => {
                let r = if restrict { "restrict " } else { "" };
                let space = d.mark(&Mark::Space(marks::Space::Local), plan);
                return format!("{space}{ty}* {r}{name}");
            }
            _ => {}
        }
        d.mark(m, k.map_or(&empty, |n| &plans[n]))
    });
    Rendered { text, moved }
}

/// Each kernel's plan, in the order of their `Kernel` marks.
fn plans(text: &str, d: &dyn Dialect) -> Vec<KernelPlan> {
    let mut plans: Vec<KernelPlan> = Vec::new();
    let mut arrays: Vec<Vec<(String, String, String)>> = Vec::new();
    let mut signature = false;
    marks::render(text, &mut |m| {
        match *m {
            Mark::Kernel(name) => {
                signature = true;
                plans.push(KernelPlan {
                    name: name.into(),
                    ..KernelPlan::default()
                });
                arrays.push(Vec::new());
            }
            Mark::Body => signature = false,
            Mark::LocalParam { ty, name, .. } if signature => {
                if let Some(p) = plans.last_mut() {
                    p.local_params.push((ty.into(), name.into()));
                }
            }
            Mark::SharedArray { ty, name, count } => {
                if let Some(a) = arrays.last_mut() {
                    a.push((ty.into(), name.into(), count.into()));
                }
            }
            _ => {}
        }
        String::new()
    });
    if let Some(limit) = d.static_shared_limit() {
        for (p, a) in plans.iter_mut().zip(&arrays) {
            place_arrays(p, a, limit);
        }
    }
    plans
}

/// Moves kernel `p`'s arrays into its dynamic buffer at aligned offsets when together they
/// pass `limit`. Arrays whose element size is unknown (structs) stay static; a kernel past
/// the limit with them fails to build, saying so.
fn place_arrays(p: &mut KernelPlan, arrays: &[(String, String, String)], limit: usize) {
    let sized: Vec<(&str, usize, usize)> = arrays
        .iter()
        .filter_map(|(ty, name, count)| {
            let size = element_size(ty)?;
            let n: usize = count.trim().parse().ok()?;
            Some((
                name.as_str(),
                size * n,
                size.next_power_of_two().clamp(16, 128),
            ))
        })
        .collect();
    let total = sized.iter().fold(0usize, |at, &(_, bytes, align)| {
        at.next_multiple_of(align) + bytes
    });
    if total <= limit {
        return;
    }
    let mut at = 0usize;
    for (name, bytes, align) in sized {
        at = at.next_multiple_of(align);
        p.moved.insert(name.into(), at);
        at += bytes;
    }
    p.moved_bytes = total;
}

/// The bytes of a scalar or vector type of nuda's C; `None` for any other.
pub(crate) fn element_size(ty: &str) -> Option<usize> {
    let scalar = |s: &str| match s {
        "char" | "uchar" | "bool" => Some(1),
        "short" | "ushort" | "half" => Some(2),
        "int" | "uint" | "float" => Some(4),
        "long" | "ulong" | "double" | "nu_word" | "nu_sword" => Some(8),
        _ => None,
    };
    let ty = ty.trim();
    if let Some(s) = scalar(ty) {
        return Some(s);
    }
    let digits = ty.len() - ty.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (e, w) = ty.split_at(ty.len() - digits);
    let lanes = match w {
        "2" | "4" | "8" | "16" => w.parse().ok()?,
        "3" => 4,
        _ => return None,
    };
    Some(scalar(e)? * lanes)
}

/// Vector element types and widths OpenCL C names (`float4`, `uchar8`, ..).
pub(crate) const VECTOR_ELEMENTS: [&str; 10] = [
    "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double",
];
pub(crate) const VECTOR_WIDTHS: [&str; 5] = ["2", "3", "4", "8", "16"];

/// Whether `ty` is one of OpenCL C's vector types.
pub(crate) fn is_vector_type(ty: &str) -> bool {
    VECTOR_ELEMENTS.iter().any(|e| {
        ty.strip_prefix(e)
            .is_some_and(|w| VECTOR_WIDTHS.contains(&w))
    })
}

/// The lane numbers a swizzle word names (`zyxw`: 2, 1, 0, 3; `s10`: 1, 0), if it is one of
/// two lanes or more.
pub(crate) fn swizzle_lanes(word: &str) -> Option<Vec<u32>> {
    match word.strip_prefix('s') {
        Some(hex) if hex.len() >= 2 => hex.chars().map(|c| c.to_digit(16)).collect(),
        _ if (2..=4).contains(&word.len()) => word
            .chars()
            .map(|c| "xyzw".find(c).map(|k| k as u32))
            .collect(),
        _ => None,
    }
}

/// The `rows` part of a compiler that makes a row's guard a predicate: ptxas.
pub(crate) const PREDICATED_ROWS: &str = "#define NU_PRED_ROWS 1\n";

/// An OpenCL device's own `rows` part, where it differs from the OpenCL dialect's: NVIDIA's
/// GPUs, whose OpenCL compiles through ptxas as CUDA does.
pub(crate) fn rows_for(platform: &str, kind: crate::backend::DeviceKind) -> Option<&'static str> {
    let nvidia = platform.starts_with("NVIDIA") && kind == crate::backend::DeviceKind::Gpu;
    nvidia.then_some(PREDICATED_ROWS)
}

/// OpenCL C: every mark as the macros wrote it before marks existed.
pub(crate) struct OpenClC;

/// The OpenCL C dialect.
pub(crate) static OPENCL_C: OpenClC = OpenClC;

static OPENCL_PRELUDE: PreludeParts = PreludeParts {
    opencl: true,
    offsetof: "#if defined(__clang__) || defined(__GNUC__)\n#define NU_OFFSETOF(T, f) __builtin_offsetof(T, f)\n#else\n#define NU_OFFSETOF(T, f) ((size_t)&(((T*)0)->f))\n#endif\n",
    // CPUs' OpenCL compilers decide for themselves, and compile faster so.
    unroll: "#define NU_UNROLL\n",
    // ROCm's OpenCL compiles with LLVM's AMDGPU back end, and so do Intel's GPUs' compilers;
    // CPUs' take either. NVIDIA's OpenCL gets `PREDICATED_ROWS` (`rows_for`).
    rows: "#define NU_PRED_ROWS 0\n",
    // OpenCL C has no generic vector type to spell a 128-bit copy with, and CPUs' compilers
    // merge the four themselves.
    copy4: "#define NU_COPY4(d, s) do { (d)[0] = (s)[0]; (d)[1] = (s)[1]; (d)[2] = (s)[2]; (d)[3] = (s)[3]; } while (0)\n",
    // Sub-group functions are not on every device (PoCL's and NVIDIA's lack them), so
    // OpenCL keeps the reduction tree in local memory; a device with sub-groups of 32 gets
    // its own text instead (`backend/opencl/subgroups.rs`).
    shfl: "#define NU_SHFL 0\n#define NU_WARPS\n#define NU_WARPED 0\n",
    // No bound on OpenCL: its compilers take `reqd_work_group_size` alone, which would fix
    // each dimension, and budget for their own default group (ROCm's: 256) without one.
    group: "#define NU_GROUP(x, y, z) __attribute__((reqd_work_group_size(x, y, z)))\n#define NU_BOUNDS(t)\n#define NU_BOUNDS_WARPS(t, w)\n",
    // OpenCL C 1.2's `mem_fence` has work-group scope. ROCm's clang keeps that literally: on
    // CDNA (gfx90a, gfx940) it emits no wait between a tile's value stores and its flag's,
    // so another compute unit could see the flag first, and no L1 invalidation after a poll.
    // AMD's GPUs get agent-scope fences from clang's builtin instead (`s_waitcnt vmcnt(0)`
    // before the flag; `buffer_wbinvl1_vol` after the poll on gfx90a). A packed look-back's
    // words need no order, only atomicity: OpenCL 1.2's 64-bit atomics where the device has
    // them (ROCm's are relaxed: on gfx90a an `atom_add` of 0 is a `glc` load and an
    // `atom_xchg` whose result goes unused a store, with no wait or invalidation).
    poll: "#ifdef __AMDGCN__\n\
           #define nu_fence_rel() __builtin_amdgcn_fence(__ATOMIC_RELEASE, \"agent\")\n\
           #define nu_fence_acq() __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, \"agent\")\n\
           #else\n\
           #define nu_fence_rel() mem_fence(CLK_GLOBAL_MEM_FENCE)\n\
           #define nu_fence_acq() mem_fence(CLK_GLOBAL_MEM_FENCE)\n\
           #endif\n\
           #define nu_poll(p) atomic_or((p), 0u)\n\
           uint nu_poll_acq(volatile global uint* p) { uint v = atomic_or(p, 0u); nu_fence_acq(); return v; }\n\
           void nu_flag_rel(volatile global uint* p, uint v) { nu_fence_rel(); atomic_xchg(p, v); }\n\
           #ifdef cl_khr_int64_base_atomics\n\
           #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n\
           #define NU_PACKED 1\n\
           ulong nu_poll64(volatile global ulong* p) { return atom_add(p, (ulong)0); }\n\
           void nu_pub64(volatile global ulong* p, ulong v) { atom_xchg(p, v); }\n\
           #else\n\
           #define NU_PACKED 0\n\
           #endif\n",
    images: super::prelude::OPENCL_IMAGES,
};

impl Dialect for OpenClC {
    fn mark(&self, m: &Mark<'_>, _: &KernelPlan) -> String {
        marks::opencl(m)
    }

    fn prelude(&self) -> &PreludeParts {
        &OPENCL_PRELUDE
    }

    fn bswap(&self, t: &str, bytes: u32) -> String {
        let lanes: String = (0..bytes).rev().map(|k| format!("{k:x}")).collect();
        format!("as_{t}(as_uchar{bytes}(x).s{lanes})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nuda_abi::dialect::Mk;

    /// ptxas predicates a row's guard, on NVIDIA's OpenCL as on CUDA; LLVM's back ends and
    /// CPUs take the OpenCL dialect's unguarded full rounds.
    #[test]
    fn nvidias_opencl_gpus_take_the_predicated_rows() {
        use crate::backend::DeviceKind::{Cpu, Gpu};
        assert_eq!(rows_for("NVIDIA CUDA", Gpu), Some(PREDICATED_ROWS));
        assert_eq!(rows_for("AMD Accelerated Parallel Processing", Gpu), None);
        assert_eq!(rows_for("Portable Computing Language", Cpu), None);
        assert!(OPENCL_C.prelude().rows.contains("NU_PRED_ROWS 0"));
    }

    #[test]
    fn opencl_renders_marks_as_opencl_c() {
        let text = format!(
            "{} void f({}) {{{}\n    {}\n}}\n",
            Mk::kernel("f"),
            Mk::local_param("float", "t", true),
            Mk::body(),
            Mk::shared_array("float", "s", "16384")
        );
        let r = render(&text, &OPENCL_C);
        assert_eq!(
            r.text,
            "kernel void f(local float* restrict t) {\n    local float s[16384];\n}\n"
        );
        assert!(r.moved.is_empty(), "OpenCL has no static limit");
    }

    #[test]
    fn arrays_past_a_limit_get_aligned_offsets() {
        let mut p = KernelPlan::default();
        let a = |t: &str, n: &str, c: &str| (t.to_string(), n.to_string(), c.to_string());
        place_arrays(
            &mut p,
            &[a("float", "x", "3"), a("double4", "y", "2048")],
            48 << 10,
        );
        assert_eq!(p.moved["y"], 32, "{p:?}");
        assert_eq!(p.moved_bytes, 32 + 65536);
        let mut q = KernelPlan::default();
        place_arrays(&mut q, &[a("float", "x", "8192")], 48 << 10);
        assert!(q.moved.is_empty());
    }

    #[test]
    fn byte_swaps_in_opencl_read_lanes_in_reverse() {
        assert_eq!(OPENCL_C.bswap("int", 4), "as_int(as_uchar4(x).s3210)");
        assert_eq!(OPENCL_C.bswap("short", 2), "as_short(as_uchar2(x).s10)");
    }

    #[test]
    fn vector_types_and_swizzles() {
        assert!(is_vector_type("float4") && is_vector_type("uchar16"));
        assert!(!is_vector_type("float") && !is_vector_type("float5"));
        assert_eq!(swizzle_lanes("zyxw"), Some(vec![2, 1, 0, 3]));
        assert_eq!(swizzle_lanes("s10"), Some(vec![1, 0]));
        assert_eq!(swizzle_lanes("x"), None);
        assert_eq!(swizzle_lanes("size"), None);
    }
}
