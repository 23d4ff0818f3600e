//! Hand-written OpenCL C marked for the dialects (layer 1, shared): nuda's prelude, the
//! runtime's own kernels and users' `KernelSource`s are OpenCL C as people write it, so
//! before another dialect fills their marks (`dialect.rs`) this pass finds the constructs the
//! macros would have marked. It reads tokens, not lines: comments, strings, whitespace and
//! line breaks anywhere, `__`-prefixed qualifiers, attributes before a kernel's name, and
//! vector literals with spaces all read as the compiler reads them.
//!
//! Marked: kernel qualifiers (with the kernel's name), address spaces, a kernel's `local`
//! pointer parameters and the opening of its body, `local` declarations in bodies (arrays of
//! a known scalar or vector type whole, others by their qualifier; a `local` *pointer*
//! declaration is an address space, not storage), file-scope `constant`s, vector literals,
//! swizzles of several lanes, and `#pragma` lines. `to_opencl(mark(t))` is `t` up to the
//! spaces inside a vector literal's type.

use super::dialect::{is_vector_type, swizzle_lanes};
use nuda_abi::dialect::{Mk, Space};

/// `text`, hand-written OpenCL C, with its dialect constructs marked.
pub(crate) fn mark(text: &str) -> String {
    let mut m = Marker {
        src: text,
        at: 0,
        out: String::with_capacity(text.len() + text.len() / 8),
        braces: 0,
        parens: 0,
        statement: true,
        signature: None,
        name: None,
        body_next: false,
    };
    m.run();
    m.out
}

struct Marker<'a> {
    src: &'a str,
    at: usize,
    out: String,
    braces: i32,
    parens: i32,
    /// Whether the next token starts a statement or declaration.
    statement: bool,
    /// Inside a kernel's parameter list: the parenthesis depth of the list.
    signature: Option<i32>,
    /// After `kernel`: the kernel's name, until its parameter list opens (`Some("")` once
    /// the name was read).
    name: Option<String>,
    /// A kernel's parameter list has closed: its `{` opens its body.
    body_next: bool,
}

