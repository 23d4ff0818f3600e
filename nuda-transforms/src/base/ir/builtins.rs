//! The builtin methods and free functions kernels may call: one table each, with arity and
//! the OpenCL C and native spellings, which the checks, the emitters and the proof all read.

/// A builtin method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum MethodKind {
    // floats
    Sqrt,
    Abs,
    WrappingAbs,
    UnsignedAbs,
    Min,
    Max,
    MulAdd,
    Exp,
    Ln,
    Log2,
    Sin,
    Cos,
    Tan,
    Powi,
    Powf,
    Floor,
    Ceil,
    Round,
    Recip,
    Tanh,
    Sinh,
    Cosh,
    Asin,
    Acos,
    Atan,
    Atan2,
    Log10,
    Exp2,
    Cbrt,
    Hypot,
    Trunc,
    Copysign,
    Signum,
    IsNan,
    ToRadians,
    ToDegrees,
    // integers
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    RotateLeft,
    RotateRight,
    CountOnes,
    LeadingZeros,
    TrailingZeros,
    Pow,
    SwapBytes,
    SaturatingAdd,
    SaturatingSub,
    SaturatingMul,
    AbsDiff,
    RemEuclid,
    DivEuclid,
    WrappingNeg,
    ToBits,
    Clamp,
    CheckedAdd,
    CheckedSub,
    CheckedMul,
    CheckedDiv,
    CheckedRem,
    CheckedNeg,
    CheckedAbs,
    SaturatingNeg,
    SaturatingAbs,
    CheckedPow,
    SaturatingPow,
    CheckedShl,
    CheckedShr,
    CheckedDivEuclid,
    CheckedRemEuclid,
    SaturatingDiv,
    // arrays and images
    Dims,
    Len,
    Read,
    Write,
    // atomics on arrays
    AtomicAdd,
    AtomicSub,
    AtomicMin,
    AtomicMax,
    AtomicAnd,
    AtomicOr,
    AtomicXor,
    AtomicXchg,
    AtomicCmpxchg,
}

/// A builtin method: its name, arity and spellings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Method {
    /// The Rust name.
    pub name: &'static str,
    /// Which method.
    pub kind: MethodKind,
    /// Number of arguments, besides the receiver.
    pub arity: usize,
    /// The OpenCL C spelling.
    pub cl: ClMethod,
    /// The native spelling.
    pub native: NativeMethod,
    /// Whether OpenCL C overloads it for vectors, so that a `vector(w)` nest applies it lane
    /// by lane; a method without it keeps a nest from vectorising.
    pub lanes: bool,
    /// What the launch-time proof knows of its value.
    pub proof: ProofRule,
}

/// What the launch-time proof knows of a method's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofRule {
    /// Nothing it follows (a float, a value it does not bound): any value.
    Top,
    /// Any value, from a division whose zero divisor faults at the call's site, as `/`'s.
    Divides,
    /// `min` (`false`) or `max` (`true`) of the receiver and the argument.
    MinMax(bool),
    /// `abs`: the receiver's magnitude.
    Abs,
    /// Within the bounds of this operator's result (wrapping and saturating forms), checked
    /// at the same site as the operator where it divides.
    Binary(super::BinOp),
    /// A bit count: from 0 to the type's width.
    Bits,
    /// A value that depends on a `usize`'s width (rotations, checked forms): the proof keeps
    /// 64 bits for it.
    Width,
    /// A method of an array or image: its dims, its length, an image read or write.
    Memory,
}

/// How OpenCL C spells a builtin method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClMethod {
    /// A C function of the receiver and then the arguments: `f(x, a, ..)`.
    Call(&'static str),
    /// Spelled from the receiver's type, which the template fills in at launch (integer
    /// semantics, `fmin` against `min`, ..): the emitter's `typed_method`.
    Typed,
    /// `(1 / (x))`.
    Recip,
    /// A method of a captured array or image: the emitter's `memory_method`.
    Memory,
}

