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
//! | `F<i>:<op>` | the spelling of `op` for that type: `abs` is `fabs` for floats |
//! | `P<i>:<name>` | the parameter declaration of capture `i` (array pointer plus dims, image, scalar) |
//! | `N<i>:<name>` | the element count of captured array `i` |
//! | `C<i>` | the channel count of captured image `i` |
//! | `X<k>` | the OpenCL C name of the program's `k`-th called `#[nucode]` function |
//! | `S0` | this `#[nucode]` function's own OpenCL C name |

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
    /// A type-dependent spelling of `op` for slot `i`.
    pub fn func(i: usize, op: &str) -> String {
        ph('F', i, &[op])
    }
    /// The parameter declaration of capture fill `i` named `name`.
    pub fn param(i: usize, name: &str) -> String {
        ph('P', i, &[name])
    }
    /// The element count of captured array fill `i` named `name`.
    pub fn len(i: usize, name: &str) -> String {
        ph('N', i, &[name])
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
/// `$T3`, `P5:a` becomes `$P5(a)`.
pub fn render_for_test(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('\x01') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('\x02').map_or(rest.len(), |e| start + e);
        let body = &rest[start + 1..end];
        let mut parts = body.split(':');
        let head = parts.next().unwrap_or_default();
        let args: Vec<&str> = parts.collect();
        if args.is_empty() {
            out.push_str(&format!("${head}"));
        } else {
            out.push_str(&format!("${head}({})", args.join(":")));
        }
        rest = &rest[(end + 1).min(rest.len())..];
    }
    out.push_str(rest);
    out
}