impl Marker<'_> {
    fn run(&mut self) {
        while self.at < self.src.len() {
            let rest = &self.src[self.at..];
            let c = rest.chars().next().unwrap_or(' ');
            if c.is_whitespace() {
                self.copy(c.len_utf8());
            } else if rest.starts_with("//") || rest.starts_with("/*") {
                self.copy(comment_len(rest));
            } else if c == '"' || c == '\'' {
                self.copy(quoted_len(rest));
            } else if c == '#' && self.line_start() {
                self.directive();
            } else if c.is_ascii_alphabetic() || c == '_' {
                self.word();
            } else if c.is_ascii_digit() || (c == '.' && next_is_digit(rest)) {
                self.copy(number_len(rest));
                self.statement = false;
            } else {
                self.punct(c);
            }
        }
    }

    fn copy(&mut self, n: usize) {
        self.out.push_str(&self.src[self.at..self.at + n]);
        self.at += n;
    }

    /// Whether only spaces come before the cursor on its line.
    fn line_start(&self) -> bool {
        let line = self.src[..self.at].rfind('\n').map_or(0, |n| n + 1);
        self.src[line..self.at]
            .chars()
            .all(|c| c == ' ' || c == '\t')
    }

    /// A preprocessor line (with its continuations): a pragma is marked; other directives
    /// pass through as they are.
    fn directive(&mut self) {
        let rest = &self.src[self.at..];
        let len = directive_len(rest);
        let line = &rest[..len];
        match line[1..].trim_start().strip_prefix("pragma ") {
            Some(text) => {
                self.out += &Mk::pragma(text.trim());
                self.at += len;
            }
            None => {
                self.out += &spaces_in(line);
                self.at += len;
            }
        }
    }

    fn word(&mut self) {
        let rest = &self.src[self.at..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..len];
        let start = self.statement;
        self.statement = false;
        let bare = word.strip_prefix("__").unwrap_or(word);
        if self.name.as_deref() == Some(word) {
            self.name = Some(String::new());
        }
        match bare {
            "attribute__" if self.opencl_attribute(len) => {}
            "kernel" if self.braces == 0 && self.parens == 0 => self.kernel(len),
            "global" | "constant" | "local" | "private" => self.space(bare, len, start),
            _ => self.copy(len),
        }
    }

    /// `__attribute__((..))` holding an OpenCL kernel attribute, marked whole; whether it was.
    fn opencl_attribute(&mut self, len: usize) -> bool {
        let rest = &self.src[self.at + len..];
        let gap = skip_space_and_comments(rest);
        let Some(close) = rest[gap..]
            .starts_with("((")
            .then(|| matching_paren(&rest[gap..]))
            .flatten()
        else {
            return false;
        };
        let inner = &rest[gap + 2..gap + close - 1];
        let known = [
            "reqd_work_group_size",
            "work_group_size_hint",
            "vec_type_hint",
        ];
        if !known.iter().any(|k| inner.trim_start().starts_with(k)) {
            return false;
        }
        self.out += &Mk::attribute(inner.trim());
        self.at += len + gap + close + 1;
        true
    }

    /// `kernel` and the kernel's name: the first word before a `(` that is not an attribute.
    fn kernel(&mut self, len: usize) {
        let name = kernel_name(&self.src[self.at + len..]).unwrap_or_default();
        self.out += &Mk::kernel(&name);
        self.at += len;
        self.name = Some(name);
    }

    /// An address-space word: what it qualifies decides the mark.
    fn space(&mut self, word: &str, len: usize, start: bool) {
        let after = self.at + len;
        let param_start = self.signature == Some(self.parens) && self.param_start();
        let mark = match word {
            "local" if param_start => self.local_param(after),
            "local" if start && self.braces > 0 && self.parens == 0 => self.shared(after),
            "constant" if start && self.braces == 0 && self.parens == 0 => {
                Some((Mk::file_constant(), after))
            }
            _ => None,
        };
        let (text, to) = mark.unwrap_or_else(|| {
            let s = match word {
                "global" => Space::Global,
                "constant" => Space::Constant,
                "local" => Space::Local,
                _ => Space::Private,
            };
            (Mk::space(s), after)
        });
        self.out += &text;
        // A whole declaration ends a statement; else the mark stands for the word and one
        // space after it.
        if self.src[..to].ends_with(';') {
            self.statement = true;
            self.at = to;
            return;
        }
        self.at = to + usize::from(self.src[to..].starts_with([' ', '\t']));
    }

    /// Whether the cursor starts a parameter: `(` or `,` is the last token before it.
    fn param_start(&self) -> bool {
        let before = strip_trailing_comments(&self.src[..self.at]);
        before.ends_with('(') || before.ends_with(',')
    }

    /// `local T* [restrict] name` up to the parameter's end, as one mark.
    fn local_param(&self, after: usize) -> Option<(String, usize)> {
        let rest = &self.src[after..];
        let end = rest.find([',', ')'])?;
        let p = strip_comments(&rest[..end]);
        let (ty, name) = p.rsplit_once('*')?;
        let name = name.trim();
        let (restrict, name) = match name.strip_prefix("restrict") {
            Some(n) if n.starts_with(char::is_whitespace) => (true, n.trim()),
            _ => (false, name),
        };
        let word =
            |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let ty = ty.split_whitespace().collect::<Vec<_>>().join(" ");
        word(name).then(|| (Mk::local_param(&ty, name, restrict), after + end))
    }

    /// `local` starting a declaration in a body: a pointer's address space, an array of a
    /// known type whole, or storage by its qualifier.
    fn shared(&self, after: usize) -> Option<(String, usize)> {
        let rest = &self.src[after..];
        let end = rest.find(';')?;
        let decl = strip_comments(&rest[..end]);
        let head = decl.split(['=', '[']).next().unwrap_or("");
        if head.contains('*') {
            return None;
        }
        if let Some((ty, name, count)) = simple_array(&decl) {
            return Some((Mk::shared_array(&ty, &name, &count), after + end + 1));
        }
        Some((Mk::shared(), after))
    }

    fn punct(&mut self, c: char) {
        match c {
            '(' => {
                if let Some((ty, len)) = vector_literal(&self.src[self.at..]) {
                    self.out += &Mk::vector(&ty);
                    self.at += len;
                    return;
                }
                self.parens += 1;
                if self.name.as_deref() == Some("") {
                    self.name = None;
                    self.signature = Some(self.parens);
                }
            }
            ')' => {
                if self.signature == Some(self.parens) {
                    self.signature = None;
                    self.body_next = true;
                }
                self.parens -= 1;
            }
            '{' => self.braces += 1,
            '}' => self.braces -= 1,
            '.' => return self.swizzle(),
            _ => {}
        }
        self.copy(c.len_utf8());
        if c == '{' && std::mem::take(&mut self.body_next) {
            self.out += &Mk::body();
        }
        if c == ';' {
            self.body_next = false;
        }
        self.statement = matches!(c, ';' | '{' | '}');
    }

    /// `.` and what follows: a swizzle of several lanes is marked.
    fn swizzle(&mut self) {
        self.copy(1);
        let rest = &self.src[self.at..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if swizzle_lanes(&rest[..len]).is_some() {
            self.out += &Mk::swizzle(&rest[..len]);
            self.at += len;
        }
        self.statement = false;
    }
}

/// A directive's address-space words marked (a macro may spell a qualified pointer).
fn spaces_in(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(k) = rest.find(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out += &rest[..k];
        let len = rest[k..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len() - k);
        let word = &rest[k..k + len];
        let space = match word.strip_prefix("__").unwrap_or(word) {
            "global" => Some(Space::Global),
            "constant" => Some(Space::Constant),
            "local" => Some(Space::Local),
            "private" => Some(Space::Private),
            _ => None,
        };
        let after = &rest[k + len..];
        match space {
            Some(s) if after.starts_with(' ') => {
                out += &Mk::space(s);
                rest = &after[1..];
            }
            _ => {
                out += word;
                rest = after;
            }
        }
    }
    out + rest
}

