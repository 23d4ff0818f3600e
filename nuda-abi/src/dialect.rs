//! Dialect marks: the constructs of nuda's C whose spelling differs between the dialects a
//! backend compiles (OpenCL C, CUDA C++, HIP C++). The compiler writes each such construct as
//! a mark, never as one dialect's text; the runtime's dialect fills every mark (its
//! `backend/c/dialect.rs`), so no backend has to recognise OpenCL C by its layout.
//!
//! A mark is `\x0e`, a letter, `:`-separated arguments, and `\x0f`. Arguments hold no `:`
//! but the last, which may (a pragma's text). Template placeholders (`placeholder.rs`) may
//! sit inside a mark's arguments; the runtime fills them before the marks. The writer
//! ([`Mk`]) and the reader ([`render`]) below are the only code that knows this format.
//!
//! | mark | OpenCL C |
//! |---|---|
//! | `K:<name>` | `kernel`, qualifying kernel `name` |
//! | `G` `C` `L` `P` | `global ` `constant ` `local ` `private `, qualifying a pointer or parameter |
//! | `F` | `constant `, starting a file-scope constant |
//! | `A:<r>:<type>:<name>` | `local <type>* restrict <name>`, a kernel's local-memory parameter (`r` is `1` with `restrict`) |
//! | `B` | nothing: a kernel's body has opened (after its `{`) |
//! | `S:<type>:<name>:<count>` | `local <type> <name>[<count>];`, a work-group's array |
//! | `Q` | `local `, starting another declaration of local storage |
//! | `V:<type>` | `(<type>)`, the head of a vector literal `(float4)(a, b, c, d)` |
//! | `W:<lanes>` | `<lanes>`, a swizzle of two lanes or more after its `.` (`zyxw`, `s10`) |
//! | `R:<text>` | `#pragma <text>`, an OpenCL pragma line |
//! | `T:<text>` | `__attribute__((<text>))`, an OpenCL kernel attribute (`reqd_work_group_size(..)`) |

/// An address space qualifying a pointer or a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// `global`: device memory.
    Global,
    /// `constant`: read-only memory, cached.
    Constant,
    /// `local`: the work-group's shared memory.
    Local,
    /// `private`: the work-item's own.
    Private,
}

impl Space {
    /// The OpenCL C word.
    pub fn word(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Constant => "constant",
            Space::Local => "local",
            Space::Private => "private",
        }
    }

    fn letter(self) -> char {
        match self {
            Space::Global => 'G',
            Space::Constant => 'C',
            Space::Local => 'L',
            Space::Private => 'P',
        }
    }
}

