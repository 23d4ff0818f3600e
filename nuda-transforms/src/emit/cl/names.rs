//! OpenCL C names for Rust variables. A name is never reused within one C function: Rust
//! shadowing (`let x = x + 1;`) would otherwise declare `x` twice in one scope, or refer to
//! the new `x` in its own initialiser, which C scopes from the declarator on.

use std::collections::HashSet;
use syn::Ident;

/// Words a Rust identifier may be but an OpenCL C name may not: keywords, types, qualifiers,
/// and builtin functions a kernel might call.
const RESERVED: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "constant",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "global",
    "goto",
    "half",
    "if",
    "image2d_t",
    "image3d_t",
    "inline",
    "int",
    "kernel",
    "local",
    "long",
    "private",
    "read_only",
    "read_write",
    "register",
    "restrict",
    "return",
    "sampler_t",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "uchar",
    "uint",
    "ulong",
    "union",
    "unsigned",
    "ushort",
    "void",
    "volatile",
    "while",
    "write_only",
    "size_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "event_t",
    "true",
    "false",
    "abs",
    "acos",
    "asin",
    "atan",
    "ceil",
    "clamp",
    "clz",
    "cos",
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
    "length",
    "log",
    "log2",
    "mad",
    "max",
    "min",
    "mix",
    "normalize",
    "popcount",
    "pow",
    "pown",
    "radians",
    "rotate",
    "round",
    "rsqrt",
    "select",
    "sign",
    "sin",
    "smoothstep",
    "sqrt",
    "step",
    "tan",
    "barrier",
    "convert",
    "float2",
    "float3",
    "float4",
    "float8",
    "float16",
    "int2",
    "int4",
    "vec_step",
    "as_float",
];

/// Scoped Rust-to-C name map.
#[derive(Default)]
pub struct Names {
    scopes: Vec<Vec<(String, String)>>,
    used: HashSet<String>,
}

/// A Rust identifier made safe as a C identifier stem.
pub fn sanitize(rust: &str) -> String {
    let rust = rust.trim_start_matches("r#");
    if RESERVED.contains(&rust)
        || rust.contains("__")
        || rust.starts_with("nu_")
        || rust.starts_with('_')
    {
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
