//! What a macro embeds for each kernel, as data: the template's slots and fills, the
//! companions of `#[nucode]` functions, and the proof program with the launch values it reads.
//! The bottom of the macros' support: `proof` evaluates these, `template` fills them in.

use crate::backend::IndexType;
use crate::fault::Site;
pub use crate::kernel::desc::{CaptureDesc, Input, Space};
use std::any::TypeId;
use std::sync::{Mutex, PoisonError};

/// The companion of a `#[nucode]` function: its template and the functions it calls.
#[derive(Debug)]
pub struct Nucode {
    /// The Rust name, for readable OpenCL C names.
    pub name: &'static str,
    /// OpenCL C with placeholders.
    pub template: &'static str,
    /// Its type slots, from its witness.
    pub types: fn() -> Vec<Fill>,
    /// The `#[nucode]` functions it calls, by position, from its witness: a generic callee's
    /// instance depends on the types at the call.
    pub calls: fn() -> Vec<&'static Nucode>,
    /// Its check sites (always checked: no launch-time proof reaches into functions).
    pub sites: &'static [Site],
    /// Its body's proof program, parameters unknown: whether its `usize` values fit 32 bits.
    pub proof: &'static [Op],
    /// The bytes of its `let`s, private arrays included, from its witness's types.
    pub private: fn() -> usize,
}

/// A cycle among the `#[nucode]` functions reachable from `calls`, as the names along it
/// (`even`, `odd`, `even`), if there is one. OpenCL C has no recursion, and on the native
/// engine it could overflow the stack, so a launch refuses it on every engine.
fn call_cycle(calls: &[&'static Nucode]) -> Option<Vec<&'static str>> {
    fn visit(
        n: &'static Nucode,
        path: &mut Vec<&'static Nucode>,
        done: &mut Vec<*const Nucode>,
    ) -> Option<Vec<&'static str>> {
        if let Some(at) = path.iter().position(|m| std::ptr::eq(*m, n)) {
            let mut names: Vec<&'static str> = path[at..].iter().map(|m| m.name).collect();
            names.push(n.name);
            return Some(names);
        }
        if done.contains(&(n as *const Nucode)) {
            return None;
        }
        path.push(n);
        let found = (n.calls)().into_iter().find_map(|c| visit(c, path, done));
        path.pop();
        done.push(n);
        found
    }
    let mut done = Vec::new();
    calls
        .iter()
        .find_map(|c| visit(c, &mut Vec::new(), &mut done))
}

/// Answers about a function, each found once per process.
pub(crate) type Known<T> = std::sync::Mutex<Vec<(usize, T)>>;

/// `find(f)`, once per function per process: the answers here depend on the function alone,
/// and finding one runs the witnesses of the functions it reaches (every launch would
/// otherwise).
pub(crate) fn once_per_function<T: Clone>(
    known: &Known<T>,
    f: &'static Nucode,
    find: impl FnOnce() -> T,
) -> T {
    let key = f as *const Nucode as usize;
    let lock = || {
        known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some((_, v)) = lock().iter().find(|(a, _)| *a == key) {
        return v.clone();
    }
    let v = find();
    lock().push((key, v.clone()));
    v
}

/// A cycle among the functions `f` reaches ([`call_cycle`]), once per function per process.
pub(crate) fn cycle_once(f: &'static Nucode) -> Option<Vec<&'static str>> {
    static KNOWN: Known<Option<Vec<&'static str>>> = std::sync::Mutex::new(Vec::new());
    once_per_function(&KNOWN, f, || call_cycle(&[f]))
}

/// The hidden twin of a `#[nucode]` function in the type namespace (one type per instance of
/// a generic function): where its [`Nucode`] is.
///
/// # Safety
///
/// Its OpenCL C joins every program that calls the function, unchecked: only `#[nucode]`
/// implements it, with the text it generated from the function's body.
pub unsafe trait NucodeFn {
    /// The companion, built once per process.
    fn nucode() -> &'static Nucode;
}

/// The companion of the function a witness's call slot names: its type is the twin's.
pub fn nucode_of<F: NucodeFn>(_: &Option<F>) -> &'static Nucode {
    F::nucode()
}

/// Instances of generic `#[nucode]` functions, by their twin's type. A static in a generic
/// impl is shared by every instance, so each instance's companion is made on first use and
/// kept for the life of the process (one per instance the program names).
static INSTANCES: Mutex<Vec<(TypeId, &'static Nucode)>> = Mutex::new(Vec::new());

/// The companion of the generic instance `F`, made by `make` on first use.
pub fn nucode_instance<F: 'static>(make: impl FnOnce() -> Nucode) -> &'static Nucode {
    let id = TypeId::of::<F>();
    let mut all = INSTANCES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, n)) = all.iter().find(|(t, _)| *t == id) {
        return n;
    }
    let n: &'static Nucode = Box::leak(Box::new(make()));
    all.push((id, n));
    n
}

/// One value substituted into a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fill {
    /// The OpenCL C type of a type slot.
    Type(&'static str),
    /// A captured value.
    Capture(CaptureDesc),
    /// A constant a `#[nucode]` function names, as an exact OpenCL C literal.
    Value(&'static str),
}

/// A constant a `#[nucode]` function may name: its value as an exact OpenCL C literal.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a constant in a #[nucode] function",
    label = "#[nucode] functions name constants of scalar types (integers, f32, f64, bool)",
    note = "pass a struct or array value as a parameter"
)]
pub trait ConstValue: Copy {
    /// The literal.
    fn c_literal(self) -> String;
}

