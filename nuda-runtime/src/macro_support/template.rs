//! Instantiating kernel templates: the macros embed OpenCL C with placeholders for what only
//! rustc knows (types) and what depends on the captured values' types (parameter lists); at a
//! call site's first launch with given types, the placeholders are filled and the program text
//! is fixed. The placeholder format, its writer and its reader are `nuda_abi::placeholder`.
//!
//! Results are cached per (template, fills, variant): per call site, types, and which checks
//! the launch-time proof kept (see `proof`). The program cache then keys by device.

use super::program::{CaptureDesc, Fill, Nucode, Space, Variant};
use crate::backend::c::spell;
use crate::backend::{FaultInfo, KernelSource};
use crate::fault::Site;
use nuda_abi::dialect::{self, Mk};
use nuda_abi::placeholder::{replace, Placeholder, Slot};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, Mutex, PoisonError};

/// A kernel template embedded by a macro.
#[derive(Debug)]
pub struct Template {
    /// OpenCL C with placeholders.
    pub text: &'static str,
    /// The kernel as messages name it: `nuwork!` or `#[nukernel] name`.
    pub label: &'static str,
    /// `file:line: text` of the user's macro call, which a failed build quotes.
    pub origin: &'static str,
    /// The check sites the template numbers from 0.
    pub sites: &'static [Site],
}

impl Template {
    /// A template.
    pub const fn new(
        text: &'static str,
        label: &'static str,
        origin: &'static str,
        sites: &'static [Site],
    ) -> Self {
        Template {
            text,
            label,
            origin,
            sites,
        }
    }
}

type Entry = (usize, Vec<Fill>, Variant, Vec<usize>, &'static KernelSource);
static CACHE: LazyLock<Mutex<HashMap<u64, Vec<Entry>>>> = LazyLock::new(Mutex::default);

/// The program for `t` with these fills, called functions and variant: built once, cached.
///
/// # Safety
///
/// The program runs on a device unchecked, as a [`KernelSource`] would: `t` must be a
/// template the macros generated, `fills` and `calls` what its call site's witness names,
/// and `variant` what the launch-time proof gave for this launch (or the caller's `unsafe`
/// opt-out). Only generated code calls it.
pub unsafe fn instantiate(
    t: &'static Template,
    fills: &[Fill],
    calls: &[&'static Nucode],
    variant: &Variant,
) -> &'static KernelSource {
    let addr = t as *const Template as usize;
    // The called functions' instances too: a generic one's depends on the call's types.
    let callees: Vec<usize> = calls.iter().map(|c| *c as *const Nucode as usize).collect();
    let mut h = DefaultHasher::new();
    (addr, fills, variant, &callees).hash(&mut h);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let bucket = cache.entry(h.finish()).or_default();
    let found = bucket.iter().find(|(a, f, v, c, _)| {
        *a == addr && f.as_slice() == fills && v == variant && *c == callees
    });
    if let Some(e) = found {
        return e.4;
    }
    // One program text per call site, types and variant, for the life of the process.
    let (text, sites, read_back) = program_text(t, fills, calls, variant);
    let text: &'static str = Box::leak(text.into_boxed_str());
    let sites: &'static [&'static Site] = Box::leak(sites.into_boxed_slice());
    let info = FaultInfo {
        label: t.label,
        origin: t.origin,
        sites,
        read_back,
    };
    let src: &'static KernelSource = Box::leak(Box::new(KernelSource::generated(text, info)));
    bucket.push((addr, fills.to_vec(), variant.clone(), callees, src));
    src
}

