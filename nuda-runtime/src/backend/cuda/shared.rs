//! Shared memory past 48 KiB (layer 1, the CUDA backend, a step of the dialect): a CUDA
//! kernel may declare at most 48 KiB of `__shared__` storage statically, while an sm_90 block
//! may use 227 KiB once the launch opts in to dynamic shared memory. A staged GEMM with
//! double-buffered 128-wide slices needs more than 48 KiB, so when a kernel's top-level
//! `__shared__` arrays of known element size add up to more, they move to the start of the
//! kernel's one `extern __shared__` buffer, each at a constant offset, and the launch puts
//! the `local` parameters' offsets after them (`launch.rs`). Below the limit nothing moves:
//! a static array's address is a constant, which the compiler folds.

/// The static shared memory a CUDA kernel may declare.
pub(crate) const STATIC_LIMIT: usize = 48 << 10;

/// A kernel body with its shared arrays moved, and the bytes they take.
pub(crate) struct Moved {
    pub body: String,
    pub bytes: usize,
}

/// `body` (between a kernel's braces) with its top-level `__shared__ T name[N];` lines made
/// pointers into `nu_smem`, if together they exceed `STATIC_LIMIT`; `None` otherwise.
pub(crate) fn moved(body: &str) -> Option<Moved> {
    let arrays = top_level_arrays(body);
    let total = arrays
        .iter()
        .fold(0usize, |at, a| at.next_multiple_of(a.align) + a.bytes);
    if total <= STATIC_LIMIT {
        return None;
    }
    let mut out = String::with_capacity(body.len());
    let (mut offset, mut next) = (0usize, arrays.iter().peekable());
    for (n, line) in body.split_inclusive('\n').enumerate() {
        match next.next_if(|a| a.line == n) {
            Some(a) => {
                offset = offset.next_multiple_of(a.align);
                out += &format!(
                    "{}{}* restrict {} = ({}*)(nu_smem + {offset});\n",
                    a.indent, a.ty, a.name, a.ty
                );
                offset += a.bytes;
            }
            None => out += line,
        }
    }
    Some(Moved {
        body: out,
        bytes: total,
    })
}

/// A `__shared__` array declared at the top of a kernel's body.
struct Array<'a> {
    line: usize,
    indent: &'a str,
    ty: &'a str,
    name: &'a str,
    bytes: usize,
    /// Its element's alignment (a vector's is its size), 16 bytes at least.
    align: usize,
}

/// The body's top-level shared arrays whose element size the dialect knows.
fn top_level_arrays(body: &str) -> Vec<Array<'_>> {
    let mut depth = 0i32;
    let mut out = Vec::new();
    for (n, line) in body.split_inclusive('\n').enumerate() {
        if depth == 0 {
            out.extend(array(n, line));
        }
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
    }
    out
}

/// `line` as `__shared__ T name[N];`, with `T`'s size known.
fn array(n: usize, line: &str) -> Option<Array<'_>> {
    let t = line.trim_start();
    let indent = &line[..line.len() - t.len()];
    let decl = t.strip_prefix("__shared__ ")?;
    let decl = decl.strip_prefix("__align__(16) ").unwrap_or(decl);
    let decl = decl.trim_end().strip_suffix("];")?;
    let (head, count) = decl.split_once('[')?;
    let (ty, name) = head.trim().rsplit_once(' ')?;
    let count: usize = count.trim().parse().ok()?;
    let size = element_size(ty.trim())?;
    let bytes = size * count;
    let name = name.trim();
    let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (word(name) && word(ty.trim())).then_some(Array {
        line: n,
        indent,
        ty: ty.trim(),
        name,
        bytes,
        align: size.next_power_of_two().clamp(16, 128),
    })
}

/// The bytes of a scalar or vector type of nuda's C; `None` for any other (a struct's
/// arrays stay static, and a kernel past the limit with them fails to build, saying so).
fn element_size(ty: &str) -> Option<usize> {
    let scalar = |s: &str| match s {
        "char" | "uchar" | "bool" => Some(1),
        "short" | "ushort" | "half" => Some(2),
        "int" | "uint" | "float" => Some(4),
        "long" | "ulong" | "double" | "nu_word" | "nu_sword" => Some(8),
        _ => None,
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_within_48_kib_stay_static() {
        let body = "\n    __shared__ float a[8192];\n    __shared__ float b[4096];\n";
        assert!(moved(body).is_none());
    }

    #[test]
    fn arrays_past_48_kib_move_to_constant_offsets() {
        let body = "\n    __shared__ __align__(16) float a[8192];\n    nu_idx a_o0 = 0;\n    __shared__ float4 b[1025];\n    {\n    __shared__ float c[4];\n    }\n";
        let m = moved(body).expect("moved");
        assert_eq!(m.bytes, 32768 + 16400);
        let doubles =
            moved("\n    __shared__ float a[3];\n    __shared__ double4 b[2048];\n").unwrap();
        assert!(doubles.body.contains("(nu_smem + 32);"), "{}", doubles.body);
        assert!(
            m.body
                .contains("    float* restrict a = (float*)(nu_smem + 0);\n"),
            "{}",
            m.body
        );
        assert!(
            m.body
                .contains("    float4* restrict b = (float4*)(nu_smem + 32768);\n"),
            "{}",
            m.body
        );
        assert!(m.body.contains("nu_idx a_o0 = 0;"));
        // Not at the body's top level: left as it is.
        assert!(m.body.contains("    __shared__ float c[4];"), "{}", m.body);
    }

    #[test]
    fn element_sizes_of_scalars_and_vectors() {
        assert_eq!(element_size("double"), Some(8));
        assert_eq!(element_size("uchar16"), Some(16));
        assert_eq!(element_size("float3"), Some(16));
        assert_eq!(element_size("nus_point"), None);
    }
}
