//! The CUDA dialect (layer 1, the CUDA backend): a program's OpenCL C, as the macros, the
//! prelude (`backend/c`, asked for its CUDA parts) and hand-written kernels write it, made
//! CUDA C++ for NVRTC.
//!
//! Most of OpenCL C maps through the header `opencl_in_cuda.cuh` (address spaces, work-item
//! builtins, barriers, atomics, conversions, the integer builtins, vector types and their
//! math). What a header cannot reach is rewritten here:
//! - a `local T* p` kernel parameter becomes `uint p__nu_off`, an offset into the kernel's one
//!   `extern __shared__` buffer, and `p` a pointer computed from it; the launch passes each
//!   local argument's offset and the buffer's total size (`launch.rs`);
//! - a `local` declaration in a function body becomes `__shared__`;
//! - a vector literal `(float4)(a, b, c, d)`, which C++ would read as a comma expression,
//!   becomes `nu_make<float4>(a, b, c, d)`;
//! - the prelude's byte swaps through `as_uchar8(x).s76543210` become `nu_bswap(x)`;
//! - `#pragma OPENCL` lines go (NVRTC's `--fmad=false` stands for `FP_CONTRACT OFF`);
//! - a kernel's top-level `local` arrays past 48 KiB move into the dynamic buffer
//!   (`shared.rs`), and the launch learns how many bytes they take from `Translated::moved`.

use super::shared;
use std::collections::HashMap;

/// A program in CUDA C++, and per kernel the bytes of shared memory moved to the start of
/// its dynamic buffer (absent: none).
pub(crate) struct Translated {
    pub text: String,
    pub moved: HashMap<String, usize>,
}

/// The header every CUDA program starts with.
const HEADER: &str = include_str!("opencl_in_cuda.cuh");

/// Vector element types and widths OpenCL C names (`float4`, `uchar8`, ..).
const VECTOR_ELEMENTS: [&str; 10] = [
    "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double",
];
const VECTOR_WIDTHS: [&str; 5] = ["2", "3", "4", "8", "16"];

/// `text`, a whole program in OpenCL C (prelude included), in CUDA C++. A hand-written
/// program's multi-lane swizzles (`.zyxw`, `.s10`) become calls too; generated code has none,
/// and there a field may be named `xy`.
pub(crate) fn translate(text: &str, hand_written: bool) -> Translated {
    let mut moved = HashMap::new();
    let mut out = String::with_capacity(HEADER.len() + text.len() * 11 / 10);
    out += &HEADER.replacen("// @vector-types", &vector_names(), 1);
    let body: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("#pragma OPENCL"))
        .map(shared_declaration)
        .collect::<Vec<_>>()
        .join("\n");
    let body = qualifiers(&kernels(&vector_literals(&byte_swaps(&body)), &mut moved));
    out += &if hand_written { swizzles(&body) } else { body };
    out.push('\n');
    Translated { text: out, moved }
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

/// OpenCL's qualifiers in CUDA, word by word: `kernel` is `extern "C" __global__`, a
/// file-scope `constant` is `__constant__ const`, and the other address spaces go (CUDA
/// pointers are generic; `local` storage was made `__shared__` already). A `constant` that
/// starts a line inside parentheses is a parameter's, of a signature written over lines.
fn qualifiers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let bytes = text.as_bytes();
    let (mut k, mut depth) = (0, 0i32);
    while k < text.len() {
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        if !word(bytes[k]) || (k > 0 && word(bytes[k - 1])) {
            depth += i32::from(bytes[k] == b'(') - i32::from(bytes[k] == b')');
            let next = text[k..]
                .char_indices()
                .nth(1)
                .map_or(text.len(), |(n, _)| k + n);
            out += &text[k..next];
            k = next;
            continue;
        }
        let end = text[k..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(text.len(), |e| k + e);
        let line_start = starts_line(text, k);
        match (&text[k..end], line_start) {
            ("kernel" | "__kernel", true) => out += "extern \"C\" __global__",
            ("constant" | "__constant", true) if depth == 0 => out += "__constant__ const",
            (
                "global" | "__global" | "local" | "__local" | "constant" | "__constant" | "private"
                | "__private",
                _,
            ) => {
                // The qualifier and the space after it.
                if text[end..].starts_with(' ') {
                    k = end + 1;
                    continue;
                }
            }
            (w, _) => out += w,
        }
        k = end;
    }
    out
}

