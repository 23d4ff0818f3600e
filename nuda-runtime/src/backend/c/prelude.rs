//! nuda's prelude, in OpenCL C (layer 1, `backend/c`, shared by the source-form backends):
//! the typedefs, the fault record, the work-item builtins as Rust defines them, atomics, and
//! Rust's integer and float semantics (`helpers.rs`). A program gets only the definitions it
//! uses, found by name from its own text, and enables `cl_khr_fp64` only if it computes in
//! `double`: an `f32` program builds on a device without double precision, and the compiler
//! reads a few hundred lines, not thousands. Each dialect gives a few parts of its own
//! (`Dialect::prelude`: images, `offsetof`, schedule macros; OpenCL's pragmas) and spells
//! byte swaps (`Dialect::bswap`).

use super::dialect::Dialect;
use super::helpers::{
    division_helpers, float_cast_helpers, method_helpers, trips_helpers, vector_clamp_helpers,
};
use crate::backend::IndexType;
use std::collections::HashSet;

/// What nuda puts before every kernel source on a given device.
#[derive(Clone, Copy)]
pub(crate) struct Prelude {
    pub index: IndexType,
    pub images: bool,
    /// A CPU device: `NU_CPU` is 1, and kernels that choose a loop shape per device kind
    /// (reductions) take the one for CPUs.
    pub cpu: bool,
    /// The C the program is compiled as: the prelude's few dialect-specific parts follow it.
    pub dialect: &'static dyn Dialect,
    /// The device's own warp macros in place of the dialect's `shfl` part: an OpenCL device
    /// with sub-groups of 32 (`opencl/subgroups.rs`).
    pub warps: Option<&'static str>,
    /// The device's own form of a scan tile's rows in place of the dialect's `rows` part:
    /// NVIDIA's OpenCL, which compiles through ptxas as CUDA does (`PREDICATED_ROWS`).
    pub rows: Option<&'static str>,
}

impl Prelude {
    /// The prelude for `source`: the definitions it reaches, in the prelude's order; and
    /// whether the program computes in `double`.
    pub fn for_source(&self, source: &str) -> (String, bool) {
        let units = units(&self.full());
        let mut keep = vec![false; units.len()];
        let mut needed: HashSet<&str> = identifiers(source).collect();
        // A definition may use those before it, and a macro those after it: to a fixpoint.
        let mut changed = true;
        while changed {
            changed = false;
            for (k, u) in units.iter().enumerate().rev() {
                let used =
                    u.names.is_empty() || u.names.iter().any(|n| needed.contains(n.as_str()));
                if used && !keep[k] {
                    keep[k] = true;
                    changed = true;
                    needed.extend(identifiers(&u.text));
                }
            }
        }
        let kept = units.iter().zip(&keep).filter(|(_, k)| **k);
        let text: String = kept.map(|(u, _)| u.text.as_str()).collect();
        let fp64 = identifiers(source).chain(identifiers(&text)).any(is_double);
        let pragma = match self.dialect.prelude().opencl {
            true if fp64 => "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n",
            _ => "",
        };
        (format!("{pragma}{text}"), fp64)
    }

    /// [`Prelude::for_source`]'s text alone.
    #[cfg(test)]
    fn for_source_text(&self, source: &str) -> String {
        self.for_source(source).0
    }

    /// The macros the annotations' code shape is spelled with, per dialect: unrolled
    /// slices, a scan tile's rows, staged copies, the reduction tree's shuffles, a staged
    /// kernel's work-group.
    fn schedule_macros(&self) -> String {
        let p = self.dialect.prelude();
        [
            p.unroll,
            self.rows.unwrap_or(p.rows),
            p.copy4,
            self.warps.unwrap_or(p.shfl),
            p.group,
        ]
        .concat()
    }

