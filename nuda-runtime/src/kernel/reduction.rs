//! What a reduction variable's type does (layer 5, see `kernel/mod.rs`): its identity per
//! operator, how two partials combine with Rust's semantics, and the type kernels accumulate
//! it in. The launch of a reduction is `reduce/`, which uses this.

use super::Element;

use nuda_abi::reduce::IntIdentity;
/// How a reduction variable's contributions combine (`-=` updates combine with `Add`: each
/// partial starts at zero and subtracts, and partials add).
pub use nuda_abi::RedOp;

/// Scalars a `nuwork!` reduction variable may have: every integer and float type. `usize`
/// and `isize` travel to devices as 64-bit integers, so no device wraps them earlier than
/// the host does.
#[diagnostic::on_unimplemented(
    message = "nuwork!: `{Self}` cannot be a reduction variable",
    label = "reductions work on integers (i8 to u64, isize, usize), floats (f32, f64) and bool"
)]
pub trait Reduce: Copy + Send + Sync + 'static {
    /// `Self`. Generated code names the variable's type through this projection, so a type
    /// without the trait is one error at the variable rather than one per generated use.
    type This: Reduce;
    /// `self`, as `This`.
    fn this(self) -> Self::This;
    /// The type kernels accumulate in.
    type Dev: Element + Send + Sync;
    /// The value `op` leaves unchanged: 0 for sums, 1 for products, all ones for `&`, the
    /// largest value for `min` and the smallest for `max`; for floats, -0.0 for sums and NaN
    /// for `min` and `max` (Rust's identities, which infinities and 0.0 are not).
    fn identity(op: RedOp) -> Self;
    /// `a op b`, with Rust's semantics (integers wrap).
    fn combine(op: RedOp, a: Self, b: Self) -> Self;
    /// The value as kernels hold it.
    fn to_dev(self) -> Self::Dev;
    /// A kernel's value back.
    fn from_dev(d: Self::Dev) -> Self;
    /// Whether combining with `op` gives the same bits however the values are grouped
    /// (wrapping integers and flags: always; floats: `min` and `max` only).
    fn regroups_exactly(op: RedOp) -> bool {
        let _ = op;
        true
    }
}

macro_rules! reduce_int {
    ($($t:ty => $dev:ty),*) => {$(
        impl Reduce for $t {
            type This = $t;
            fn this(self) -> $t {
                self
            }
            type Dev = $dev;
            fn identity(op: RedOp) -> $t {
                match op.spec().int_identity {
                    IntIdentity::Zero => 0,
                    IntIdentity::One => 1,
                    IntIdentity::AllOnes => !0,
                    IntIdentity::Max => <$t>::MAX,
                    IntIdentity::Min => <$t>::MIN,
                }
            }
            fn combine(op: RedOp, a: $t, b: $t) -> $t {
                // Truncating the i128 result is the type's own wrapping arithmetic.
                (op.spec().int_combine)(a as i128, b as i128) as $t
            }
            fn to_dev(self) -> $dev {
                self as $dev
            }
            fn from_dev(d: $dev) -> $t {
                // Exact: `$dev` is `$t`, or the 64-bit twin of a pointer-sized `$t`, and
                // kernels only combine values of `$t`'s range.
                d as $t
            }
        }
    )*};
}

reduce_int!(i8 => i8, i16 => i16, i32 => i32, i64 => i64, u8 => u8, u16 => u16, u32 => u32,
    u64 => u64, isize => i64, usize => u64);

macro_rules! reduce_float {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            type This = $t;
            fn this(self) -> $t {
                self
            }
            type Dev = $t;
            fn identity(op: RedOp) -> $t {
                // Rust's identities: -0.0 for sums (`-0.0 + -0.0` is -0.0, `0.0 + -0.0`
                // is not), NaN for `max` and `min` (they return the other operand of a
                // NaN, so an empty or all-NaN nest leaves the variable as it was). Bitwise
                // updates of a float do not type-check in the user's code.
                op.spec().float.map_or(0.0, |(id, _)| id as $t)
            }
            fn combine(op: RedOp, a: $t, b: $t) -> $t {
                match op.spec().float {
                    // Exact for f32: see `RedSpec::float`.
                    Some((_, f)) => f(f64::from(a), f64::from(b)) as $t,
                    None => a,
                }
            }
            fn to_dev(self) -> $t {
                self
            }
            fn from_dev(d: $t) -> $t {
                d
            }
            fn regroups_exactly(op: RedOp) -> bool {
                matches!(op, RedOp::Min | RedOp::Max)
            }
        }
    )*};
}

reduce_float!(f32, f64);

/// `|=`, `&=`, `^=`, `max` and `min` of a flag; kernels hold it as a `uchar` 0 or 1.
impl Reduce for bool {
    type This = bool;
    fn this(self) -> bool {
        self
    }
    type Dev = u8;
    fn identity(op: RedOp) -> bool {
        op.spec().flag.0
    }
    fn combine(op: RedOp, a: bool, b: bool) -> bool {
        (op.spec().flag.1)(a, b)
    }
    fn to_dev(self) -> u8 {
        self as u8
    }
    fn from_dev(d: u8) -> bool {
        d != 0
    }
}

/// The reduction variable's value, copied before the launch; the call names the variable
/// at its span, so rustc reports an unsupported type there.
pub fn reduction_var<T: Reduce>(v: T) -> T::This {
    v.this()
}

/// The variable's new value: `old op total`. Typed through `This`, as `reduction_var` is.
pub fn reduced<T: Reduce>(op: RedOp, old: T, total: T) -> T::This {
    T::combine(op, old, total).this()
}

/// The identity of `op` for the type of `like`.
pub fn identity<T: Reduce>(op: RedOp, _like: &T) -> T {
    T::identity(op)
}

/// `a op b`.
pub fn combine<T: Reduce>(op: RedOp, a: T, b: T) -> T {
    T::combine(op, a, b)
}

/// The OpenCL C type kernels accumulate `like`'s type in.
pub fn reduce_cl_type<T: Reduce>(_like: &T) -> &'static str {
    <T::Dev as crate::element::Stored>::CL_TYPE
}