macro_rules! const_ints {
    ($($t:ty => $u:ty, $c:expr, $cu:expr);* $(;)?) => {$(
        impl ConstValue for $t {
            fn c_literal(self) -> String {
                // The bits through the unsigned twin: exact for every value, `MIN` included.
                let bits = self as $u as u64;
                match $c == $cu {
                    true => format!("(({})({bits}UL))", $c),
                    false => format!("as_{}(({})({bits}UL))", $c, $cu),
                }
            }
        }
    )*};
}
const_ints!(i8 => u8, "char", "uchar"; i16 => u16, "short", "ushort"; i32 => u32, "int", "uint";
    i64 => u64, "long", "ulong"; isize => usize, "nu_sidx", "nu_idx"; u8 => u8, "uchar", "uchar";
    u16 => u16, "ushort", "ushort"; u32 => u32, "uint", "uint"; u64 => u64, "ulong", "ulong";
    usize => usize, "nu_idx", "nu_idx");

impl ConstValue for f32 {
    fn c_literal(self) -> String {
        format!("as_float(0x{:08x}u)", self.to_bits())
    }
}

impl ConstValue for f64 {
    fn c_literal(self) -> String {
        format!("as_double(0x{:016x}UL)", self.to_bits())
    }
}

impl ConstValue for bool {
    fn c_literal(self) -> String {
        self.to_string()
    }
}

/// The fill of a constant a `#[nucode]` function names.
pub fn const_fill<T: ConstValue>(v: &T) -> Fill {
    Fill::Value(const_text(v))
}

/// A constant's literal. Texts are kept once per value for the life of the process, as
/// program texts are.
fn const_text<T: ConstValue>(v: &T) -> &'static str {
    static TEXTS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let text = v.c_literal();
    let mut all = TEXTS.lock().unwrap_or_else(PoisonError::into_inner);
    let found = all.iter().find(|t| **t == text).copied();
    found.unwrap_or_else(|| {
        let t: &'static str = Box::leak(text.into_boxed_str());
        all.push(t);
        t
    })
}

/// A `nuwork!` capture named as a constant, for its fill: [`BakedFill`] when its type has a
/// literal (a number or `bool`), else [`PlainFill`], the capture as any other. Method
/// resolution picks the first that applies (`(&Baked(c)).fill()`).
pub struct Baked<'a, T: ?Sized>(pub &'a T);

/// The fill of a constant with a literal: [`CaptureDesc::Const`].
pub trait BakedFill {
    /// The fill.
    fn fill(&self) -> Fill;
}