    /// Every definition the prelude has, before any is dropped.
    fn full(&self) -> String {
        let why = match self.index {
            IndexType::U32 => "every size fits in 32 bits",
            IndexType::U64 => "a size needs 64 bits",
        };
        let (u, i) = (self.index.cl_name(), self.index.signed_cl_name());
        let bits = if self.index == IndexType::U32 { 32 } else { 64 };
        let mut t = format!("/* nuda prelude: nu_idx is {u} ({why}) */\n");
        t += &format!("typedef {u} nu_idx;\ntypedef {i} nu_sidx;\n");
        // `usize`/`isize` array elements: 64-bit in memory whatever `nu_idx` is.
        t += "typedef ulong nu_word;\ntypedef long nu_sword;\n";
        // `#[nustruct]` declarations check their layout against Rust's with it.
        t += self.dialect.prelude().offsetof;
        t += &self.schedule_macros();
        t += &format!("#define NU_IDX_BITS {bits}\n#define as_nu_sidx as_{i}\n");
        t += &format!("#define NU_CPU {}\n", u8::from(self.cpu));
        t += &format!("#define convert_nu_idx_sat_rtz convert_{u}_sat_rtz\n");
        t += &format!("#define convert_nu_sidx_sat_rtz convert_{i}_sat_rtz\n");
        // Rust never fuses `a * b + c`; OpenCL C may unless told not to (NVRTC is told by
        // its `--fmad=false` option).
        let opencl = self.dialect.prelude().opencl;
        if opencl {
            t += "#pragma OPENCL FP_CONTRACT OFF\n";
        }
        if self.cpu && opencl {
            // A CPU's clang warns that returning a `float16` without AVX-512 changes the ABI
            // (a note about calls between separately compiled objects; a program is one):
            // silenced, so that `-Werror` builds of `vector(16)` kernels pass on such CPUs.
            t +=
                "#ifdef __clang__\n#pragma clang diagnostic ignored \"-Wunknown-warning-option\"\n\
                  #pragma clang diagnostic ignored \"-Wpsabi\"\n#endif\n";
        }
        t += self.dialect.prelude().poll;
        t += FAULT;
        t += PRIVATE_ARRAYS;
        t += &items();
        t += &atomics();
        t += &float_cast_helpers();
        t += &division_helpers();
        t += &trips_helpers();
        t += &method_helpers(self.dialect);
        t += &vector_clamp_helpers();
        t += &index_aliases(u, i);
        if self.images {
            t += self.dialect.prelude().images;
        }
        t
    }
}

/// `nu_<f>_nu_idx` and `_nu_sidx` for the helpers of every integer type: the helper of the
/// program's index type.
fn index_aliases(u: &str, i: &str) -> String {
    let mut t = String::new();
    for f in [
        "div",
        "rem",
        "trips",
        "last",
        "some",
        "signum",
        "pow",
        "swap_bytes",
        "saturating_mul",
        "rem_euclid",
        "div_euclid",
        "clamp",
        "checked_add",
        "checked_sub",
        "checked_mul",
        "checked_div",
        "checked_rem",
        "checked_neg",
        "checked_abs",
        "saturating_abs",
        "checked_pow",
        "saturating_pow",
        "saturating_div",
        "checked_shl",
        "checked_shr",
        "checked_div_euclid",
        "checked_rem_euclid",
    ] {
        t += &format!("#define nu_{f}_nu_idx nu_{f}_{u}\n#define nu_{f}_nu_sidx nu_{f}_{i}\n");
    }
    for f in ["float", "double"] {
        t += &format!(
            "#define nu_sat_nu_idx_{f} nu_sat_{u}_{f}\n#define nu_sat_nu_sidx_{f} nu_sat_{i}_{f}\n"
        );
    }
    t += &format!(
        "#define nu_abs_nu_sidx nu_abs_{i}\n#define nu_unsigned_abs_nu_sidx nu_unsigned_abs_{i}\n"
    );
    t
}

/// Whether an identifier names a double-precision type or conversion.
fn is_double(id: &str) -> bool {
    id == "double"
        || id
            .strip_prefix("double")
            .is_some_and(|n| n.parse::<u8>().is_ok())
        || id.starts_with("as_double")
        || id.starts_with("convert_double")
}

/// The identifiers of C text, comments included (a name in a comment costs at most a
/// definition the program does not need).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// One definition of the prelude, and the names it defines (none: always kept).
struct Unit {
    names: Vec<String>,
    text: String,
}