/// A line declaring `local` storage inside a function body, made `__shared__`.
fn shared_declaration(line: &str) -> String {
    let t = line.trim_start();
    if line.len() > t.len() && t.starts_with("local ") {
        let indent = &line[..line.len() - t.len()];
        // Aligned for the 128-bit accesses of staged copies (`nu_copy4`) and vector reads.
        return format!("{indent}__shared__ __align__(16) {}", &t["local ".len()..]);
    }
    line.to_string()
}

/// The prelude's byte swaps, whose OpenCL form reads a vector's lanes in reverse.
fn byte_swaps(text: &str) -> String {
    let mut t = text.to_string();
    for (v, lanes) in [("2", "s10"), ("4", "s3210"), ("8", "s76543210")] {
        for ty in ["short", "ushort", "int", "uint", "long", "ulong"] {
            t = t.replace(&format!("as_{ty}(as_uchar{v}(x).{lanes})"), "nu_bswap(x)");
        }
    }
    t
}

/// `(float4)(a, b)` and `(float4)(a)`, OpenCL's vector literals, as calls of `nu_make`.
fn vector_literals(text: &str) -> String {
    if !text.contains(")(") {
        return text.to_string();
    }
    let mut t = text.to_string();
    for e in VECTOR_ELEMENTS {
        for w in VECTOR_WIDTHS {
            t = t.replace(&format!("({e}{w})("), &format!("nu_make<{e}{w}>("));
        }
    }
    t
}

/// Every kernel's signature with its `local` pointer parameters made offsets into the
/// dynamic shared buffer, and its body with large shared arrays moved there (noted in
/// `moved`).
fn kernels(text: &str, moved: &mut HashMap<String, usize>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = find_kernel(rest) {
        let (before, from) = rest.split_at(k);
        out += before;
        match rewrite_kernel(from) {
            Some(k) => {
                out += &k.text;
                rest = &from[k.used..];
                if k.moved > 0 {
                    moved.insert(k.name, k.moved);
                }
            }
            None => {
                // Not a kernel definition: the qualifier word passes through as it is.
                let word = from.find(' ').unwrap_or(from.len());
                out += &from[..word];
                rest = &from[word..];
            }
        }
    }
    out + rest
}

/// Where the next `kernel` qualifier starts a line (after any indentation).
fn find_kernel(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = text[from..].find("kernel ") {
        let at = from + k;
        if starts_line(text, at) {
            return Some(at);
        }
        if at >= 2 && &text[at - 2..at] == "__" && starts_line(text, at - 2) {
            return Some(at - 2);
        }
        from = at + 1;
    }
    None
}

/// Whether only spaces and tabs come before `at` on its line.
fn starts_line(text: &str, at: usize) -> bool {
    let line = text[..at].rfind('\n').map_or(0, |n| n + 1);
    text[line..at].chars().all(|c| c == ' ' || c == '\t')
}

/// `.zyxw` and `.s3210`, OpenCL's swizzles of several lanes, as `.swz<2, 1, 0, 3>()`.
fn swizzles(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dot) = rest.find('.') {
        out += &rest[..=dot];
        rest = &rest[dot + 1..];
        let end = rest
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        if let Some(l) = lanes(&rest[..end]) {
            out += &format!("swz<{l}>()");
            rest = &rest[end..];
        }
    }
    out + rest
}