impl<T: ConstValue + crate::kernel::Capture> BakedFill for Baked<'_, T> {
    fn fill(&self) -> Fill {
        match self.0.desc() {
            CaptureDesc::Scalar(t) => Fill::Capture(CaptureDesc::Const(t, const_text(self.0))),
            other => Fill::Capture(other),
        }
    }
}

/// The fill of any other capture named as a constant: its own descriptor.
pub trait PlainFill {
    /// The fill.
    fn fill(&self) -> Fill;
}

impl<T: crate::kernel::Capture + ?Sized> PlainFill for &Baked<'_, T> {
    fn fill(&self) -> Fill {
        Fill::Capture(self.0.desc())
    }
}

/// Which checks a launch keeps and how wide `usize` is: decided at launch by `proof`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Variant {
    /// Per site of the template: whether its check stays in the program.
    pub checks: Vec<bool>,
    /// `usize` is 64-bit (`ulong`); else the proof showed 32 bits give the same results.
    pub wide: bool,
    /// Why `usize` has that width, for the program's text.
    pub why: String,
    /// Per `nulocal!` array of a `#[nukernel]`: whether this launch zeroes it (its group
    /// is too small for the kernel's first store to cover it, or no store does).
    pub zero: Vec<bool>,
}

impl Variant {
    /// Every check of `sites` on (bounds checks off if `unchecked`), `usize` 64-bit.
    pub fn checked(sites: &[Site], unchecked: bool) -> Variant {
        Variant {
            checks: sites
                .iter()
                .map(|s| !(unchecked && s.is_bounds()))
                .collect(),
            wide: true,
            why: "as in Rust on 64-bit hosts".into(),
            zero: Vec::new(),
        }
    }

    /// Whether no bounds check is left (proved, or turned off): the native engine then runs
    /// its trusted body, whose accesses skip the check (see `Checker::trusting`).
    pub fn trusts_bounds(&self, sites: &[Site]) -> bool {
        self.checks
            .iter()
            .zip(sites)
            .all(|(on, s)| !on || !s.is_bounds())
    }

    /// The index type the launch passes sizes in.
    pub fn index_type(&self) -> IndexType {
        if self.wide {
            IndexType::U64
        } else {
            IndexType::U32
        }
    }
}

/// A register: the value of op number `r` of the program.
pub type Reg = u32;

/// No register (a range without a step, an index past the rank).
pub const NONE: Reg = u32::MAX;

/// The type of a value: a template slot, filled with rustc's answer at launch, or a type the
/// source wrote (`as usize`, a suffixed literal), by its OpenCL C name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// Template slot `k`.
    Slot(u32),
    /// The OpenCL C type of this name.
    Cl(&'static str),
}

pub use nuda_abi::proof::{Bin, Cmp};

/// A work-item builtin of `#[nukernel]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Item {
    GlobalId,
    LocalId,
    GroupId,
    GlobalSize,
    LocalSize,
    NumGroups,
}