/// The prelude's text cut into definitions. A definition starts on a line that begins in
/// the first column; indented lines, lines that start with `}` and the lines after one
/// ending in `\` continue it, and `#if` .. `#endif` is one definition.
fn units(text: &str) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    let (mut depth, mut continued) = (0usize, false);
    for line in text.lines() {
        let starts =
            depth == 0 && !continued && !line.starts_with([' ', '\t', '}']) && !line.is_empty();
        match out.last_mut() {
            Some(u) if !starts => {
                u.text += line;
                u.text.push('\n');
            }
            _ => out.push(Unit {
                names: Vec::new(),
                text: format!("{line}\n"),
            }),
        }
        let t = line.trim_start();
        if t.starts_with("#if") {
            depth += 1;
        } else if t.starts_with("#endif") {
            depth = depth.saturating_sub(1);
        }
        continued = line.ends_with('\\');
    }
    for u in &mut out {
        u.names = defined(&u.text);
    }
    out
}

/// The names a definition defines: macros, typedefs, functions and variables.
fn defined(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with([' ', '\t', '}'])) {
        if let Some(rest) = line.strip_prefix("#define ") {
            names.extend(identifiers(rest).next().map(str::to_string));
        } else if line.starts_with("typedef") {
            let end = line.rfind(';').unwrap_or(line.len());
            names.extend(identifiers(&line[..end]).last().map(str::to_string));
        } else if !line.starts_with('#') {
            // `T name(..) { ..`, `T name = ..;`: the identifier before the first `(` or `=`.
            let end = line.find(['(', '=']).unwrap_or(line.len());
            names.extend(identifiers(&line[..end]).last().map(str::to_string));
        }
    }
    names
}

/// The first fault of a launch claims the record (see `record.rs`); later ones leave it.
const FAULT: &str = "\
void nu_fault(global uint* e, uint site, uint detail, ulong i0, ulong i1, ulong i2, ulong d0, ulong d1, ulong d2) {
    if (atomic_cmpxchg((volatile global uint*)e, 0u, site + 1u) != 0u) return;
    e[1] = detail;
    e[2] = (uint)i0; e[3] = (uint)(i0 >> 32); e[4] = (uint)i1; e[5] = (uint)(i1 >> 32);
    e[6] = (uint)i2; e[7] = (uint)(i2 >> 32); e[8] = (uint)d0; e[9] = (uint)(d0 >> 32);
    e[10] = (uint)d1; e[11] = (uint)(d1 >> 32); e[12] = (uint)d2; e[13] = (uint)(d2 >> 32);
}
";

/// Private arrays, `[T; N]` values, are one-field structs (`kernel/private_array.rs`):
/// `NU_AT(a, k, ..)` is element `k` of `a`, checked at site `s`. Out of range it records the
/// fault and reads element 0 (a write checks with `nu_pin` and is skipped). `sizeof` does not
/// evaluate its operand, so `a` is evaluated once.
const PRIVATE_ARRAYS: &str = "\
int nu_pin(ulong k, ulong n, int c, uint s, global uint* e) {
    if (!c || k < n) return 1;
    nu_fault(e, s, 0u, k, 0, 0, n, 0, 0);
    return 0;
}
ulong nu_pidx(ulong k, ulong n, int c, uint s, global uint* e) { return nu_pin(k, n, c, s, e) ? k : 0; }
#define NU_PLEN(a) (sizeof((a).v) / sizeof((a).v[0]))
#define NU_AT(a, k, c, s, e) ((a).v[nu_pidx((ulong)(k), NU_PLEN(a), c, s, e)])
";

/// The work-item builtins as Rust (and the native engine) define them: past the NDRange's
/// dimensions, ids are 0 and sizes 1. OpenCL C says the same, but PoCL answers 0 for sizes,
/// and a dimension of 2^32 would wrap to 0 in the builtins' `uint`.
fn items() -> String {
    let each = [
        ("global_id", 0),
        ("local_id", 0),
        ("group_id", 0),
        ("global_size", 1),
        ("local_size", 1),
        ("num_groups", 1),
    ];
    each.iter()
        .map(|(n, past)| {
            format!("nu_idx nu_{n}(nu_idx d) {{ return d < get_work_dim() ? (nu_idx)get_{n}((uint)d) : (nu_idx){past}; }}\n")
        })
        .collect()
}

