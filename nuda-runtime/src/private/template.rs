//! Instantiating kernel templates: the macros embed OpenCL C with placeholders for what only
//! rustc knows (types) and what depends on the captured values' types (parameter lists); at a
//! call site's first launch with given types, the placeholders are filled and the program text
//! is fixed. The placeholder format is written by `nuda_transforms::emit::template`.
//!
//! Results are cached per (template, fills), that is per call site and types; the program
//! cache then keys by device.

use crate::launch::KernelSource;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, Mutex, PoisonError};

/// A kernel template embedded by a macro.
#[derive(Debug)]
pub struct Template {
    /// OpenCL C with placeholders.
    pub text: &'static str,
    /// The kernel function's name.
    pub kernel: &'static str,
}

impl Template {
    /// A template.
    pub const fn new(text: &'static str, kernel: &'static str) -> Template {
        Template { text, kernel }
    }
}

/// The companion of a `#[nucode]` function: its template and the functions it calls.
#[derive(Debug)]
pub struct Nucode {
    /// The Rust name, for readable OpenCL C names.
    pub name: &'static str,
    /// OpenCL C with placeholders.
    pub template: &'static str,
    /// Its type slots, from its witness.
    pub types: fn() -> Vec<Fill>,
    /// The `#[nucode]` functions it calls, by position.
    pub calls: &'static [&'static Nucode],
}

/// Where a captured array lives in the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// `global const T*`: read only.
    GlobalRead,
    /// `global T*`: written.
    GlobalWrite,
    /// `constant T*`.
    Constant,
}