/// How the native engine spells a builtin method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeMethod {
    /// Rust's own method of the same name.
    Rust,
    /// Rust's method, or in kernels the wrapping twin of `nuda::kernel::Arith` (`nu_abs`:
    /// `i32::MIN.abs()` panics in Rust but wraps in nuda's kernels, as on the device).
    Arith(&'static str),
    /// In kernels the wrapping integer twin of `nuda::kernel::Shift` (`nu_pow`: `pow`
    /// overflows, and panics in debug builds, in Rust).
    Int(&'static str),
    /// In kernels `nuda::kernel::Arith`'s checked method of this name, with the checker and
    /// the call's site (`nu_rem_euclid`: a zero divisor is a fault, not a panic; `nu_clamp`:
    /// bounds out of order are one).
    Checked(&'static str),
    /// `x.checked_op(y).unwrap_or(v)`, which the syntax makes one method of `x` with `y, v`.
    CheckedOr,
    /// A view's checked method in kernels (`write_at`, which records out-of-range writes).
    View(&'static str),
    /// A writable view's checked atomic of the same name: index, values, checker, site.
    Atomic,
}

/// A row: every column but the native spelling (Rust's own method unless a row says
/// otherwise) is an argument, so a new method cannot leave one out.
const fn m(
    name: &'static str,
    kind: MethodKind,
    arity: usize,
    cl: ClMethod,
    lanes: bool,
    proof: ProofRule,
) -> Method {
    Method {
        name,
        kind,
        arity,
        cl,
        native: NativeMethod::Rust,
        lanes,
        proof,
    }
}

// Short names for the table's rows.
use self::{ClMethod as C, MethodKind as K, ProofRule as P};
use super::BinOp;

/// Every builtin method: the one table the checks, the emitters and the proof read. A row's
/// columns: the name, the kind, the arity, the OpenCL C spelling, whether `vector(w)` applies
/// it lane by lane, what the proof knows of its value (and the native spelling, Rust's own
/// method unless the row says otherwise).
pub const METHODS: &[Method] = &[
    m("sqrt", K::Sqrt, 0, C::Call("sqrt"), true, P::Top),
    Method {
        native: NativeMethod::Arith("nu_abs"),
        ..m("abs", K::Abs, 0, C::Typed, true, P::Abs)
    },
    // Integers: |x| in the unsigned twin (`nu_abs_T`, `nu_unsigned_abs_T`), which no C or
    // LLVM rule may assume non-negative; `MIN.wrapping_abs()` is `MIN`.
    m("wrapping_abs", K::WrappingAbs, 0, C::Typed, false, P::Top),
    m("unsigned_abs", K::UnsignedAbs, 0, C::Typed, false, P::Top),
    m("min", K::Min, 1, C::Typed, true, P::MinMax(false)),
    m("max", K::Max, 1, C::Typed, true, P::MinMax(true)),
    m("mul_add", K::MulAdd, 2, C::Call("fma"), true, P::Top),
    m("exp", K::Exp, 0, C::Call("exp"), true, P::Top),
    m("ln", K::Ln, 0, C::Call("log"), true, P::Top),
    m("log2", K::Log2, 0, C::Call("log2"), true, P::Top),
    m("sin", K::Sin, 0, C::Call("sin"), true, P::Top),
    m("cos", K::Cos, 0, C::Call("cos"), true, P::Top),
    m("tan", K::Tan, 0, C::Call("tan"), true, P::Top),
    // The prelude's `nu_powi_<type>`: Rust's multiplications in Rust's order (`pown` may
    // round otherwise).
    m("powi", K::Powi, 1, C::Typed, false, P::Top),
    m("powf", K::Powf, 1, C::Call("pow"), true, P::Top),
    m("floor", K::Floor, 0, C::Call("floor"), true, P::Top),
    m("ceil", K::Ceil, 0, C::Call("ceil"), true, P::Top),
    m("round", K::Round, 0, C::Call("round"), true, P::Top),
    m("recip", K::Recip, 0, C::Recip, true, P::Top),
    // OpenCL C's functions of the same meaning: argument order as Rust's receiver first
    // (`y.atan2(x)` is `atan2(y, x)`), results within the built-ins' documented ULP.
    m("tanh", K::Tanh, 0, C::Call("tanh"), true, P::Top),
    m("sinh", K::Sinh, 0, C::Call("sinh"), true, P::Top),
    m("cosh", K::Cosh, 0, C::Call("cosh"), true, P::Top),
    m("asin", K::Asin, 0, C::Call("asin"), true, P::Top),
    m("acos", K::Acos, 0, C::Call("acos"), true, P::Top),
    m("atan", K::Atan, 0, C::Call("atan"), true, P::Top),
    m("atan2", K::Atan2, 1, C::Call("atan2"), true, P::Top),
    m("log10", K::Log10, 0, C::Call("log10"), true, P::Top),
    m("exp2", K::Exp2, 0, C::Call("exp2"), true, P::Top),
    m("cbrt", K::Cbrt, 0, C::Call("cbrt"), true, P::Top),
    m("hypot", K::Hypot, 1, C::Call("hypot"), true, P::Top),
    m("trunc", K::Trunc, 0, C::Call("trunc"), true, P::Top),
    m(
        "copysign",
        K::Copysign,
        1,
        C::Call("copysign"),
        true,
        P::Top,
    ),
    m("is_nan", K::IsNan, 0, C::Call("isnan"), false, P::Top),
    m(
        "to_radians",
        K::ToRadians,
        0,
        C::Call("radians"),
        false,
        P::Top,
    ),
    m(
        "to_degrees",
        K::ToDegrees,
        0,
        C::Call("degrees"),
        false,
        P::Top,
    ),
    // Floats and integers alike: the prelude's `nu_signum_<type>` (NaN stays NaN, -0.0 is
    // -1).
    m("signum", K::Signum, 0, C::Typed, false, P::Top),
    m(
        "wrapping_add",
        K::WrappingAdd,
        1,
        C::Typed,
        false,
        P::Binary(BinOp::Add),
    ),
    m(
        "wrapping_sub",
        K::WrappingSub,
        1,
        C::Typed,
        false,
        P::Binary(BinOp::Sub),
    ),
    m(
        "wrapping_mul",
        K::WrappingMul,
        1,
        C::Typed,
        false,
        P::Binary(BinOp::Mul),
    ),
    m("rotate_left", K::RotateLeft, 1, C::Typed, false, P::Width),
    m("rotate_right", K::RotateRight, 1, C::Typed, false, P::Width),
    m("count_ones", K::CountOnes, 0, C::Typed, false, P::Bits),
    m(
        "leading_zeros",
        K::LeadingZeros,
        0,
        C::Typed,
        false,
        P::Bits,
    ),
    m(
        "trailing_zeros",
        K::TrailingZeros,
        0,
        C::Typed,
        false,
        P::Bits,
    ),
    Method {
        native: NativeMethod::Int("nu_pow"),
        ..m("pow", K::Pow, 1, C::Typed, false, P::Width)
    },
    m("swap_bytes", K::SwapBytes, 0, C::Typed, false, P::Width),
    m(
        "saturating_mul",
        K::SaturatingMul,
        1,
        C::Typed,
        false,
        P::Binary(BinOp::Mul),
    ),
    Method {
        native: NativeMethod::Checked("nu_rem_euclid"),
        ..m(
            "rem_euclid",
            K::RemEuclid,
            1,
            C::Typed,
            false,
            P::Binary(BinOp::Rem),
        )
    },
    // Euclid's quotient: a zero divisor faults at the call, as `/`; what the proof knows of
    // `/`'s value does not hold for it (`-7.div_euclid(2)` is -4), so its value is any.
    Method {
        native: NativeMethod::Checked("nu_div_euclid"),
        ..m("div_euclid", K::DivEuclid, 1, C::Typed, false, P::Divides)
    },
    m("wrapping_neg", K::WrappingNeg, 0, C::Typed, false, P::Top),
    // A float's bits (`as_uint`, `as_ulong`); integers have no `to_bits`, which the witness
    // says first.
    m("to_bits", K::ToBits, 0, C::Typed, false, P::Top),
    Method {
        native: NativeMethod::Checked("nu_clamp"),
        ..m("clamp", K::Clamp, 2, C::Typed, false, P::Top)
    },
    checked_or("checked_add", K::CheckedAdd),
    checked_or("checked_sub", K::CheckedSub),
    checked_or("checked_mul", K::CheckedMul),
    checked_or("checked_div", K::CheckedDiv),
    checked_or("checked_rem", K::CheckedRem),
    // `x.checked_neg().unwrap_or(v)`, `x.checked_abs().unwrap_or(v)`: `v` is the argument.
    Method {
        arity: 1,
        ..checked_or("checked_neg", K::CheckedNeg)
    },
    Method {
        arity: 1,
        ..checked_or("checked_abs", K::CheckedAbs)
    },
    checked_or("checked_pow", K::CheckedPow),
    // `None` for a shift of the type's bits or more; the amount is a `u32`, as in Rust.
    checked_or("checked_shl", K::CheckedShl),
    checked_or("checked_shr", K::CheckedShr),
    checked_or("checked_div_euclid", K::CheckedDivEuclid),
    checked_or("checked_rem_euclid", K::CheckedRemEuclid),
    // `MIN / -1` saturates to `MAX`; a zero divisor faults at the call, where Rust panics.
    Method {
        native: NativeMethod::Checked("nu_saturating_div"),
        ..m(
            "saturating_div",
            K::SaturatingDiv,
            1,
            C::Typed,
            false,
            P::Binary(BinOp::Div),
        )
    },
    // A power past the type saturates to `MAX`, or to `MIN` for a negative base and an odd
    // exponent, as in Rust.
    m(
        "saturating_pow",
        K::SaturatingPow,
        1,
        C::Typed,
        false,
        P::Width,
    ),
    // Signed types only, as in Rust: `MIN` saturates to `MAX`.
    m(
        "saturating_neg",
        K::SaturatingNeg,
        0,
        C::Typed,
        false,
        P::Width,
    ),
    m(
        "saturating_abs",
        K::SaturatingAbs,
        0,
        C::Typed,
        false,
        P::Width,
    ),
    // OpenCL C's `add_sat`, `sub_sat` and `abs_diff` have Rust's meaning on every integer
    // type (`abs_diff` of signed values is unsigned in both).
    m(
        "saturating_add",
        K::SaturatingAdd,
        1,
        C::Call("add_sat"),
        false,
        P::Binary(BinOp::Add),
    ),
    m(
        "saturating_sub",
        K::SaturatingSub,
        1,
        C::Call("sub_sat"),
        false,
        P::Binary(BinOp::Sub),
    ),
    m(
        "abs_diff",
        K::AbsDiff,
        1,
        C::Call("abs_diff"),
        false,
        P::Top,
    ),
    m("dims", K::Dims, 0, C::Memory, false, P::Memory),
    m("len", K::Len, 0, C::Memory, false, P::Memory),
    m("read", K::Read, 2, C::Memory, false, P::Memory),
    Method {
        native: NativeMethod::View("write_at"),
        ..m("write", K::Write, 3, C::Memory, false, P::Memory)
    },
    atomic("atomic_add", K::AtomicAdd, 2),
    atomic("atomic_sub", K::AtomicSub, 2),
    atomic("atomic_min", K::AtomicMin, 2),
    atomic("atomic_max", K::AtomicMax, 2),
    atomic("atomic_and", K::AtomicAnd, 2),
    atomic("atomic_or", K::AtomicOr, 2),
    atomic("atomic_xor", K::AtomicXor, 2),
    atomic("atomic_xchg", K::AtomicXchg, 2),
    atomic("atomic_cmpxchg", K::AtomicCmpxchg, 3),
];

/// `x.checked_op(y).unwrap_or(v)`: the prelude's `nu_checked_op_<type>(x, y, v)` in OpenCL C,
/// Rust's own chain natively.
const fn checked_or(name: &'static str, kind: MethodKind) -> Method {
    Method {
        native: NativeMethod::CheckedOr,
        // Whether a usize operation overflows depends on its width.
        ..m(name, kind, 2, ClMethod::Typed, false, ProofRule::Width)
    }
}

/// An atomic on a captured array: `a.atomic_op(index, values..)`; the prelude's
/// `nu_atomic_<op>_<type>` in OpenCL C, the view's method of the same name natively.
const fn atomic(name: &'static str, kind: MethodKind, arity: usize) -> Method {
    Method {
        name,
        kind,
        arity,
        cl: ClMethod::Memory,
        native: NativeMethod::Atomic,
        lanes: false,
        proof: ProofRule::Memory,
    }
}

impl MethodKind {
    /// The builtin method of this name.
    pub fn of(name: &str) -> Option<MethodKind> {
        METHODS.iter().find(|m| m.name == name).map(|m| m.kind)
    }

    /// The names, for error messages.
    pub fn list() -> String {
        METHODS
            .iter()
            .map(|m| m.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The method's row of the table.
    pub fn spec(self) -> &'static Method {
        match METHODS.iter().find(|m| m.kind == self) {
            Some(m) => m,
            None => unreachable!("every method kind has a row in METHODS"),
        }
    }

    /// Number of arguments, besides the receiver.
    pub fn arity(self) -> usize {
        self.spec().arity
    }

    /// Whether the method acts on an array or image (a captured variable) rather than a value.
    pub fn on_memory(self) -> bool {
        self.spec().cl == ClMethod::Memory
    }

    /// Whether it is an atomic read-modify-write of an array element.
    pub fn is_atomic(self) -> bool {
        self.spec().native == NativeMethod::Atomic
    }

    /// Whether it writes the array or image it is called on.
    pub fn writes(self) -> bool {
        self == MethodKind::Write || self.is_atomic()
    }

    /// Whether its value depends on memory, which other work-items may change: it may not
    /// be hoisted or taken as uniform.
    pub fn reads_memory(self) -> bool {
        self == MethodKind::Read || self.is_atomic()
    }

    /// An atomic's operation as the prelude's helpers name it: `add`, .., `cmpxchg`.
    pub fn atomic_op(self) -> Option<&'static str> {
        let spec = self.spec();
        spec.name
            .strip_prefix("atomic_")
            .filter(|_| self.is_atomic())
    }
}

/// Whether the OpenCL C for this method depends on the receiver's type.
pub fn method_needs_receiver_type(k: MethodKind) -> bool {
    k.spec().cl == ClMethod::Typed
}

/// A builtin free function of the kernel language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinFn {
    /// The name kernels call it by.
    pub name: &'static str,
    /// Number of arguments.
    pub arity: usize,
    /// What it is, which says where it may be called.
    pub kind: FnKind,
    /// The OpenCL C spelling, `{0}` standing for the first argument.
    pub cl: &'static str,
    /// How the native emitter calls it.
    pub native: NativeFn,
}

/// What a builtin free function is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FnKind {
    /// A work-item query (`#[nukernel]` only), by the launch-time proof's `Item` name;
    /// `varies` when work-items of one group get different answers.
    WorkItem {
        /// `nuda::__private::Item`'s variant.
        item: &'static str,
        /// Whether work-items of one group differ (ids) or agree (sizes, group ids).
        varies: bool,
    },
    /// `barrier()` (`#[nukernel]` only).
    Barrier,
    /// A pure math function, anywhere.
    Math,
}

/// How the native engine spells a builtin free function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeFn {
    /// A method of the work-item, `__nuda_w.name(args)`.
    WorkItem,
    /// The group's barrier, `__nuda_b.wait()`.
    Barrier,
    /// A function of the runtime's macro support, `nuda::__private::name(args)`.
    Private,
}