/// `NUDA_CUDA_CHECK` on the native engine, which builds no source: the program the
/// source-form engines would build for this launch, compiled by NVRTC as theirs is (once per
/// program and process), so that the check holds on every device. Nothing when the check is
/// off.
///
/// # Safety
///
/// As [`instantiate`]: the call site's own template, its witness's fills and calls, and the
/// variant the proof gave for this launch.
pub unsafe fn check_native(
    t: &'static Template,
    fills: &[Fill],
    calls: &[&'static Nucode],
    variant: &Variant,
) -> crate::error::Result<()> {
    if !crate::backend::offline_checks_wanted()? {
        return Ok(());
    }
    // SAFETY: the caller's contract is `instantiate`'s.
    let src = unsafe { instantiate(t, fills, calls, variant) };
    // The native engine builds nothing of this text.
    crate::backend::offline_checks(src, variant.index_type(), t.label, &|| Ok(()))
}

/// The program: a header saying which checks are on, the called functions (callees first,
/// their sites numbered after the kernel's), then the kernel. Also the sites in program
/// order, and whether any check can fire.
fn program_text(
    t: &Template,
    fills: &[Fill],
    calls: &[&'static Nucode],
    variant: &Variant,
) -> (String, Vec<&'static Site>, bool) {
    let order = dependency_order(calls);
    let name_of = |n: &Nucode| {
        let i = order.iter().position(|m| std::ptr::eq(*m, n)).unwrap_or(0);
        format!("nu_{}_{i}", n.name)
    };
    let mut sites: Vec<&'static Site> = t.sites.iter().collect();
    let mut on: Vec<bool> = (0..t.sites.len())
        .map(|k| variant.checks.get(k).copied().unwrap_or(true))
        .collect();
    let mut body = String::new();
    for f in &order {
        let names: Vec<String> = (f.calls)().iter().map(|c| name_of(c)).collect();
        let (types, own) = ((f.types)(), name_of(f));
        body += &fill(f.template, &Cx::new(&types, &names, &own, sites.len()));
        body.push('\n');
        sites.extend(f.sites.iter());
        on.extend(f.sites.iter().map(|_| true));
    }
    let names: Vec<String> = calls.iter().map(|c| name_of(c)).collect();
    body += &fill(t.text, &Cx::new(fills, &names, "", 0));
    let header = header(&sites, &on, variant) + &crate::kernel::declarations_for(&body);
    let text = crate::fault::tidy_paths(&(header + &body));
    (text, sites, on.iter().any(|&c| c))
}

/// `#define NU_C<k> 0|1` per site, each with what it checks, and the width of `usize`.
fn header(sites: &[&Site], on: &[bool], variant: &Variant) -> String {
    let width = if variant.wide { "64" } else { "32" };
    let mut h = format!("/* usize is {width}-bit here: {} */\n", variant.why);
    for (k, (s, c)) in sites.iter().zip(on).enumerate() {
        let what = if s.name.is_empty() {
            format!("{:?}", s.kind)
        } else {
            format!("{:?} `{}`", s.kind, s.name)
        };
        let state = if *c {
            "checked"
        } else {
            "proved safe at launch"
        };
        h += &format!(
            "#define NU_C{k} {} /* {what} at {}: {state} */\n",
            u8::from(*c),
            s.location()
        );
    }
    for (k, z) in variant.zero.iter().enumerate() {
        let why = match z {
            true => "zeroed as the group starts",
            false => "its first store covers it",
        };
        h += &format!(
            "#define NU_Z{k} {} /* nulocal! array {k}: {why} */\n",
            u8::from(*z)
        );
    }
    h
}

fn dependency_order(calls: &[&'static Nucode]) -> Vec<&'static Nucode> {
    fn visit(n: &'static Nucode, out: &mut Vec<&'static Nucode>, stack: &mut Vec<*const Nucode>) {
        // A function already placed, or on the current path (recursion, which OpenCL C
        // rejects with a build error naming it), is not placed again.
        if out.iter().any(|m| std::ptr::eq(*m, n)) || stack.contains(&(n as *const _)) {
            return;
        }
        stack.push(n);
        for c in (n.calls)() {
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

/// What a template's placeholders are filled from.
pub struct Cx<'a> {
    fills: &'a [Fill],
    calls: &'a [String],
    own: &'a str,
    site_base: usize,
}

impl<'a> Cx<'a> {
    /// Fills, called functions' names, this function's own name, and its first site number.
    pub fn new(fills: &'a [Fill], calls: &'a [String], own: &'a str, site_base: usize) -> Self {
        Cx {
            fills,
            calls,
            own,
            site_base,
        }
    }
}

/// Replaces every placeholder of `text`; placeholders may nest (a typed operation's operands).
pub fn fill(text: &str, cx: &Cx<'_>) -> String {
    replace(text, &mut |p| expand(p, cx))
}

fn expand(p: &Placeholder<'_>, cx: &Cx<'_>) -> String {
    let (index, arg) = (p.index, p.arg);
    let ty = || match cx.fills.get(index) {
        Some(Fill::Type(t)) => t,
        _ => "int",
    };
    let cap = match cx.fills.get(index) {
        Some(Fill::Capture(c)) => Some(*c),
        _ => None,
    };
    match p.slot {
        Slot::Type => ty().to_string(),
        Slot::Lit => spell::literal(arg, ty()),
        Slot::StaticLit => static_literal(arg),
        Slot::Func => spell::func(arg, ty()),
        Slot::Op => {
            let operands: Vec<String> = p.operands.iter().map(|o| fill(o, cx)).collect();
            spell::op(arg, ty(), &operands)
        }
        Slot::Param => cap.map(|c| param(c, arg)).unwrap_or_default(),
        Slot::Len => cap.map(|c| count(c, arg)).unwrap_or_default(),
        Slot::Elem => match cap {
            Some(CaptureDesc::Array(t, ..) | CaptureDesc::Private(_, t)) => t.to_string(),
            _ => "float".into(),
        },
        Slot::Channels => match cap {
            Some(CaptureDesc::Image(ch, _)) => ch.to_string(),
            _ => "1".into(),
        },
        Slot::Data => match cap {
            Some(CaptureDesc::Private(..)) => format!("{arg}.v"),
            _ => arg.to_string(),
        },
        Slot::Call => cx.calls.get(index).cloned().unwrap_or_default(),
        Slot::Own => cx.own.to_string(),
        Slot::Site => (cx.site_base + index).to_string(),
        Slot::Konst => match cap {
            Some(CaptureDesc::Const(_, literal)) => format!("({literal})"),
            _ => arg.to_string(),
        },
        Slot::Value => match cx.fills.get(index) {
            Some(Fill::Value(v)) => v.to_string(),
            _ => "0".into(),
        },
    }
}

/// `type:digits`: a literal whose type the source wrote (`5u64`).
fn static_literal(arg: &str) -> String {
    let (ty, digits) = arg.split_once(':').unwrap_or(("int", arg));
    spell::literal(digits, ty)
}

/// The parameter declaration of a capture named `name`.
fn param(c: CaptureDesc, name: &str) -> String {
    let dims = |rank: usize| {
        (0..rank)
            .map(|k| format!(", nu_idx {name}__d{k}"))
            .collect::<String>()
    };
    match c {
        CaptureDesc::Scalar("bool") | CaptureDesc::Const("bool", _) => format!("uchar {name}"),
        CaptureDesc::Scalar(t) | CaptureDesc::Const(t, _) => format!("{t} {name}"),
        CaptureDesc::Array(t, rank, space) => {
            // Dialect marks: a `nulocal!` array is a kernel's local-memory parameter.
            let g = Mk::space(dialect::Space::Global);
            let head = match space {
                Space::GlobalRead => format!("{g}const {t}* restrict {name}"),
                Space::GlobalWrite => format!("{g}{t}* restrict {name}"),
                Space::Constant => format!(
                    "{}{t}* restrict {name}",
                    Mk::space(dialect::Space::Constant)
                ),
                Space::Local => Mk::local_param(t, name, true),
            };
            format!("{head}{}", dims(rank))
        }
        CaptureDesc::Image(_, write) => {
            let q = if write { "write_only" } else { "read_only" };
            format!("{q} image2d_t {name}{}", dims(2))
        }
        CaptureDesc::Private(s, _) => format!("{s} {name}{}", dims(1)),
    }
}

/// The element count of a captured array or image named `name`.
fn count(c: CaptureDesc, name: &str) -> String {
    let rank = match c {
        CaptureDesc::Array(_, r, _) => r,
        CaptureDesc::Private(..) => 1,
        CaptureDesc::Image(..) => 2,
        CaptureDesc::Scalar(_) | CaptureDesc::Const(..) => 0,
    };
    let dims: Vec<String> = (0..rank).map(|k| format!("{name}__d{k}")).collect();
    format!("({})", dims.join(" * "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A captured private array (`[T; N]`) is a struct parameter plus its length, indexed
    /// through `.v`; a captured array is a pointer plus dims, indexed directly.
    #[test]
    fn captured_private_arrays_declare_and_index_as_structs() {
        let fills = [
            Fill::Capture(CaptureDesc::Private("nu_arr_float_3", "float")),
            Fill::Capture(CaptureDesc::Array("float", 1, Space::GlobalRead)),
        ];
        let cx = Cx::new(&fills, &[], "", 0);
        use nuda_abi::placeholder::Ph;
        let text = format!(
            "{} | {}[k] | {} | {} | {} | {}[k]",
            Ph::param(0, "w"),
            Ph::data(0, "w"),
            Ph::elem(0),
            Ph::len(0, "w"),
            Ph::param(1, "a"),
            Ph::data(1, "a")
        );
        assert_eq!(
            dialect::to_opencl(&fill(&text, &cx)),
            "nu_arr_float_3 w, nu_idx w__d0 | w.v[k] | float | (w__d0) | \
             global const float* restrict a, nu_idx a__d0 | a[k]"
        );
    }

    /// A generated program the device cannot build is nuda's bug: the error says so, quotes
    /// the user's call, and asks for a report (issue 27, item 2).
    #[test]
    fn a_generated_program_that_fails_to_build_is_nudas_fault() {
        let Some(info) = crate::device::devices()
            .into_iter()
            .find(|d| d.kind != crate::backend::DeviceKind::Native)
        else {
            assert_ne!(std::env::var("NUDA_REQUIRE_OPENCL").as_deref(), Ok("1"));
            return;
        };
        static BROKEN: Template = Template::new(
            "kernel void broken(global uint* restrict nu_err) { this is not C; }\n",
            "nuwork!",
            "src/main.rs:12: `nfor!(i in n { a[i] = 1.0; })`",
            &[],
        );
        // SAFETY: the program never builds, so nothing runs.
        let src = unsafe { instantiate(&BROKEN, &[], &[], &Variant::checked(&[], false)) };
        let dev = crate::device::device(info.index).unwrap();
        let e = crate::launch::Launch::new(src, "broken")
            .on(&dev)
            .run()
            .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("this is a bug in nuda, not in your code"),
            "{text}"
        );
        assert!(text.contains("please report it"), "{text}");
        assert!(
            text.contains("src/main.rs:12: `nfor!(i in n { a[i] = 1.0; })`"),
            "{text}"
        );
        assert!(!text.contains("fix the OpenCL C"), "{text}");
    }
}
