//! Kernel templates: OpenCL C text fixed at compile time, with placeholders for what only rustc
//! knows (types) and the runtime decides. The placeholder format, its writer ([`Ph`]) and its
//! reader live in `nuda_abi::placeholder`, which the runtime reads with too; this module adds
//! the snapshot tests' rendering. Layer: emitters.

pub use nuda_abi::placeholder::Ph;
use nuda_abi::placeholder::{replace, Placeholder};

/// Renders a template with every fill a placeholder name, for snapshot tests: `T3` becomes
/// `$T3`, `P5:a` becomes `$P5(a)`, an operation `O2:add` on `x` and `y` becomes
/// `$O2(add)[x, y]`, and `NU_C` followed by `Q3` becomes `NU_C$Q3`.
pub fn render_for_test(template: &str) -> String {
    // Dialect marks as OpenCL C, the text the emitter wrote before marks existed.
    replace(&nuda_abi::dialect::to_opencl(template), &mut render_one)
}

fn render_one(p: &Placeholder<'_>) -> String {
    let mut s = format!("${}{}", p.slot.letter(), p.index);
    if !p.arg.is_empty() {
        s += &format!("({})", p.arg);
    }
    if !p.operands.is_empty() {
        let operands: Vec<String> = p.operands.iter().map(|o| render_for_test(o)).collect();
        s += &format!("[{}]", operands.join(", "));
    }
    s
}