/// The lane numbers a swizzle word names, if it is one of two lanes or more.
fn lanes(word: &str) -> Option<String> {
    let digits: Vec<u32> = match word.strip_prefix('s') {
        Some(hex) if hex.len() >= 2 => {
            hex.chars().map(|c| c.to_digit(16)).collect::<Option<_>>()?
        }
        _ if (2..=4).contains(&word.len()) => word
            .chars()
            .map(|c| "xyzw".find(c).map(|k| k as u32))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    Some(
        digits
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// A kernel rewritten: its text, how many bytes of the source it took, its name and the
/// shared bytes moved into its dynamic buffer.
struct Kernel {
    text: String,
    used: usize,
    name: String,
    moved: usize,
}

/// A kernel definition, `kernel void [attributes] name(..) {`, rewritten through its
/// opening brace, or through its closing brace where shared arrays moved; `None` if `from`
/// does not start one.
fn rewrite_kernel(from: &str) -> Option<Kernel> {
    let (name, open) = kernel_name(from)?;
    let close = matching(from, open)?;
    let brace = close + from[close..].find('{')?;
    if !from[close + 1..brace].trim().is_empty() {
        return None;
    }
    let end = matching(from, brace);
    let moved = end.and_then(|end| shared::moved(&from[brace + 1..end]));
    let mut params = Vec::new();
    let mut setup = String::new();
    for p in split_params(&from[open + 1..close]) {
        match local_param(p) {
            Some((ty, name)) => {
                params.push(format!("uint {name}__nu_off"));
                setup +=
                    &format!("\n    {ty}* restrict {name} = ({ty}*)(nu_smem + {name}__nu_off);");
            }
            None => params.push(p.trim().to_string()),
        }
    }
    let shared = if setup.is_empty() && moved.is_none() {
        String::new()
    } else {
        format!("\n    extern __shared__ __align__(128) uchar nu_smem[];{setup}")
    };
    let head = format!("{}({}) {{{shared}", &from[..open], params.join(", "));
    Some(match (moved, end) {
        (Some(m), Some(end)) => Kernel {
            text: format!("{head}{}}}", m.body),
            used: end + 1,
            name: name.to_string(),
            moved: m.bytes,
        },
        _ => Kernel {
            text: head,
            used: brace + 1,
            name: name.to_string(),
            moved: 0,
        },
    })
}

/// The kernel's name and where its parameter list opens: the first word followed by `(`
/// that is not an attribute (`__attribute__((..))`, `__launch_bounds__(..)`, any word
/// starting `__`, or the prelude's `NU_GROUP(..)`), whose parentheses are skipped. A kernel
/// may be named in capitals (`SGEMM`).
fn kernel_name(from: &str) -> Option<(&str, usize)> {
    let mut k = 0;
    loop {
        let start = k + from[k..].find(|c: char| c.is_ascii_alphabetic() || c == '_')?;
        if from[k..start].contains(['(', ')', '{', ';']) {
            return None;
        }
        let end = start
            + from[start..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(from.len() - start);
        let word = &from[start..end];
        let after = end + from[end..].len() - from[end..].trim_start().len();
        if !from[after..].starts_with('(') {
            k = end;
            continue;
        }
        let attribute = word.starts_with("__") || word == "NU_GROUP";
        if !attribute {
            return Some((word, after));
        }
        k = matching(from, after)? + 1;
    }
}

/// The index of the bracket closing the `(` or `{` at `open`.
fn matching(text: &str, open: usize) -> Option<usize> {
    let (o, c) = match text[open..].chars().next()? {
        '{' => ('{', '}'),
        _ => ('(', ')'),
    };
    let mut depth = 0usize;
    for (k, ch) in text[open..].char_indices() {
        if ch == o {
            depth += 1;
        } else if ch == c {
            depth -= 1;
            if depth == 0 {
                return Some(open + k);
            }
        }
    }
    None
}

/// A parameter list split at its top-level commas.
fn split_params(list: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (k, c) in list.char_indices() {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&list[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    if !list[start..].trim().is_empty() {
        out.push(&list[start..]);
    }
    out
}

/// `local T* restrict name` (or `__local`, with or without `restrict`): its `T` and name.
fn local_param(p: &str) -> Option<(String, String)> {
    let t = p.trim();
    let rest = t
        .strip_prefix("local ")
        .or_else(|| t.strip_prefix("__local "))?;
    let star = rest.rfind('*')?;
    let ty = rest[..star].trim().to_string();
    let name = rest[star + 1..]
        .trim()
        .trim_start_matches("restrict")
        .trim()
        .to_string();
    Some((ty, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translate_text(text: &str, hand_written: bool) -> String {
        translate(text, hand_written).text
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
            "kernel void f(global float* a, local float* t) {\n    local float s[16384];\n    s[0] = a[0];\n}\n",
            false,
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
            cu.contains("__global__ void f(float* c, float* a) {}"),
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
}
