//! Kernel-template placeholders. The compiler writes kernel text with placeholders for what
//! only rustc knows (types) and what the runtime decides (parameter declarations of captured
//! values, the names of `#[nucode]` functions in one program, check-site numbers); the runtime
//! fills them at a call site's first launch with given types.
//!
//! A placeholder is `\x01`, a slot letter, an index, optional `:`-separated arguments, then
//! for an operation `\x03`-separated operands (which may hold placeholders), and `\x02`. The
//! writer ([`Ph`]) and the reader ([`replace`]) below are the only code that knows this.
//!
//! | form | replaced by |
//! |---|---|
//! | `T<i>` | the C type of fill `i` (a type slot) |
//! | `L<i>:<digits>` | a literal of that type: `2.0f`, `2.0`, `2u`, `((char)2)` |
//! | `Z0:<type>:<digits>` | a literal of a written type (`5u64`) |
//! | `F<i>:<op>` | the spelling of function `op` for that type: `min` is `fmin` for floats |
//! | `O<i>:<op>` and operands | operation `op` on values of that type, with Rust's semantics (wrapping, masked shifts, checked division, saturating casts `to:<type>`) |
//! | `E<i>` | the element type of captured array `i` |
//! | `Q<k>` | the program-wide number of check site `k` (functions' sites follow the kernel's) |
//! | `P<i>:<name>` | the parameter declaration of capture `i` (array pointer plus dims, image, scalar) |
//! | `N<i>:<name>` | the element count of captured array `i` |
//! | `C<i>` | the channel count of captured image `i` |
//! | `D<i>:<name>` | the elements of captured array `i` to index: `name`, or `name.v` for a captured `[T; N]` |
//! | `K<i>:<name>` | capture `i` by name, or its literal where its fill is a constant's |
//! | `X<k>` | the C name of the program's `k`-th called `#[nucode]` function |
//! | `S0` | this `#[nucode]` function's own C name |
//! | `V<i>` | the value of fill `i`, a constant a `#[nucode]` function names, as an exact literal |

/// What a placeholder stands for; each is one row of the table above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    /// `T`: a type.
    Type,
    /// `L`: a literal of a slot's type.
    Lit,
    /// `Z`: a literal of a written type.
    StaticLit,
    /// `F`: a type-dependent function spelling.
    Func,
    /// `O`: an operation with Rust's semantics.
    Op,
    /// `E`: a captured array's element type.
    Elem,
    /// `Q`: a check site's program-wide number.
    Site,
    /// `P`: a capture's parameter declaration.
    Param,
    /// `N`: a captured array's element count.
    Len,
    /// `C`: a captured image's channel count.
    Channels,
    /// `D`: a captured array's elements, to index.
    Data,
    /// `K`: a capture, or its literal when it is a constant.
    Konst,
    /// `X`: a called function's name.
    Call,
    /// `S`: this function's own name.
    Own,
    /// `V`: a constant's value.
    Value,
}

impl Slot {
    /// Every slot.
    pub const ALL: [Slot; 15] = [
        Slot::Type,
        Slot::Lit,
        Slot::StaticLit,
        Slot::Func,
        Slot::Op,
        Slot::Elem,
        Slot::Site,
        Slot::Param,
        Slot::Len,
        Slot::Channels,
        Slot::Data,
        Slot::Konst,
        Slot::Call,
        Slot::Own,
        Slot::Value,
    ];

    /// The slot's letter in the text.
    pub fn letter(self) -> char {
        match self {
            Slot::Type => 'T',
            Slot::Lit => 'L',
            Slot::StaticLit => 'Z',
            Slot::Func => 'F',
            Slot::Op => 'O',
            Slot::Elem => 'E',
            Slot::Site => 'Q',
            Slot::Param => 'P',
            Slot::Len => 'N',
            Slot::Channels => 'C',
            Slot::Data => 'D',
            Slot::Konst => 'K',
            Slot::Call => 'X',
            Slot::Own => 'S',
            Slot::Value => 'V',
        }
    }

    /// The slot a letter names.
    pub fn from_letter(c: char) -> Option<Slot> {
        Slot::ALL.into_iter().find(|s| s.letter() == c)
    }
}

const OPEN: char = '\x01';
const CLOSE: char = '\x02';
const OPERAND: char = '\x03';

fn write(slot: Slot, index: usize, args: &[&str], operands: &[&str]) -> String {
    let mut s = format!("{OPEN}{}{index}", slot.letter());
    for a in args {
        s.push(':');
        s.push_str(a);
    }
    for o in operands {
        s.push(OPERAND);
        s.push_str(o);
    }
    s.push(CLOSE);
    s
}

/// Writes placeholders: the one writer of the format.
pub struct Ph;