/// One mark, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark<'a> {
    /// The qualifier of a kernel definition, and the kernel's name.
    Kernel(&'a str),
    /// An address space before a pointer's or parameter's type.
    Space(Space),
    /// `constant` at the start of a file-scope declaration.
    FileConstant,
    /// A kernel's parameter pointing into local memory, sized by the launch.
    LocalParam {
        /// The element type.
        ty: &'a str,
        /// The parameter's name.
        name: &'a str,
        /// Whether it is declared `restrict`.
        restrict: bool,
    },
    /// The kernel's body has opened: where a dialect sets up its local parameters.
    Body,
    /// A whole declaration of a work-group's array of `count` elements of `ty`.
    SharedArray {
        /// The element type.
        ty: &'a str,
        /// The array's name.
        name: &'a str,
        /// Its element count, a constant.
        count: &'a str,
    },
    /// `local` starting any other declaration of local storage (hand-written code).
    Shared,
    /// The head of a vector literal of type `ty`; its parenthesised values follow.
    Vector(&'a str),
    /// A swizzle of several lanes, after its `.`.
    Swizzle(&'a str),
    /// A pragma line's text after `#pragma `.
    Pragma(&'a str),
    /// An OpenCL kernel attribute, the text inside `__attribute__((..))`.
    Attribute(&'a str),
}

const OPEN: char = '\x0e';
const CLOSE: char = '\x0f';

fn write(letter: char, args: &[&str]) -> String {
    let mut s = String::with_capacity(16);
    s.push(OPEN);
    s.push(letter);
    for a in args {
        s.push(':');
        s.push_str(a);
    }
    s.push(CLOSE);
    s
}

/// Writes marks: the one writer of the format.
pub struct Mk;

impl Mk {
    /// The qualifier of kernel `name`, in place of `kernel`.
    pub fn kernel(name: &str) -> String {
        write('K', &[name])
    }
    /// Address space `s` and the space after it, before a pointer's or parameter's type.
    pub fn space(s: Space) -> String {
        write(s.letter(), &[])
    }
    /// `constant` and its space, starting a file-scope declaration.
    pub fn file_constant() -> String {
        write('F', &[])
    }
    /// A kernel parameter `local ty* [restrict] name`, written whole.
    pub fn local_param(ty: &str, name: &str, restrict: bool) -> String {
        write('A', &[if restrict { "1" } else { "0" }, ty, name])
    }
    /// Right after a kernel body's `{`.
    pub fn body() -> String {
        write('B', &[])
    }
    /// A whole declaration `local ty name[count];`.
    pub fn shared_array(ty: &str, name: &str, count: &str) -> String {
        write('S', &[ty, name, count])
    }
    /// `local` and its space, starting any other declaration of local storage.
    pub fn shared() -> String {
        write('Q', &[])
    }
    /// The head of a vector literal, in place of `(ty)`.
    pub fn vector(ty: &str) -> String {
        write('V', &[ty])
    }
    /// A swizzle's lanes, after the `.`.
    pub fn swizzle(lanes: &str) -> String {
        write('W', &[lanes])
    }
    /// A pragma line, in place of `#pragma text`.
    pub fn pragma(text: &str) -> String {
        write('R', &[text])
    }
    /// An OpenCL kernel attribute, in place of `__attribute__((text))`.
    pub fn attribute(text: &str) -> String {
        write('T', &[text])
    }
}

/// Replaces every mark of `text` by `f`'s answer. An unknown or malformed mark becomes
/// nothing; an unclosed one ends the text.
pub fn render(text: &str, f: &mut dyn FnMut(&Mark<'_>) -> String) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find(CLOSE) else {
            return out;
        };
        if let Some(m) = parse(&rest[start + 1..start + len]) {
            out.push_str(&f(&m));
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// Whether `text` holds any mark.
pub fn has_marks(text: &str) -> bool {
    text.contains(OPEN)
}

/// A mark's body (between its `\x0e` and `\x0f`), read.
fn parse(body: &str) -> Option<Mark<'_>> {
    let letter = body.chars().next()?;
    let rest = body[1..].strip_prefix(':').unwrap_or("");
    let args = |n: usize| -> Option<Vec<&str>> {
        let a: Vec<&str> = rest.splitn(n, ':').collect();
        (a.len() == n).then_some(a)
    };
    Some(match letter {
        'K' => Mark::Kernel(rest),
        'G' => Mark::Space(Space::Global),
        'C' => Mark::Space(Space::Constant),
        'L' => Mark::Space(Space::Local),
        'P' => Mark::Space(Space::Private),
        'F' => Mark::FileConstant,
        'A' => {
            let a = args(3)?;
            Mark::LocalParam {
                restrict: a[0] == "1",
                ty: a[1],
                name: a[2],
            }
        }
        'B' => Mark::Body,
        'S' => {
            let a = args(3)?;
            Mark::SharedArray {
                ty: a[0],
                name: a[1],
                count: a[2],
            }
        }
        'Q' => Mark::Shared,
        'V' => Mark::Vector(rest),
        'W' => Mark::Swizzle(rest),
        'R' => Mark::Pragma(rest),
        'T' => Mark::Attribute(rest),
        _ => return None,
    })
}

/// A mark in OpenCL C, the dialect the marks were taken from: the text a program had before
/// marks existed.
pub fn opencl(m: &Mark<'_>) -> String {
    match *m {
        Mark::Kernel(_) => "kernel".into(),
        Mark::Space(s) => format!("{} ", s.word()),
        Mark::FileConstant => "constant ".into(),
        Mark::LocalParam { ty, name, restrict } => {
            let r = if restrict { "restrict " } else { "" };
            format!("local {ty}* {r}{name}")
        }
        Mark::Body => String::new(),
        Mark::SharedArray { ty, name, count } => format!("local {ty} {name}[{count}];"),
        Mark::Shared => "local ".into(),
        Mark::Vector(ty) => format!("({ty})"),
        Mark::Swizzle(lanes) => lanes.into(),
        Mark::Pragma(text) => format!("#pragma {text}"),
        Mark::Attribute(text) => format!("__attribute__(({text}))"),
    }
}

/// `text` with its marks in OpenCL C.
pub fn to_opencl(text: &str) -> String {
    if !has_marks(text) {
        return text.to_string();
    }
    render(text, &mut |m| opencl(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_read_back_as_written() {
        let text = format!(
            "{} void f({}float* a, {}) {{{}\n    {}\n    float4 v = {}(1.0f);\n}}\n",
            Mk::kernel("f"),
            Mk::space(Space::Global),
            Mk::local_param("float", "t", true),
            Mk::body(),
            Mk::shared_array("float", "s", "64"),
            Mk::vector("float4"),
        );
        assert_eq!(
            to_opencl(&text),
            "kernel void f(global float* a, local float* restrict t) {\n    local float s[64];\n    float4 v = (float4)(1.0f);\n}\n"
        );
    }

    #[test]
    fn a_pragma_keeps_its_colons_and_placeholders_pass_through() {
        let p = Mk::pragma("OPENCL EXTENSION cl_khr_fp64 : enable");
        assert_eq!(
            to_opencl(&p),
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"
        );
        let a = Mk::local_param("\x01E3\x02", "nu_t", false);
        assert_eq!(to_opencl(&a), "local \x01E3\x02* nu_t");
    }
}