/// One step of a proof program. Every op defines its register, even checks (as the unknown
/// value), so op `r` is register `r`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// A literal of a type.
    Lit(i128, Ty),
    /// A value the analysis does not follow (a float, a call's result): anything.
    Top,
    /// A variable assigned beyond its `let`: any value of its type.
    Var(Ty),
    /// Captured scalar `k`.
    Scalar(u16),
    /// Dim `d` of captured array or image `k`.
    Dim(u16, u8),
    /// The element count of captured array `k`.
    Len(u16),
    /// An element of captured array `k`: any value of its element type.
    Elem(u16),
    /// A value read from a struct's field or a private array: any value of its type.
    Loaded(Ty),
    /// The variable of mapped loop `d` of kernel `k`, of a type.
    Mapped(u16, u8, Ty),
    /// A work-item builtin of dimension (register) `d`.
    Item(Item, Reg),
    /// `-a` (`neg` true) or `!a`, of a type, at a source line.
    Un(bool, Reg, Ty, u32),
    /// `a op b`, of a type, at a source line.
    Bin(Bin, Reg, Reg, Ty, u32),
    /// `a as T`, at a source line.
    Cast(Reg, Ty, u32),
    /// `a.max(b)` (true) or `a.min(b)`.
    MinMax(bool, Reg, Reg),
    /// `a.abs()`, of a type, at a source line.
    Abs(Reg, Ty, u32),
    /// A count of bits of a value of a type (`count_ones`, `leading_zeros`), at a source line.
    Bits(Ty, u32),
    /// A rotation of a value of a type (`rotate_left`, `rotate_right`), at a source line.
    Rotate(Ty, u32),
    /// Either value (`if` / `else`).
    Hull(Reg, Reg),
    /// `a`, where `a cmp b` holds (inside an `if` that tested it).
    Refine(Reg, Cmp, Reg),
    /// The variable of a loop over `start..end` (`..=` if `incl`) by `step` ([`NONE`]: 1),
    /// of a type, at a source line.
    Range {
        /// First value.
        start: Reg,
        /// Bound.
        end: Reg,
        /// Step, or [`NONE`].
        step: Reg,
        /// Whether `end` is included.
        incl: bool,
        /// The variable's type.
        ty: Ty,
        /// Source line.
        line: u32,
    },
    /// The trip count of such a range (a `usize`), at a source line; check site `site`
    /// faults where the count does not fit.
    Trips {
        /// The site.
        site: u32,
        /// First value.
        start: Reg,
        /// Bound.
        end: Reg,
        /// Step, or [`NONE`].
        step: Reg,
        /// Whether `end` is included.
        incl: bool,
        /// Source line.
        line: u32,
    },
    /// `start + count * step` (the annotations' loop values), of a type, at a source line.
    Offset {
        /// First value.
        start: Reg,
        /// Iteration number.
        count: Reg,
        /// Step, or [`NONE`].
        step: Reg,
        /// The value's type.
        ty: Ty,
        /// Source line.
        line: u32,
    },
    /// Check site `site`: captured array `cap` indexed by `idx` (unused entries [`NONE`]).
    Index {
        /// The site.
        site: u32,
        /// The array.
        cap: u16,
        /// The index, one register per dim.
        idx: [Reg; 3],
    },
    /// Check site `site`: captured image `cap` written at `(x, y)`.
    Image {
        /// The site.
        site: u32,
        /// The image.
        cap: u16,
        /// Column.
        x: Reg,
        /// Row.
        y: Reg,
    },
    /// Check site `site`: `a / b` or `a % b` in a type.
    Divide {
        /// The site.
        site: u32,
        /// Dividend.
        a: Reg,
        /// Divisor.
        b: Reg,
        /// The operation's type.
        ty: Ty,
    },
    /// Check site `site`: a loop step evaluated in the kernel ([`NONE`]: no step, 1).
    Step {
        /// The site.
        site: u32,
        /// The step.
        step: Reg,
    },
}

/// A mapped loop at launch: the smallest and largest value, first value, step, trip count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mapped {
    /// Hull of the values (`None`: no iteration).
    pub hull: Option<(i128, i128)>,
    /// First value and step, as passed to the kernel.
    pub first_step: (i128, i128),
    /// Trip count.
    pub trips: usize,
}

/// Everything the proof reads at launch besides the program.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The template's fills: slot types, then capture descriptions.
    pub fills: &'a [Fill],
    /// The captures, in fill order.
    pub captures: &'a [Input],
    /// Per kernel, its mapped loops (`nuwork!`).
    pub mapped: &'a [&'a [Mapped]],
    /// Global (rounded up) and local sizes (`nucall!`).
    pub work: Option<(&'a [usize], &'a [usize])>,
    /// The called `#[nucode]` functions.
    pub calls: &'a [&'static Nucode],
    /// `#[unchecked]`: bounds checks off whatever the proof says.
    pub unchecked: bool,
}

impl<'a> Inputs<'a> {
    /// Only slot types: a `#[nucode]` function's body, its parameters unknown.
    pub fn of_fills(fills: &'a [Fill]) -> Self {
        Inputs {
            fills,
            captures: &[],
            mapped: &[],
            work: None,
            calls: &[],
            unchecked: false,
        }
    }
}
