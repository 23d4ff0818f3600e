//! OpenCL C names for Rust variables. A name is never reused within one C function: Rust
//! shadowing (`let x = x + 1;`) would otherwise declare `x` twice in one scope, or refer to
//! the new `x` in its own initialiser, which C scopes from the declarator on.

use std::collections::HashSet;
use syn::Ident;

/// Words a Rust identifier may be but a C name may not, in OpenCL C or in the CUDA dialect:
/// OpenCL C 1.2's keywords (C99's and its own, with their `__` forms caught by the `__`
/// rule), C++'s keywords and CUDA's built-in names, OpenCL's types and
/// reserved type names, its macros, and the builtin functions generated code calls. The
/// builtins of `crate::base::ir::builtins` and the vector types (`float4`, `uchar16`, ..) are
/// reserved too, by rule (see [`reserved`]).
const RESERVED: &[&str] = &[
    // C99 keywords.
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    // OpenCL C qualifiers and keywords.
    "global",
    "local",
    "constant",
    "private",
    "kernel",
    "read_only",
    "write_only",
    "read_write",
    "uniform",
    "pipe",
    "complex",
    "imaginary",
    // C++'s keywords and alternative tokens, which NVRTC compiles the CUDA dialect as.
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "bitand",
    "bitor",
    "catch",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "delete",
    "dynamic_cast",
    "explicit",
    "export",
    "friend",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "protected",
    "public",
    "reinterpret_cast",
    "requires",
    "static_assert",
    "static_cast",
    "template",
    "this",
    "thread_local",
    "throw",
    "try",
    "typeid",
    "typename",
    "using",
    "virtual",
    "wchar_t",
    "xor",
    "xor_eq",
    "final",
    "override",
    // CUDA's built-in variables and types, and the C functions its dialect header calls.
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "dim3",
    "memcpy",
    "memset",
    // Types and reserved type names.
    "bool",
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "half",
    "quad",
    "size_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "image1d_t",
    "image1d_array_t",
    "image1d_buffer_t",
    "image2d_t",
    "image2d_array_t",
    "image3d_t",
    "sampler_t",
    "event_t",
    "true",
    "false",
    "NULL",
    // Builtin functions generated code calls, and common ones a name could hide.
    "abs",
    "abs_diff",
    "acos",
    "add_sat",
    "all",
    "any",
    "as_float",
    "asin",
    "atan",
    "atan2",
    "barrier",
    "bitselect",
    "ceil",
    "clamp",
    "clz",
    "convert",
    "copysign",
    "cos",
    "cosh",
    "cross",
    "degrees",
    "distance",
    "dot",
    "exp",
    "exp2",
    "fabs",
    "floor",
    "fma",
    "fmax",
    "fmin",
    "fmod",
    "hypot",
    "isinf",
    "isnan",
    "length",
    "log",
    "log10",
    "log2",
    "mad",
    "max",
    "min",
    "mix",
    "mul_hi",
    "nan",
    "normalize",
    "popcount",
    "pow",
    "pown",
    "radians",
    "rotate",
    "round",
    "rsqrt",
    "select",
    "sincos",
    "sign",
    "sin",
    "sinh",
    "smoothstep",
    "sqrt",
    "step",
    "sub_sat",
    "tan",
    "tanh",
    "trunc",
    "vec_step",
    "vload",
    "vstore",
    "cbrt",
    "upsample",
];

/// Whether `name` may not be a C name: a reserved word, a vector type, a builtin the
/// kernel language spells in C, or a name a C header may define as a macro.
pub fn reserved(name: &str) -> bool {
    RESERVED.contains(&name) || vector_type(name) || builtin_spelling(name) || macro_like(name)
}

/// A name without a lower-case letter (`M_PI`, `INT_MAX`, `NAN`, `MAXFLOAT`, `N`): OpenCL C's
/// headers, the device compilers' own and CUDA's define hundreds of such macros, and the list
/// differs between compilers and versions (PoCL's `opencl-c.h`, NVRTC's built-ins), so every
/// such name is escaped rather than a list of them.
fn macro_like(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_ascii_lowercase())
}

/// `float4`, `uchar16`, `double3`, ..: OpenCL C's vector types.
fn vector_type(name: &str) -> bool {
    let scalars = [
        "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double",
        "half", "bool", "size_t",
    ];
    scalars.iter().any(|s| {
        name.strip_prefix(s)
            .is_some_and(|n| ["2", "3", "4", "8", "16"].contains(&n))
    })
}

/// A C function the kernel language's builtins call (`crate::base::ir::builtins`).
fn builtin_spelling(name: &str) -> bool {
    use crate::base::ir::builtins::{ClMethod, BUILTIN_FNS, METHODS};
    let head = |cl: &str| cl.split('(').next().unwrap_or("").trim().to_string();
    METHODS
        .iter()
        .any(|m| matches!(m.cl, ClMethod::Call(f) if f == name))
        || BUILTIN_FNS.iter().any(|f| head(f.cl) == name)
}

/// Scoped Rust-to-C name map.
#[derive(Default)]
pub struct Names {
    scopes: Vec<Vec<(String, String)>>,
    used: HashSet<String>,
}

/// A Rust identifier made safe as a C identifier stem.
pub fn sanitize(rust: &str) -> String {
    let rust = rust.trim_start_matches("r#");
    if reserved(rust) || rust.contains("__") || rust.starts_with("nu_") || rust.starts_with('_') {
        format!("v_{}", rust.trim_start_matches('_'))
    } else {
        rust.to_string()
    }
}

impl Names {
    /// Marks a C name as taken (captured parameters, generated temporaries).
    pub fn reserve(&mut self, c: &str) {
        self.used.insert(c.to_string());
    }

    /// Opens a scope.
    pub fn push(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// Closes a scope.
    pub fn pop(&mut self) {
        self.scopes.pop();
    }

    /// Declares a Rust variable in the current scope and returns its fresh C name.
    pub fn declare(&mut self, rust: &Ident) -> String {
        let c = self.fresh(&sanitize(&rust.to_string()));
        if self.scopes.is_empty() {
            self.push();
        }
        if let Some(s) = self.scopes.last_mut() {
            s.push((rust.to_string(), c.clone()));
        }
        c
    }

    /// A C name starting with `stem` that is not taken yet.
    pub fn fresh(&mut self, stem: &str) -> String {
        let mut c = stem.to_string();
        let mut k = 1;
        while self.used.contains(&c) {
            c = format!("{stem}_{k}");
            k += 1;
        }
        self.used.insert(c.clone());
        c
    }

    /// The number of open scopes.
    pub fn depth(&self) -> usize {
        self.scopes.len()
    }

    /// Whether the Rust variable in scope named `rust` was declared in scope `depth` or an
    /// inner one (scopes count from 1, outermost first).
    pub fn declared_from(&self, rust: &Ident, depth: usize) -> bool {
        let key = rust.to_string();
        let at = self
            .scopes
            .iter()
            .rposition(|s| s.iter().any(|(r, _)| *r == key));
        at.is_some_and(|i| i + 1 >= depth)
    }

    /// The C name of a Rust variable in scope.
    pub fn lookup(&self, rust: &Ident) -> Option<String> {
        let key = rust.to_string();
        self.scopes.iter().rev().find_map(|s| {
            s.iter()
                .rev()
                .find(|(r, _)| *r == key)
                .map(|(_, c)| c.clone())
        })
    }
}