/// The kernel's name in `rest` (after `kernel`): the first word followed by `(` that is not an
/// attribute (`__attribute__((..))`, any `__` word, the prelude's `NU_GROUP(..)` and
/// `NU_BOUNDS(..)`, `NU_BOUNDS_WARPS(..)`), whose
/// parentheses are skipped.
fn kernel_name(rest: &str) -> Option<String> {
    let text = strip_comments(&rest[..rest.find('{').unwrap_or(rest.len())]);
    let mut k = 0;
    loop {
        let start = k + text[k..].find(|c: char| c.is_ascii_alphabetic() || c == '_')?;
        let end = start
            + text[start..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(text.len() - start);
        let word = &text[start..end];
        let after = end + text[end..].len() - text[end..].trim_start().len();
        if !text[after..].starts_with('(') {
            k = end;
            continue;
        }
        let marks = ["NU_GROUP", "NU_BOUNDS", "NU_BOUNDS_WARPS"];
        if !(word.starts_with("__") || marks.contains(&word)) {
            return Some(word.to_string());
        }
        k = after + matching_paren(&text[after..])? + 1;
    }
}

/// The offset of the `)` closing the `(` that `text` starts with.
fn matching_paren(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (k, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// `(T)` then, past spaces and comments, `(`: a vector literal's head, and the length of
/// `(T)` with the spaces after it.
fn vector_literal(rest: &str) -> Option<(String, usize)> {
    let close = rest.find(')')?;
    let ty = strip_comments(&rest[1..close]);
    let ty = ty.trim();
    if !is_vector_type(ty) {
        return None;
    }
    let after = &rest[close + 1..];
    let gap = skip_space_and_comments(after);
    after[gap..]
        .starts_with('(')
        .then(|| (ty.to_string(), close + 1 + gap))
}

/// `T name[N]` (with nothing else declared), `T` one word and `N` digits.
fn simple_array(decl: &str) -> Option<(String, String, String)> {
    let (head, count) = decl.trim().strip_suffix(']')?.split_once('[')?;
    let mut words = head.split_whitespace();
    let (ty, name) = (words.next()?, words.next()?);
    let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let count = count.trim();
    let ok = words.next().is_none()
        && word(ty)
        && word(name)
        && !count.is_empty()
        && count.chars().all(|c| c.is_ascii_digit());
    ok.then(|| (ty.to_string(), name.to_string(), count.to_string()))
}

fn comment_len(rest: &str) -> usize {
    match rest.starts_with("//") {
        true => rest.find('\n').unwrap_or(rest.len()),
        false => rest[2..].find("*/").map_or(rest.len(), |e| e + 4),
    }
}

fn quoted_len(rest: &str) -> usize {
    let q = rest.as_bytes()[0];
    let mut k = 1;
    let b = rest.as_bytes();
    while k < b.len() && b[k] != q && b[k] != b'\n' {
        k += if b[k] == b'\\' { 2 } else { 1 };
    }
    (k + 1).min(rest.len())
}

/// A preprocessor line's length, through its `\` continuations (not its newline).
fn directive_len(rest: &str) -> usize {
    let mut k = 0;
    loop {
        let end = k + rest[k..].find('\n').unwrap_or(rest.len() - k);
        if end == rest.len() || !rest[..end].trim_end().ends_with('\\') {
            return end;
        }
        k = end + 1;
    }
}

/// A number's length: digits, letters (suffixes, hex, exponents), `.`, and a sign after an
/// exponent.
fn number_len(rest: &str) -> usize {
    let b = rest.as_bytes();
    let mut k = 0;
    while k < b.len() {
        let c = b[k];
        let sign =
            (c == b'+' || c == b'-') && k > 0 && matches!(b[k - 1], b'e' | b'E' | b'p' | b'P');
        if !(c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || sign) {
            break;
        }
        k += 1;
    }
    k
}

fn next_is_digit(rest: &str) -> bool {
    rest.as_bytes().get(1).is_some_and(u8::is_ascii_digit)
}

/// `text` without its comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut k = 0;
    while k < text.len() {
        let rest = &text[k..];
        if rest.starts_with("//") || rest.starts_with("/*") {
            out.push(' ');
            k += comment_len(rest);
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            k += c.len_utf8();
        }
    }
    out
}

/// `text` without trailing spaces and comments.
fn strip_trailing_comments(text: &str) -> String {
    strip_comments(text).trim_end().to_string()
}

/// How many bytes of spaces and comments `text` starts with.
fn skip_space_and_comments(text: &str) -> usize {
    let mut k = 0;
    loop {
        let rest = &text[k..];
        let t = rest.trim_start();
        k += rest.len() - t.len();
        if t.starts_with("//") || t.starts_with("/*") {
            k += comment_len(t);
        } else {
            return k;
        }
    }
}

#[cfg(test)]
#[path = "marker_test.rs"]
mod tests;
