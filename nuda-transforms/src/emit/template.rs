//! Kernel templates: OpenCL C text fixed at compile time, with placeholders for what only rustc
//! knows (types) and the runtime decides (parameter declarations of captured values, the names
//! of `#[nucode]` functions in one program).
//!
//! A placeholder is `\x01`, a kind letter, an index, optional `:`-separated arguments, `\x02`.
//! The runtime (`nuda_runtime::__private::template`) parses exactly this format:
//!
//! | form | replaced by |
//! |---|---|
//! | `T<i>` | the OpenCL C type of fill `i` (a type slot) |
//! | `L<i>:<digits>` | a literal of that type: `2.0f`, `2.0`, `2u`, `((char)2)` |
//! | `Z0:<type>:<digits>` | a literal of a written type (`5u64`) |
//! | `F<i>:<op>` | the spelling of function `op` for that type: `min` is `fmin` for floats |
//! | `O<i>:<op>` `\x03`-separated operands | operation `op` on values of that type, with Rust's semantics (wrapping, masked shifts, checked division, saturating casts `to:<type>`); the operands may hold placeholders |
//! | `E<i>` | the element type of captured array `i` |
//! | `Q<k>` | the program-wide number of check site `k` (functions' sites follow the kernel's) |
//! | `P<i>:<name>` | the parameter declaration of capture `i` (array pointer plus dims, image, scalar) |
//! | `N<i>:<name>` | the element count of captured array `i` |
//! | `C<i>` | the channel count of captured image `i` |
//! | `D<i>:<name>` | the elements of captured array `i` to index: `name`, or `name.v` for a captured `[T; N]` |
//! | `X<k>` | the OpenCL C name of the program's `k`-th called `#[nucode]` function |
//! | `S0` | this `#[nucode]` function's own OpenCL C name |
//! | `V<i>` | the value of fill `i`, a constant a `#[nucode]` function names, as an exact literal |

/// Writes placeholders into a template.
pub struct Ph;

fn ph(kind: char, index: usize, args: &[&str]) -> String {
    let mut s = format!("\x01{kind}{index}");
    for a in args {
        s.push(':');
        s.push_str(a);
    }
    s.push('\x02');
    s
}

impl Ph {
    /// The type of slot `i`.
    pub fn ty(i: usize) -> String {
        ph('T', i, &[])
    }
    /// A literal typed by slot `i`.
    pub fn lit(i: usize, digits: &str) -> String {
        ph('L', i, &[digits])
    }
    /// A type-dependent spelling of function `op` for slot `i`.
    pub fn func(i: usize, op: &str) -> String {
        ph('F', i, &[op])
    }
    /// Operation `op` on values of slot `i`'s type, on already emitted operands.
    pub fn op(i: usize, op: &str, operands: &[&str]) -> String {
        let mut s = format!("\x01O{i}:{op}");
        for o in operands {
            s.push('\x03');
            s.push_str(o);
        }
        s.push('\x02');
        s
    }
    /// A literal of a written scalar type, such as `5u64`.
    pub fn static_lit(cl_type: &str, digits: &str) -> String {
        ph('Z', 0, &[cl_type, digits])
    }
    /// The element type of captured array fill `i`.
    pub fn elem(i: usize) -> String {
        ph('E', i, &[])
    }
    /// The program-wide number of check site `k`.
    pub fn site(k: usize) -> String {
        ph('Q', k, &[])
    }
    /// The value of constant fill `i`.
    pub fn value(i: usize) -> String {
        ph('V', i, &[])
    }
    /// Capture `name` (fill `i`), as its literal where its fill is a constant's.
    pub fn konst(i: usize, name: &str) -> String {
        ph('K', i, &[name])
    }
    /// The parameter declaration of capture fill `i` named `name`.
    pub fn param(i: usize, name: &str) -> String {
        ph('P', i, &[name])
    }
    /// The element count of captured array fill `i` named `name`.
    pub fn len(i: usize, name: &str) -> String {
        ph('N', i, &[name])
    }
    /// The elements of captured array fill `i` named `name`, to index with `[k]`: `name`, or
    /// `name.v` for a captured private array (`[T; N]`, a struct passed by value).
    pub fn data(i: usize, name: &str) -> String {
        ph('D', i, &[name])
    }
    /// The channel count of captured image fill `i`.
    pub fn channels(i: usize) -> String {
        ph('C', i, &[])
    }
    /// The name of called function `k`.
    pub fn call(k: usize) -> String {
        ph('X', k, &[])
    }
    /// This function's own name.
    pub fn own_name() -> String {
        ph('S', 0, &[])
    }
}

/// Renders a template with every fill a placeholder name, for snapshot tests: `T3` becomes
/// `$T3`, `P5:a` becomes `$P5(a)`, an operation `O2:add` on `x` and `y` becomes
/// `$O2(add)[x, y]`, and `NU_C` followed by `Q3` becomes `NU_C$Q3`.
pub fn render_for_test(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('\x01') {
        out.push_str(&rest[..start]);
        let end = closing(&rest[start..]).map_or(rest.len(), |e| start + e);
        out.push_str(&render_one(&rest[start + 1..end]));
        rest = &rest[(end + 1).min(rest.len())..];
    }
    out.push_str(rest);
    out
}

fn render_one(body: &str) -> String {
    let mut pieces = split_operands(body).into_iter();
    let head = pieces.next().unwrap_or_default();
    let operands: Vec<String> = pieces.map(render_for_test).collect();
    let mut parts = head.split(':');
    let name = parts.next().unwrap_or_default();
    let args: Vec<&str> = parts.collect();
    let mut s = format!("${name}");
    if !args.is_empty() {
        s += &format!("({})", args.join(":"));
    }
    if !operands.is_empty() {
        s += &format!("[{}]", operands.join(", "));
    }
    s
}

/// The offset of the `\x02` closing the placeholder `text` starts with.
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            1 => depth += 1,
            2 if depth == 1 => return Some(i),
            2 => depth -= 1,
            _ => {}
        }
    }
    None
}

/// A placeholder body's head and operands, split at top-level `\x03`.
fn split_operands(body: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut from) = (Vec::new(), 0usize, 0);
    for (i, b) in body.bytes().enumerate() {
        match b {
            1 => depth += 1,
            2 => depth = depth.saturating_sub(1),
            3 if depth == 0 => {
                parts.push(&body[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[from..]);
    parts
}