/// Atomics as the macros emit them, `nu_atomic_<op>_<type>(p, v)` on global memory and
/// `nu_latomic_<op>_<type>` on local memory (`nulocal!`), each returning the previous value
/// (see `nuda_runtime::Atomic`): OpenCL's own for 32-bit integers, a compare-and-swap loop on
/// the bits for `float` (OpenCL 1.2 has no float atomics but exchange), the `atom_*`
/// extensions for 64-bit integers (a launch that needs them on a device without them is
/// refused before the build, with a message that says so), and `nu_atomic_load_<type>`, an
/// atomic read of an element other work-items update atomically.
fn atomics() -> String {
    let mut s = String::new();
    for (space, n) in [("global", "nu_atomic"), ("local", "nu_latomic")] {
        s += &int_atomics(space, n, "int", "atomic");
        s += &int_atomics(space, n, "uint", "atomic");
        s += &float_atomics(space, n);
    }
    // Only programs with 64-bit atomics enable the extensions: each such helper names
    // `NU_INT64_ATOMICS` (in a comment), which pulls this definition in before it.
    s += "#ifndef NU_INT64_ATOMICS\n#define NU_INT64_ATOMICS\n\
          #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n\
          #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n#endif\n";
    for (space, n) in [("global", "nu_atomic"), ("local", "nu_latomic")] {
        for t in ["long", "ulong"] {
            s += &int_atomics(space, n, t, "atom").replace("}\n", "} /* NU_INT64_ATOMICS */\n");
        }
    }
    s
}

/// The atomics of integer type `t` in address space `space`, through OpenCL's `pre_<op>`.
fn int_atomics(space: &str, n: &str, t: &str, pre: &str) -> String {
    let mut s = String::new();
    for op in ["add", "sub", "min", "max", "and", "or", "xor", "xchg"] {
        s += &format!(
            "{t} {n}_{op}_{t}({space} {t}* p, {t} v) {{ return {pre}_{op}((volatile {space} {t}*)p, v); }}\n"
        );
    }
    s += &format!("{t} {n}_cmpxchg_{t}({space} {t}* p, {t} e, {t} x) {{ return {pre}_cmpxchg((volatile {space} {t}*)p, e, x); }}\n");
    // `or` with 0 changes nothing and returns the value: a load the memory model orders
    // with the other atomics, where a plain read would race with them.
    s += &format!("{t} {n}_load_{t}({space} {t}* p) {{ return {pre}_or((volatile {space} {t}*)p, ({t})0); }}\n");
    s
}

/// The float atomics in `space`: compare-and-swap loops on the bits. The loop starts from
/// the bits of 0.0, not a plain read of `*p`, which would race with the other work-items'
/// atomics: a wrong guess costs one failed exchange, which returns the true bits.
fn float_atomics(space: &str, n: &str) -> String {
    let mut s = String::new();
    for (op, expr) in [
        ("add", "o + v"),
        ("sub", "o - v"),
        ("min", "fmin(o, v)"),
        ("max", "fmax(o, v)"),
    ] {
        s += &format!(
            "float {n}_{op}_float({space} float* p, float v) {{ \
             volatile {space} uint* q = (volatile {space} uint*)p; uint seen = 0u, prev; \
             do {{ prev = seen; float o = as_float(prev); seen = atomic_cmpxchg(q, prev, as_uint({expr})); }} \
             while (seen != prev); return as_float(prev); }}\n"
        );
    }
    s += &format!("float {n}_xchg_float({space} float* p, float v) {{ return atomic_xchg((volatile {space} float*)p, v); }}\n");
    s += &format!("float {n}_cmpxchg_float({space} float* p, float e, float x) {{ return as_float(atomic_cmpxchg((volatile {space} uint*)p, as_uint(e), as_uint(x))); }}\n");
    s += &format!("float {n}_load_float({space} float* p) {{ return as_float(atomic_or((volatile {space} uint*)p, 0u)); }}\n");
    s
}

