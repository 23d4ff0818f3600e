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

const fn m(name: &'static str, kind: MethodKind, arity: usize, cl: ClMethod) -> Method {
    Method {
        name,
        kind,
        arity,
        cl,
        native: NativeMethod::Rust,
    }
}

/// Every builtin method: the one table the checks, the emitters and the proof read.
pub const METHODS: &[Method] = &[
    m("sqrt", MethodKind::Sqrt, 0, ClMethod::Call("sqrt")),
    Method {
        native: NativeMethod::Arith("nu_abs"),
        ..m("abs", MethodKind::Abs, 0, ClMethod::Typed)
    },
    // Integers: |x| in the unsigned twin (`nu_abs_T`, `nu_unsigned_abs_T`), which no C or
    // LLVM rule may assume non-negative; `MIN.wrapping_abs()` is `MIN`.
    m("wrapping_abs", MethodKind::WrappingAbs, 0, ClMethod::Typed),
    m("unsigned_abs", MethodKind::UnsignedAbs, 0, ClMethod::Typed),
    m("min", MethodKind::Min, 1, ClMethod::Typed),
    m("max", MethodKind::Max, 1, ClMethod::Typed),
    m("mul_add", MethodKind::MulAdd, 2, ClMethod::Call("fma")),
    m("exp", MethodKind::Exp, 0, ClMethod::Call("exp")),
    m("ln", MethodKind::Ln, 0, ClMethod::Call("log")),
    m("log2", MethodKind::Log2, 0, ClMethod::Call("log2")),
    m("sin", MethodKind::Sin, 0, ClMethod::Call("sin")),
    m("cos", MethodKind::Cos, 0, ClMethod::Call("cos")),
    m("tan", MethodKind::Tan, 0, ClMethod::Call("tan")),
    // The prelude's `nu_powi_<type>`: Rust's multiplications in Rust's order (`pown` may
    // round otherwise).
    m("powi", MethodKind::Powi, 1, ClMethod::Typed),
    m("powf", MethodKind::Powf, 1, ClMethod::Call("pow")),
    m("floor", MethodKind::Floor, 0, ClMethod::Call("floor")),
    m("ceil", MethodKind::Ceil, 0, ClMethod::Call("ceil")),
    m("round", MethodKind::Round, 0, ClMethod::Call("round")),
    m("recip", MethodKind::Recip, 0, ClMethod::Recip),
    // OpenCL C's functions of the same meaning: argument order as Rust's receiver first
    // (`y.atan2(x)` is `atan2(y, x)`), results within the built-ins' documented ULP.
    m("tanh", MethodKind::Tanh, 0, ClMethod::Call("tanh")),
    m("sinh", MethodKind::Sinh, 0, ClMethod::Call("sinh")),
    m("cosh", MethodKind::Cosh, 0, ClMethod::Call("cosh")),
    m("asin", MethodKind::Asin, 0, ClMethod::Call("asin")),
    m("acos", MethodKind::Acos, 0, ClMethod::Call("acos")),
    m("atan", MethodKind::Atan, 0, ClMethod::Call("atan")),
    m("atan2", MethodKind::Atan2, 1, ClMethod::Call("atan2")),
    m("log10", MethodKind::Log10, 0, ClMethod::Call("log10")),
    m("exp2", MethodKind::Exp2, 0, ClMethod::Call("exp2")),
    m("cbrt", MethodKind::Cbrt, 0, ClMethod::Call("cbrt")),
    m("hypot", MethodKind::Hypot, 1, ClMethod::Call("hypot")),
    m("trunc", MethodKind::Trunc, 0, ClMethod::Call("trunc")),
    m(
        "copysign",
        MethodKind::Copysign,
        1,
        ClMethod::Call("copysign"),
    ),
    m("is_nan", MethodKind::IsNan, 0, ClMethod::Call("isnan")),
    m(
        "to_radians",
        MethodKind::ToRadians,
        0,
        ClMethod::Call("radians"),
    ),
    m(
        "to_degrees",
        MethodKind::ToDegrees,
        0,
        ClMethod::Call("degrees"),
    ),
    // Floats and integers alike: the prelude's `nu_signum_<type>` (NaN stays NaN, -0.0 is
    // -1).
    m("signum", MethodKind::Signum, 0, ClMethod::Typed),
    m("wrapping_add", MethodKind::WrappingAdd, 1, ClMethod::Typed),
    m("wrapping_sub", MethodKind::WrappingSub, 1, ClMethod::Typed),
    m("wrapping_mul", MethodKind::WrappingMul, 1, ClMethod::Typed),
    m("rotate_left", MethodKind::RotateLeft, 1, ClMethod::Typed),
    m("rotate_right", MethodKind::RotateRight, 1, ClMethod::Typed),
    m("count_ones", MethodKind::CountOnes, 0, ClMethod::Typed),
    m(
        "leading_zeros",
        MethodKind::LeadingZeros,
        0,
        ClMethod::Typed,
    ),
    m(
        "trailing_zeros",
        MethodKind::TrailingZeros,
        0,
        ClMethod::Typed,
    ),
    Method {
        native: NativeMethod::Int("nu_pow"),
        ..m("pow", MethodKind::Pow, 1, ClMethod::Typed)
    },
    m("swap_bytes", MethodKind::SwapBytes, 0, ClMethod::Typed),
    m(
        "saturating_mul",
        MethodKind::SaturatingMul,
        1,
        ClMethod::Typed,
    ),
    Method {
        native: NativeMethod::Checked("nu_rem_euclid"),
        ..m("rem_euclid", MethodKind::RemEuclid, 1, ClMethod::Typed)
    },
    Method {
        native: NativeMethod::Checked("nu_clamp"),
        ..m("clamp", MethodKind::Clamp, 2, ClMethod::Typed)
    },
    checked_or("checked_add", MethodKind::CheckedAdd),
    checked_or("checked_sub", MethodKind::CheckedSub),
    checked_or("checked_mul", MethodKind::CheckedMul),
    checked_or("checked_div", MethodKind::CheckedDiv),
    checked_or("checked_rem", MethodKind::CheckedRem),
    // `x.checked_neg().unwrap_or(v)`, `x.checked_abs().unwrap_or(v)`: `v` is the argument.
    Method {
        arity: 1,
        ..checked_or("checked_neg", MethodKind::CheckedNeg)
    },
    Method {
        arity: 1,
        ..checked_or("checked_abs", MethodKind::CheckedAbs)
    },
    checked_or("checked_pow", MethodKind::CheckedPow),
    // `None` for a shift of the type's bits or more; the amount is a `u32`, as in Rust.
    checked_or("checked_shl", MethodKind::CheckedShl),
    checked_or("checked_shr", MethodKind::CheckedShr),
    checked_or("checked_div_euclid", MethodKind::CheckedDivEuclid),
    checked_or("checked_rem_euclid", MethodKind::CheckedRemEuclid),
    // `MIN / -1` saturates to `MAX`; a zero divisor faults at the call, where Rust panics.
    Method {
        native: NativeMethod::Checked("nu_saturating_div"),
        ..m(
            "saturating_div",
            MethodKind::SaturatingDiv,
            1,
            ClMethod::Typed,
        )
    },
    // A power past the type saturates to `MAX`, or to `MIN` for a negative base and an odd
    // exponent, as in Rust.
    m(
        "saturating_pow",
        MethodKind::SaturatingPow,
        1,
        ClMethod::Typed,
    ),
    // Signed types only, as in Rust: `MIN` saturates to `MAX`.
    m(
        "saturating_neg",
        MethodKind::SaturatingNeg,
        0,
        ClMethod::Typed,
    ),
    m(
        "saturating_abs",
        MethodKind::SaturatingAbs,
        0,
        ClMethod::Typed,
    ),
    // OpenCL C's `add_sat`, `sub_sat` and `abs_diff` have Rust's meaning on every integer
    // type (`abs_diff` of signed values is unsigned in both).
    m(
        "saturating_add",
        MethodKind::SaturatingAdd,
        1,
        ClMethod::Call("add_sat"),
    ),
    m(
        "saturating_sub",
        MethodKind::SaturatingSub,
        1,
        ClMethod::Call("sub_sat"),
    ),
    m(
        "abs_diff",
        MethodKind::AbsDiff,
        1,
        ClMethod::Call("abs_diff"),
    ),
    m("dims", MethodKind::Dims, 0, ClMethod::Memory),
    m("len", MethodKind::Len, 0, ClMethod::Memory),
    m("read", MethodKind::Read, 2, ClMethod::Memory),
    Method {
        native: NativeMethod::View("write_at"),
        ..m("write", MethodKind::Write, 3, ClMethod::Memory)
    },
    atomic("atomic_add", MethodKind::AtomicAdd, 2),
    atomic("atomic_sub", MethodKind::AtomicSub, 2),
    atomic("atomic_min", MethodKind::AtomicMin, 2),
    atomic("atomic_max", MethodKind::AtomicMax, 2),
    atomic("atomic_and", MethodKind::AtomicAnd, 2),
    atomic("atomic_or", MethodKind::AtomicOr, 2),
    atomic("atomic_xor", MethodKind::AtomicXor, 2),
    atomic("atomic_xchg", MethodKind::AtomicXchg, 2),
    atomic("atomic_cmpxchg", MethodKind::AtomicCmpxchg, 3),
];

/// `x.checked_op(y).unwrap_or(v)`: the prelude's `nu_checked_op_<type>(x, y, v)` in OpenCL C,
/// Rust's own chain natively.
const fn checked_or(name: &'static str, kind: MethodKind) -> Method {
    Method {
        native: NativeMethod::CheckedOr,
        ..m(name, kind, 2, ClMethod::Typed)
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