const fn item(name: &'static str, item: &'static str, varies: bool, cl: &'static str) -> BuiltinFn {
    BuiltinFn {
        name,
        arity: 1,
        kind: FnKind::WorkItem { item, varies },
        cl,
        native: NativeFn::WorkItem,
    }
}

/// Every builtin free function: the one table the checks, the emitters and the proof read.
/// Work-item queries go through the prelude's `nu_*`, which answer past the NDRange's
/// dimensions as the native engine does.
pub const BUILTIN_FNS: &[BuiltinFn] = &[
    item("global_id", "GlobalId", true, "nu_global_id((nu_idx)({0}))"),
    item("local_id", "LocalId", true, "nu_local_id((nu_idx)({0}))"),
    item("group_id", "GroupId", false, "nu_group_id((nu_idx)({0}))"),
    item(
        "global_size",
        "GlobalSize",
        false,
        "nu_global_size((nu_idx)({0}))",
    ),
    item(
        "local_size",
        "LocalSize",
        false,
        "nu_local_size((nu_idx)({0}))",
    ),
    item(
        "num_groups",
        "NumGroups",
        false,
        "nu_num_groups((nu_idx)({0}))",
    ),
    BuiltinFn {
        name: "barrier",
        arity: 0,
        kind: FnKind::Barrier,
        cl: "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)",
        native: NativeFn::Barrier,
    },
    BuiltinFn {
        name: "rsqrt",
        arity: 1,
        kind: FnKind::Math,
        cl: "rsqrt({0})",
        native: NativeFn::Private,
    },
];

/// The builtin free function of this name.
pub fn builtin_fn(name: &str) -> Option<&'static BuiltinFn> {
    BUILTIN_FNS.iter().find(|f| f.name == name)
}

/// The builtin free function a call's path names, if it is a bare builtin name.
pub fn builtin_of(path: &syn::Path) -> Option<&'static BuiltinFn> {
    builtin_fn(&path.get_ident()?.to_string())
}

impl BuiltinFn {
    /// Whether it exists in `#[nukernel]` bodies only.
    pub fn kernel_only(&self) -> bool {
        !matches!(self.kind, FnKind::Math)
    }

    /// The OpenCL C call with these arguments.
    pub fn cl_call(&self, args: &[String]) -> String {
        let one = args.first().map_or("", String::as_str);
        self.cl.replace("{0}", one)
    }
}