impl Ph {
    /// The type of slot `i`.
    pub fn ty(i: usize) -> String {
        write(Slot::Type, i, &[], &[])
    }
    /// A literal typed by slot `i`.
    pub fn lit(i: usize, digits: &str) -> String {
        write(Slot::Lit, i, &[digits], &[])
    }
    /// A type-dependent spelling of function `op` for slot `i`.
    pub fn func(i: usize, op: &str) -> String {
        write(Slot::Func, i, &[op], &[])
    }
    /// Operation `op` on values of slot `i`'s type, on already written operands.
    pub fn op(i: usize, op: &str, operands: &[&str]) -> String {
        write(Slot::Op, i, &[op], operands)
    }
    /// A literal of a written scalar type, such as `5u64`, by its C name.
    pub fn static_lit(c_type: &str, digits: &str) -> String {
        write(Slot::StaticLit, 0, &[c_type, digits], &[])
    }
    /// The element type of captured array fill `i`.
    pub fn elem(i: usize) -> String {
        write(Slot::Elem, i, &[], &[])
    }
    /// The program-wide number of check site `k`.
    pub fn site(k: usize) -> String {
        write(Slot::Site, k, &[], &[])
    }
    /// The value of constant fill `i`.
    pub fn value(i: usize) -> String {
        write(Slot::Value, i, &[], &[])
    }
    /// Capture `name` (fill `i`), as its literal where its fill is a constant's.
    pub fn konst(i: usize, name: &str) -> String {
        write(Slot::Konst, i, &[name], &[])
    }
    /// The parameter declaration of capture fill `i` named `name`.
    pub fn param(i: usize, name: &str) -> String {
        write(Slot::Param, i, &[name], &[])
    }
    /// The element count of captured array fill `i` named `name`.
    pub fn len(i: usize, name: &str) -> String {
        write(Slot::Len, i, &[name], &[])
    }
    /// The elements of captured array fill `i` named `name`, to index with `[k]`: `name`, or
    /// `name.v` for a captured private array (`[T; N]`, a struct passed by value).
    pub fn data(i: usize, name: &str) -> String {
        write(Slot::Data, i, &[name], &[])
    }
    /// The channel count of captured image fill `i`.
    pub fn channels(i: usize) -> String {
        write(Slot::Channels, i, &[], &[])
    }
    /// The name of called function `k`.
    pub fn call(k: usize) -> String {
        write(Slot::Call, k, &[], &[])
    }
    /// This function's own name.
    pub fn own_name() -> String {
        write(Slot::Own, 0, &[], &[])
    }
}

/// One placeholder, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder<'a> {
    /// What it stands for.
    pub slot: Slot,
    /// Its index (a fill, a site, a called function).
    pub index: usize,
    /// Everything after the index's `:`, unsplit (`Z` holds `type:digits`); empty if none.
    pub arg: &'a str,
    /// An operation's operands, as written (they may hold placeholders themselves).
    pub operands: Vec<&'a str>,
}

impl Placeholder<'_> {
    /// The arguments, split at `:`.
    pub fn args(&self) -> Vec<&str> {
        if self.arg.is_empty() {
            Vec::new()
        } else {
            self.arg.split(':').collect()
        }
    }
}

/// Replaces every top-level placeholder of `text` by `f`'s answer; `f` fills an operation's
/// operands itself (usually by calling `replace` on them). A placeholder with an unknown slot
/// letter, or none, becomes nothing; an unclosed one ends the text.
pub fn replace(text: &str, f: &mut dyn FnMut(&Placeholder<'_>) -> String) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let Some(len) = closing(&rest[start..]) else {
            return out;
        };
        if let Some(p) = parse(&rest[start + 1..start + len]) {
            out.push_str(&f(&p));
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// A placeholder's body (between its `\x01` and `\x02`), read.
fn parse(body: &str) -> Option<Placeholder<'_>> {
    let mut parts = split_operands(body).into_iter();
    let head = parts.next().unwrap_or_default();
    let slot = Slot::from_letter(head.chars().next()?)?;
    let (index, arg) = head[1..].split_once(':').unwrap_or((&head[1..], ""));
    Some(Placeholder {
        slot,
        index: index.parse().unwrap_or(usize::MAX),
        arg,
        operands: parts.collect(),
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        replace(text, &mut |p| {
            let ops: Vec<String> = p.operands.iter().map(|o| show(o)).collect();
            format!(
                "{}{}({})[{}]",
                p.slot.letter(),
                p.index,
                p.arg,
                ops.join(", ")
            )
        })
    }

    /// What the writer writes, the reader reads back, nested operations included.
    #[test]
    fn the_reader_reads_what_the_writer_writes() {
        let inner = Ph::op(1, "mul", &["a", &Ph::lit(1, "2")]);
        let text = format!("x = {} + {};", Ph::op(0, "add", &[&inner, "b"]), Ph::ty(3));
        assert_eq!(show(&text), "x = O0(add)[O1(mul)[a, L1(2)[]], b] + T3()[];");
        assert_eq!(show(&Ph::static_lit("ulong", "5")), "Z0(ulong:5)[]");
        for s in Slot::ALL {
            assert_eq!(Slot::from_letter(s.letter()), Some(s));
        }
    }

    /// A placeholder that never closes ends the text rather than running past it.
    #[test]
    fn an_unclosed_placeholder_ends_the_text() {
        assert_eq!(show("a \x01T0 b"), "a ");
        assert_eq!(show("a \x01?0\x02 b"), "a  b");
    }
}
