//! What CUDA C++ and HIP C++ share (layer 1, shared by the CUDA and HIP backends): how
//! both spell the dialect marks, and the header `opencl_in_cxx.h` that maps the rest of
//! nuda's OpenCL C (work-item builtins, barriers, atomics, conversions, integer builtins,
//! vector types, images) onto a C++ GPU language. Each backend's dialect puts its own
//! prologue before the header: the few names the two languages spell apart (warp shuffles,
//! texture and surface objects, `offsetof`).
//!
//! - `kernel` is `extern "C" __global__`; the address spaces go (pointers are generic);
//! - a `local T* p` parameter is `uint p__nu_off`, an offset into the kernel's one
//!   `extern __shared__` buffer, and `p` a pointer computed from it where the body opens;
//!   the launch passes each local argument's offset (after any arrays moved there);
//! - a local array is `__shared__`, aligned for 128-bit copies, or, where the kernel's
//!   arrays pass the static limit, a pointer at its constant offset in the dynamic buffer;
//! - a vector literal is a call of `nu_make<T>`, a swizzle a call of `swz<..>()`;
//! - OpenCL's pragmas go (`FP_CONTRACT OFF` is the compilers' `-ffp-contract=off`).

use super::dialect::{self, swizzle_lanes, Dialect, KernelPlan, Rendered};
use super::dialect::{VECTOR_ELEMENTS, VECTOR_WIDTHS};
use super::marker;
use nuda_abi::dialect::{has_marks, Mark};

/// The whole program in C++ dialect `d`: its `prologue`, the shared header, then `prelude`
/// (nuda's, in OpenCL C) and `source`, marked where the macros did not mark them (the
/// prelude, a hand-written kernel), with the marks filled, then `epilogue`.
pub(crate) fn program(
    d: &dyn Dialect,
    [prologue, epilogue]: [&str; 2],
    prelude: &str,
    source: &str,
) -> Rendered {
    let mut marked = marker::mark(prelude);
    marked += &if has_marks(source) {
        source.to_string()
    } else {
        marker::mark(source)
    };
    let r = dialect::render(&marked, d);
    let newline = if r.text.ends_with('\n') { "" } else { "\n" };
    Rendered {
        text: format!("{prologue}{}{}{newline}{epilogue}", header(), r.text),
        moved: r.moved,
    }
}

/// The header every C++ program includes after its dialect's prologue.
pub(crate) const HEADER: &str = include_str!("opencl_in_cxx.h");

/// The header with a typedef and a name per OpenCL vector type in its place.
pub(crate) fn header() -> String {
    HEADER.replacen("// @vector-types", &vector_names(), 1)
}

/// A typedef per OpenCL vector type (`nu_float4`, a `nu_vec<float, 4>`) and a name that
/// maps OpenCL's spelling to it (`#define float4 nu_float4`).
fn vector_names() -> String {
    let mut s = String::new();
    for e in VECTOR_ELEMENTS {
        let t = if e == "char" { "signed char" } else { e };
        s += &format!("NU_VEC_TYPES({t}, nu_{e})\n");
        for w in VECTOR_WIDTHS {
            s += &format!("#define {e}{w} nu_{e}{w}\n");
        }
    }
    s
}

/// Mark `m` in C++ for a GPU, in kernel `k`.
pub(crate) fn mark(m: &Mark<'_>, k: &KernelPlan) -> String {
    match *m {
        Mark::Kernel(_) => "extern \"C\" __global__".into(),
        Mark::Space(_) => String::new(),
        Mark::FileConstant => "__constant__ const ".into(),
        Mark::LocalParam { name, .. } => format!("uint {name}__nu_off"),
        Mark::Body => body(k),
        Mark::SharedArray { ty, name, count } => match k.moved.get(name) {
            Some(at) => format!("{ty}* restrict {name} = ({ty}*)(nu_smem + {at});"),
            // Aligned for the 128-bit accesses of staged copies (`nu_copy4`) and vector reads.
            None => format!("__shared__ __align__(16) {ty} {name}[{count}];"),
        },
        Mark::Shared => "__shared__ __align__(16) ".into(),
        Mark::Vector(ty) => format!("nu_make<{ty}>"),
        Mark::Swizzle(word) => {
            let lanes = swizzle_lanes(word).unwrap_or_default();
            let l: Vec<String> = lanes.iter().map(u32::to_string).collect();
            format!("swz<{}>()", l.join(", "))
        }
        Mark::Pragma(_) => String::new(),
        Mark::Attribute(text) => attribute(text),
    }
}

/// An OpenCL kernel attribute in C++: a required work-group size bounds the block, as
/// `NU_GROUP` does; hints go.
fn attribute(text: &str) -> String {
    let dims = text
        .trim()
        .strip_prefix("reqd_work_group_size")
        .map(|r| r.trim().trim_start_matches('(').trim_end_matches(')'));
    match dims {
        Some(d) => {
            let product: Vec<String> = d.split(',').map(|x| format!("({})", x.trim())).collect();
            format!("__launch_bounds__({})", product.join(" * "))
        }
        None => String::new(),
    }
}

/// Where a kernel's body opens: its dynamic shared buffer, and a pointer per local
/// parameter into it.
fn body(k: &KernelPlan) -> String {
    if k.local_params.is_empty() && k.moved_bytes == 0 {
        return String::new();
    }
    let mut s = "\n    extern __shared__ __align__(128) uchar nu_smem[];".to_string();
    for (ty, name) in &k.local_params {
        s += &format!("\n    {ty}* restrict {name} = ({ty}*)(nu_smem + {name}__nu_off);");
    }
    s
}