/// Image access as the macros emit it: `nu_read1(img, x, y)` reads a one-channel image
/// (the sampler clamps, so every read is in range); `nu_write1(img, w, h, x, y, v, check,
/// site, record)` writes one, skipping and recording coordinates outside the image, whose
/// write OpenCL leaves undefined.
/// OpenCL's image helpers, with the sampler they read through.
pub(crate) const OPENCL_IMAGES: &str = "\
__constant sampler_t nu_sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
#define nu_read1(nu_i, nu_x, nu_y) read_imagef(nu_i, nu_sampler, (int2)(nu_x, nu_y)).x
#ifndef nu_arr_float_4_declared
#define nu_arr_float_4_declared
typedef struct { float v[4]; } nu_arr_float_4;
#endif
nu_arr_float_4 nu_texel(float4 f) {
    nu_arr_float_4 t;
    t.v[0] = f.x; t.v[1] = f.y; t.v[2] = f.z; t.v[3] = f.w;
    return t;
}
#define nu_read4(nu_i, nu_x, nu_y) nu_texel(read_imagef(nu_i, nu_sampler, (int2)(nu_x, nu_y)))
/* the type of a texel of one channel or four: a read made once (the macros' `reads.rs`) */
#define nu_texel_t1 float
#define nu_texel_t4 nu_arr_float_4
int nu_inside(nu_idx w, nu_idx h, int x, int y, int c, uint s, global uint* e) {
    if (!c || (x >= 0 && y >= 0 && (nu_idx)x < w && (nu_idx)y < h)) return 1;
    nu_fault(e, s, 0u, (ulong)(long)x, (ulong)(long)y, 0, w, h, 0);
    return 0;
}
void nu_write1(write_only image2d_t i, nu_idx w, nu_idx h, int x, int y, float v, int c, uint s, global uint* e) {
    if (nu_inside(w, h, x, y, c, s, e)) write_imagef(i, (int2)(x, y), (float4)(v, 0.0f, 0.0f, 1.0f));
}
void nu_write4(write_only image2d_t i, nu_idx w, nu_idx h, int x, int y, nu_arr_float_4 v, int c, uint s, global uint* e) {
    if (nu_inside(w, h, x, y, c, s, e)) write_imagef(i, (int2)(x, y), (float4)(v.v[0], v.v[1], v.v[2], v.v[3]));
}
";

/// The image helpers in the C++ dialects (CUDA's, HIP's): a read-only image is a texture
/// object and a write-only one a surface object (`opencl_in_cxx.h`), of one float per texel
/// or four. Textures clamp at the edge with nearest, unnormalised lookups, as `nu_sampler`
/// does.
pub(crate) const CXX_IMAGES: &str = "\
#define nu_sampler 0
#define nu_read1(nu_i, nu_x, nu_y) tex2D<float>((nu_texture_object)(nu_i)->tex, (float)(nu_x) + 0.5f, (float)(nu_y) + 0.5f)
#ifndef nu_arr_float_4_declared
#define nu_arr_float_4_declared
typedef struct { float v[4]; } nu_arr_float_4;
#endif
nu_arr_float_4 nu_read4(image2d_t i, int x, int y) {
    nu_cxx_float4 f = tex2D<nu_cxx_float4>((nu_texture_object)i->tex, (float)x + 0.5f, (float)y + 0.5f);
    nu_arr_float_4 t;
    t.v[0] = f.x; t.v[1] = f.y; t.v[2] = f.z; t.v[3] = f.w;
    return t;
}
#define nu_texel_t1 float
#define nu_texel_t4 nu_arr_float_4
int nu_inside(nu_idx w, nu_idx h, int x, int y, int c, uint s, global uint* e) {
    if (!c || (x >= 0 && y >= 0 && (nu_idx)x < w && (nu_idx)y < h)) return 1;
    nu_fault(e, s, 0u, (ulong)(long)x, (ulong)(long)y, 0, w, h, 0);
    return 0;
}
void nu_write1(image2d_t i, nu_idx w, nu_idx h, int x, int y, float v, int c, uint s, global uint* e) {
    if (nu_inside(w, h, x, y, c, s, e)) surf2Dwrite(v, (nu_surface_object)i->surf, x * 4, y);
}
void nu_write4(image2d_t i, nu_idx w, nu_idx h, int x, int y, nu_arr_float_4 v, int c, uint s, global uint* e) {
    nu_cxx_float4 f;
    f.x = v.v[0]; f.y = v.v[1]; f.z = v.v[2]; f.w = v.v[3];
    if (nu_inside(w, h, x, y, c, s, e)) surf2Dwrite(f, (nu_surface_object)i->surf, x * 16, y);
}
";