/// What a captured value is, as the kernel's parameter list needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CaptureDesc {
    /// A scalar of this OpenCL C type.
    Scalar(&'static str),
    /// An array: element type, rank, memory space.
    Array(&'static str, usize, Space),
    /// An image: channels, written or read.
    Image(usize, bool),
}

/// One value substituted into a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fill {
    /// The OpenCL C type of a type slot.
    Type(&'static str),
    /// A captured value.
    Capture(CaptureDesc),
}

type Entry = (usize, Vec<Fill>, &'static KernelSource);
static CACHE: LazyLock<Mutex<HashMap<u64, Vec<Entry>>>> = LazyLock::new(Mutex::default);

/// The program for `t` with these fills and called functions: built once, then cached.
pub fn instantiate(
    t: &'static Template,
    fills: &[Fill],
    calls: &[&'static Nucode],
) -> &'static KernelSource {
    let addr = t as *const Template as usize;
    let mut h = DefaultHasher::new();
    (addr, fills).hash(&mut h);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let bucket = cache.entry(h.finish()).or_default();
    if let Some(e) = bucket
        .iter()
        .find(|(a, f, _)| *a == addr && f.as_slice() == fills)
    {
        return e.2;
    }
    // One program text per call site and types, for the life of the process.
    let text: &'static str = Box::leak(program_text(t, fills, calls).into_boxed_str());
    let src: &'static KernelSource = Box::leak(Box::new(KernelSource::new(text)));
    bucket.push((addr, fills.to_vec(), src));
    src
}

/// The called functions (transitively, callees first) then the kernel.
fn program_text(t: &Template, fills: &[Fill], calls: &[&'static Nucode]) -> String {
    let order = dependency_order(calls);
    let name_of = |n: &Nucode| {
        let i = order.iter().position(|m| std::ptr::eq(*m, n)).unwrap_or(0);
        format!("nu_{}_{i}", n.name)
    };
    let mut text = String::new();
    for f in &order {
        let names: Vec<String> = f.calls.iter().map(|c| name_of(c)).collect();
        text += &fill(f.template, &(f.types)(), &names, &name_of(f));
        text.push('\n');
    }
    let names: Vec<String> = calls.iter().map(|c| name_of(c)).collect();
    text + &fill(t.text, fills, &names, "")
}

fn dependency_order(calls: &[&'static Nucode]) -> Vec<&'static Nucode> {
    fn visit(n: &'static Nucode, out: &mut Vec<&'static Nucode>, stack: &mut Vec<*const Nucode>) {
        // A function already placed, or on the current path (recursion, which OpenCL C
        // rejects with a build error naming it), is not placed again.
        if out.iter().any(|m| std::ptr::eq(*m, n)) || stack.contains(&(n as *const _)) {
            return;
        }
        stack.push(n);
        for c in n.calls {
            visit(c, out, stack);
        }
        stack.pop();
        out.push(n);
    }
    let mut out = Vec::new();
    for c in calls {
        visit(c, &mut out, &mut Vec::new());
    }
    out
}

/// Replaces every placeholder of `text`.
pub fn fill(text: &str, fills: &[Fill], calls: &[String], own: &str) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    let mut rest = text;
    while let Some(start) = rest.find('\x01') {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('\x02') else {
            break;
        };
        out.push_str(&expand(&rest[start + 1..start + len], fills, calls, own));
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

fn expand(ph: &str, fills: &[Fill], calls: &[String], own: &str) -> String {
    let mut parts = ph[1..].splitn(2, ':');
    let index: usize = parts
        .next()
        .and_then(|i| i.parse().ok())
        .unwrap_or(usize::MAX);
    let arg = parts.next().unwrap_or_default();
    let ty = || match fills.get(index) {
        Some(Fill::Type(t)) => t,
        _ => "int",
    };
    let cap = fills.get(index).and_then(|f| {
        if let Fill::Capture(c) = f {
            Some(*c)
        } else {
            None
        }
    });
    match ph.as_bytes().first() {
        Some(b'T') => ty().to_string(),
        Some(b'L') => literal(arg, ty()),
        Some(b'F') => spell(arg, ty()),
        Some(b'P') => cap.map(|c| param(c, arg)).unwrap_or_default(),
        Some(b'N') => cap.map(|c| count(c, arg)).unwrap_or_default(),
        Some(b'C') => match cap {
            Some(CaptureDesc::Image(ch, _)) => ch.to_string(),
            _ => "1".into(),
        },
        Some(b'X') => calls.get(index).cloned().unwrap_or_default(),
        Some(b'S') => own.to_string(),
        _ => String::new(),
    }
}

fn is_float(ty: &str) -> bool {
    ty == "float" || ty == "double"
}

fn decimal(d: &str) -> String {
    if d.contains(['.', 'e', 'E']) {
        if d.ends_with('.') {
            format!("{d}0")
        } else {
            d.to_string()
        }
    } else {
        format!("{d}.0")
    }
}

/// A literal with `digits` of OpenCL C type `ty`.
pub fn literal(digits: &str, ty: &str) -> String {
    match ty {
        "float" => format!("{}f", decimal(digits)),
        "double" => decimal(digits),
        "int" | "bool" => digits.to_string(),
        "uint" => format!("{digits}u"),
        "long" => format!("{digits}L"),
        "ulong" => format!("{digits}UL"),
        other => format!("(({other}){digits})"),
    }
}

/// The spelling of a type-dependent operation for `ty`.
pub fn spell(op: &str, ty: &str) -> String {
    let narrow = matches!(ty, "char" | "uchar" | "short" | "ushort");
    let signed = matches!(ty, "char" | "short" | "int" | "long" | "nu_sidx");
    match op {
        "wrap" if narrow => format!("({ty})"),
        "wrap" => String::new(),
        "not" if ty == "bool" => "!".into(),
        // `~` promotes a narrow operand to int; Rust's `!` stays in the type.
        "not" if narrow => format!("({ty})~"),
        "not" => "~".into(),
        "abs" if is_float(ty) => "fabs".into(),
        "abs" if signed => format!("({ty})abs"),
        "abs" => String::new(),
        "min" | "max" if is_float(ty) => format!("f{op}"),
        "min" | "max" => op.into(),
        "rem" if is_float(ty) => "fmod".into(),
        "rem" => "nu_irem".into(),
        _ => match op.strip_prefix("to:") {
            Some(target) if is_float(ty) => format!("convert_{target}_sat_rtz"),
            Some(target) => format!("({target})"),
            None => String::new(),
        },
    }
}

/// The parameter declaration of a capture named `name`.
fn param(c: CaptureDesc, name: &str) -> String {
    let dims = |rank: usize| {
        (0..rank)
            .map(|k| format!(", nu_idx {name}__d{k}"))
            .collect::<String>()
    };
    match c {
        CaptureDesc::Scalar("bool") => format!("uchar {name}"),
        CaptureDesc::Scalar(t) => format!("{t} {name}"),
        CaptureDesc::Array(t, rank, space) => {
            let q = match space {
                Space::GlobalRead => "global const",
                Space::GlobalWrite => "global",
                Space::Constant => "constant",
            };
            format!("{q} {t}* restrict {name}{}", dims(rank))
        }
        CaptureDesc::Image(_, write) => {
            let q = if write { "write_only" } else { "read_only" };
            format!("{q} image2d_t {name}{}", dims(2))
        }
    }
}

/// The element count of a captured array or image named `name`.
fn count(c: CaptureDesc, name: &str) -> String {
    let rank = match c {
        CaptureDesc::Array(_, r, _) => r,
        CaptureDesc::Image(..) => 2,
        CaptureDesc::Scalar(_) => 0,
    };
    let dims: Vec<String> = (0..rank).map(|k| format!("{name}__d{k}")).collect();
    format!("({})", dims.join(" * "))
}
