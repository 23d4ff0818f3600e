//! Random barrier kernels for `tests/random_barriers.rs` (issue 31): a `#[nukernel]` whose
//! work-items exchange values through a `nulocal!` array in phases separated by barriers, at
//! shifting indices, with barriers inside uniform loops and branches, a tree reduction, an
//! early `return` of whole groups before any barrier, and a `return` of some work-items
//! after the last one. The test runs each on PoCL and on the native engine (split at its
//! barriers) and compares them; all are race-free, so the results must be equal.

use super::rng::Rng;
use std::fmt::Write;

/// Work-items per group (a power of two, for the tree).
const GROUP: usize = 8;

/// One phase: it starts with a barrier (the last phase's reads are done) and leaves each
/// work-item's value in `acc`.
fn phase(r: &mut Rng, out: &mut String) {
    let (c, d, m) = (1 + r.pick(GROUP - 1), r.pick(GROUP), 1 + r.pick(3));
    let text = match r.pick(6) {
        0 => format!(
            "barrier();\n    t[(l + {c}) % G] = acc + {m};\n    barrier();\n    acc = acc * {m} + t[(l + {d}) % G];\n"
        ),
        1 => format!(
            "for it in 0..r {{\n        barrier();\n        t[l] = acc + it as i32;\n        barrier();\n        acc += t[(l + {c}) % G];\n    }}\n"
        ),
        2 => format!(
            "if p > {k} {{\n        barrier();\n        t[G - 1 - l] = acc;\n        barrier();\n        acc ^= t[(l + {d}) % G];\n    }} else {{\n        acc += {m};\n    }}\n",
            k = r.pick(7) as i32 - 3
        ),
        3 => "barrier();\n    t[l] = acc;\n    barrier();\n    let mut s = G / 2;\n    while s > 0 {\n        if l < s {\n            t[l] = t[l] + t[l + s];\n        }\n        barrier();\n        s /= 2;\n    }\n    acc += t[0];\n".to_string(),
        4 => format!(
            "barrier();\n    if l % 2 == 0 {{\n        t[l] = acc;\n    }} else {{\n        t[l] = -acc;\n    }}\n    barrier();\n    acc = acc * {m} + t[(l + {c}) % G];\n"
        ),
        _ => format!(
            "let mut k = 0;\n    while k < r {{\n        barrier();\n        t[(l + k + {c}) % G] = acc;\n        barrier();\n        acc = acc - t[(l + {d}) % G];\n        k += 1;\n    }}\n"
        ),
    };
    out.push_str("    ");
    out.push_str(&text);
}

/// Kernel `k`: its text, then the table entry that launches it.
fn kernel(r: &mut Rng, k: usize) -> (String, String) {
    let mut body = String::new();
    // PoCL's kernel compiler replicates the code after each conditional barrier region
    // (an early `return` is one): a kernel with an early return keeps to two phases and no
    // late return, or PoCL takes minutes to compile it.
    let early = r.pick(2) == 0;
    if early {
        body.push_str("    if group_id(0) == q {\n        out[g] = -1;\n        return;\n    }\n");
    }
    for _ in 0..(if early { 1 + r.pick(2) } else { 2 + r.pick(3) }) {
        phase(r, &mut body);
    }
    if !early && r.pick(2) == 0 {
        let _ = writeln!(
            body,
            "    if l == {} {{\n        return;\n    }}",
            r.pick(GROUP)
        );
    }
    body.push_str("    out[g] = acc;\n");
    let text = format!(
        "#[nukernel]\n#[allow(unused_variables)]\nfn barriers{k}(out: &mut NuArray1<i32>, a: &NuArray1<i32>, p: i32, r: usize, q: usize) {{\n    let t = nulocal!(i32, G);\n    let l = local_id(0);\n    let g = global_id(0);\n    let mut acc = a[g];\n{body}}}\n"
    );
    let entry = format!(
        "    Case {{ text: {text:?}, form: barriers{k}::__NUDA_NATIVE_FORM, run: |d, o, a, p, r, q| nucall!(d, [N], [G]; barriers{k}(o, a, p, r, q)) }},\n"
    );
    (text, entry)
}

/// The test's generated part: `G`, `N`, the kernels and `KERNELS`.
pub fn file(seed: u64) -> String {
    let mut r = Rng(seed);
    let mut out = format!(
        "const BARRIER_SEED: u64 = {seed};\nconst G: usize = {GROUP};\nconst N: usize = {};\n\n",
        GROUP * 3
    );
    let mut table = String::from("const KERNELS: &[Case] = &[\n");
    for k in 0..10 {
        let (text, entry) = kernel(&mut r, k);
        out.push_str(&text);
        out.push('\n');
        table.push_str(&entry);
    }
    table.push_str("];\n");
    out + &table
}