#[cfg(test)]
mod tests {
    use super::*;

    fn prelude() -> Prelude {
        Prelude {
            index: IndexType::U32,
            images: true,
            cpu: true,
            dialect: &super::super::dialect::OPENCL_C,
            warps: None,
            rows: None,
        }
    }

    #[test]
    fn a_program_gets_what_it_names_and_what_that_needs() {
        let p = prelude().for_source_text(
            "kernel void k(global int* e) { int x = nu_div_int(1, 0, 1, 0u, e); }",
        );
        assert!(p.contains("int nu_div_int("), "{p}");
        assert!(p.contains("void nu_fault("), "the helper's callee: {p}");
        assert!(!p.contains("nu_rem_int"), "{p}");
        assert!(!p.contains("nu_atomic"), "{p}");
        let idx = prelude().for_source_text(
            "kernel void k() { nu_idx q = nu_trips_nu_idx(0, 1, 1, 0, 0, 0u, 0); }",
        );
        assert!(
            idx.contains("nu_idx nu_trips_uint("),
            "through the alias: {idx}"
        );
    }

    #[test]
    fn a_float_program_has_no_double() {
        let p = prelude().for_source_text(
            "kernel void k(global float* a) { a[0] = nu_signum_float(a[0]) + nu_clamp_float(a[1], 0.0f, 1.0f, 1, 0u, 0); }",
        );
        assert!(!identifiers(&p).any(is_double), "{p}");
        assert!(!p.contains("cl_khr_fp64"), "{p}");
        let d = prelude().for_source_text("kernel void k(global double* a) { a[0] = 1.0; }");
        assert!(
            d.starts_with("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"),
            "{d}"
        );
    }

    #[test]
    fn every_definition_has_a_name_or_is_shared() {
        let units = units(&prelude().full());
        let nameless: Vec<&str> = units
            .iter()
            .filter(|u| u.names.is_empty())
            .map(|u| u.text.as_str())
            .collect();
        for u in &nameless {
            let pragmas = u
                .lines()
                .all(|l| l.starts_with('#') && !l.starts_with("#define"));
            assert!(u.starts_with("/*") || pragmas, "{u}");
        }
        assert!(units.len() > 300, "{} definitions", units.len());
    }

    /// Every definition compiles, without a warning where `NUDA_CL_WERROR=1` (as in
    /// `scripts/test`): a program that names them all, in a comment, gets them all.
    #[test]
    fn the_whole_prelude_builds_on_the_opencl_device() {
        let Some(dev) = crate::device::devices()
            .into_iter()
            .find(|d| d.kind != crate::backend::DeviceKind::Native)
        else {
            assert_ne!(std::env::var("NUDA_REQUIRE_OPENCL").as_deref(), Ok("1"));
            return;
        };
        let every: Vec<String> = units(&prelude().full())
            .into_iter()
            .flat_map(|u| u.names)
            .collect();
        let text = format!("/* {} */\nkernel void every(global double* d, nu_idx n) {{ if (n > 0) d[0] = 1.0; }}\n", every.join(" "));
        // SAFETY: the kernel writes element 0 of its one argument, an array of one element.
        let src = unsafe { crate::launch::KernelSource::new(Box::leak(text.into_boxed_str())) };
        let mut d = crate::array::NuArray1::<f64>::new(1);
        let dev = crate::device::device(dev.index).unwrap();
        let run = crate::launch::Launch::new(&src, "every")
            .on(&dev)
            .global([1])
            .array_mut(&mut d)
            .run();
        run.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d[0], 1.0);
    }
}
