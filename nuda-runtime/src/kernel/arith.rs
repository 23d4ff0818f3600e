//! Arithmetic as native kernels run it: the same results as the OpenCL C nuda generates, in
//! debug builds too. Integers wrap (Rust's release semantics, which nuda defines for every
//! engine), shift amounts are masked to the type's width, and division by zero or `MIN / -1`
//! records a fault and gives zero instead of panicking. Floats are IEEE operations, as in Rust.
//!
//! The witness (the code rustc types) keeps Rust's own operators, so types are inferred
//! exactly as in plain Rust; only the native engine calls these.

use crate::fault::{Checker, Site};

/// The operators of kernel values.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no arithmetic in nuda kernels",
    label = "kernels compute with f32, f64 and the integer types",
    note = "in a generic function, bound the type parameter by `nuda::Element` (plus the operator traits the kernel uses, such as `std::ops::Add<Output = T>`)"
)]
pub trait Arith: Copy {
    /// `a + b`, wrapping.
    fn nu_add(self, b: Self) -> Self;
    /// `a - b`, wrapping.
    fn nu_sub(self, b: Self) -> Self;
    /// `a * b`, wrapping.
    fn nu_mul(self, b: Self) -> Self;
    /// `-a`, wrapping.
    fn nu_neg(self) -> Self;
    /// `a.abs()`, wrapping (`MIN.abs()` is `MIN`).
    fn nu_abs(self) -> Self;
    /// `a / b`; a zero divisor or an overflow records a fault at `site` and gives zero.
    fn nu_div<const TR: bool>(self, b: Self, f: Checker<'_, TR>, site: &'static Site) -> Self;
    /// `a % b`, faulting as `nu_div`.
    fn nu_rem<const TR: bool>(self, b: Self, f: Checker<'_, TR>, site: &'static Site) -> Self;
    /// `a.rem_euclid(b)`, faulting as `nu_rem`.
    fn nu_rem_euclid<const TR: bool>(
        self,
        b: Self,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Self;
    /// `a.div_euclid(b)`, faulting as `nu_div`.
    fn nu_div_euclid<const TR: bool>(
        self,
        b: Self,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Self;
    /// `a.saturating_div(b)`: `MIN / -1` is `MAX`; a zero divisor faults as `nu_div`.
    fn nu_saturating_div<const TR: bool>(
        self,
        b: Self,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Self;
    /// `x.clamp(lo, hi)`; bounds out of order (or a NaN bound) record a fault where Rust
    /// panics, and a NaN `x` stays NaN.
    fn nu_clamp<const TR: bool>(
        self,
        lo: Self,
        hi: Self,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Self;
}

/// `nu_clamp` for every kernel type.
#[inline(always)]
fn clamp_checked<T: PartialOrd, const TR: bool>(
    x: T,
    lo: T,
    hi: T,
    f: Checker<'_, TR>,
    site: &'static Site,
) -> T {
    // Not `lo > hi`: a NaN bound compares false both ways and must fault too.
    if lo
        .partial_cmp(&hi)
        .is_none_or(|o| o == std::cmp::Ordering::Greater)
    {
        f.arith(site, false);
        return x;
    }
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// Integers a shift amount may be.
pub trait ShiftAmount: Copy {
    /// The amount's low 32 bits (the shift masks it further).
    fn low(self) -> u32;
}

/// Shifts and powers of integer kernel values.
pub trait Shift: Copy {
    /// `a << b`, the amount masked to the width.
    fn nu_shl<B: ShiftAmount>(self, b: B) -> Self;
    /// `a >> b`, arithmetic for signed types, the amount masked to the width.
    fn nu_shr<B: ShiftAmount>(self, b: B) -> Self;
    /// `self.pow(e)`, wrapping as every integer operation in kernels.
    fn nu_pow(self, e: u32) -> Self;
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn nu_add(self, b: $t) -> $t { self.wrapping_add(b) }
            #[inline(always)]
            fn nu_sub(self, b: $t) -> $t { self.wrapping_sub(b) }
            #[inline(always)]
            fn nu_mul(self, b: $t) -> $t { self.wrapping_mul(b) }
            #[inline(always)]
            fn nu_neg(self) -> $t { self.wrapping_neg() }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn nu_abs(self) -> $t { if self < 0 { self.wrapping_neg() } else { self } }
            #[inline(always)]
            fn nu_div<const TR: bool>(self, b: $t, f: Checker<'_, TR>, site: &'static Site) -> $t {
                match self.checked_div(b) {
                    Some(q) => q,
                    None => { f.arith(site, b != 0); 0 }
                }
            }
            #[inline(always)]
            fn nu_rem<const TR: bool>(self, b: $t, f: Checker<'_, TR>, site: &'static Site) -> $t {
                match self.checked_rem(b) {
                    Some(r) => r,
                    None => { f.arith(site, b != 0); 0 }
                }
            }
            #[inline(always)]
            fn nu_rem_euclid<const TR: bool>(self, b: $t, f: Checker<'_, TR>, site: &'static Site) -> $t {
                match self.checked_rem_euclid(b) {
                    Some(r) => r,
                    None => { f.arith(site, b != 0); 0 }
                }
            }
            #[inline(always)]
            fn nu_div_euclid<const TR: bool>(self, b: $t, f: Checker<'_, TR>, site: &'static Site) -> $t {
                match self.checked_div_euclid(b) {
                    Some(q) => q,
                    None => { f.arith(site, b != 0); 0 }
                }
            }
            #[inline(always)]
            fn nu_saturating_div<const TR: bool>(self, b: $t, f: Checker<'_, TR>, site: &'static Site) -> $t {
                if b == 0 {
                    f.arith(site, false);
                    return 0;
                }
                self.saturating_div(b)
            }
            #[inline(always)]
            fn nu_clamp<const TR: bool>(self, lo: $t, hi: $t, f: Checker<'_, TR>, site: &'static Site) -> $t {
                clamp_checked(self, lo, hi, f, site)
            }
        }
        impl ShiftAmount for $t {
            #[inline(always)]
            fn low(self) -> u32 { self as u32 }
        }
        impl Shift for $t {
            #[inline(always)]
            fn nu_shl<B: ShiftAmount>(self, b: B) -> $t { self.wrapping_shl(b.low()) }
            #[inline(always)]
            fn nu_shr<B: ShiftAmount>(self, b: B) -> $t { self.wrapping_shr(b.low()) }
            #[inline(always)]
            fn nu_pow(self, e: u32) -> $t { self.wrapping_pow(e) }
        }
    )*};
}
nuda_abi::for_each_int!(ints);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn nu_add(self, b: $t) -> $t { self + b }
            #[inline(always)]
            fn nu_sub(self, b: $t) -> $t { self - b }
            #[inline(always)]
            fn nu_mul(self, b: $t) -> $t { self * b }
            #[inline(always)]
            fn nu_neg(self) -> $t { -self }
            #[inline(always)]
            fn nu_abs(self) -> $t { self.abs() }
            #[inline(always)]
            fn nu_div<const TR: bool>(self, b: $t, _: Checker<'_, TR>, _: &'static Site) -> $t { self / b }
            #[inline(always)]
            fn nu_rem<const TR: bool>(self, b: $t, _: Checker<'_, TR>, _: &'static Site) -> $t { self % b }
            #[inline(always)]
            fn nu_rem_euclid<const TR: bool>(self, b: $t, _: Checker<'_, TR>, _: &'static Site) -> $t { self.rem_euclid(b) }
            #[inline(always)]
            fn nu_div_euclid<const TR: bool>(self, b: $t, _: Checker<'_, TR>, _: &'static Site) -> $t { self.div_euclid(b) }
            // Floats have no `saturating_div` in Rust, so the witness refuses it first.
            #[inline(always)]
            fn nu_saturating_div<const TR: bool>(self, b: $t, _: Checker<'_, TR>, _: &'static Site) -> $t { self / b }
            #[inline(always)]
            fn nu_clamp<const TR: bool>(self, lo: $t, hi: $t, f: Checker<'_, TR>, site: &'static Site) -> $t {
                clamp_checked(self, lo, hi, f, site)
            }
        }
    )*};
}
floats!(f32, f64);

// `bool` has no arithmetic in Rust, so no well-typed kernel reaches these: the witness types
// the operators first. They exist so that every `Element` is `Arith`, which generic code
// around `nuwork!` needs; they compute modulo 2, as a one-bit wrapping integer would.
impl Arith for bool {
    fn nu_add(self, b: bool) -> bool {
        self ^ b
    }
    fn nu_sub(self, b: bool) -> bool {
        self ^ b
    }
    fn nu_mul(self, b: bool) -> bool {
        self & b
    }
    fn nu_neg(self) -> bool {
        self
    }
    fn nu_abs(self) -> bool {
        self
    }
    fn nu_div<const TR: bool>(self, b: bool, f: Checker<'_, TR>, site: &'static Site) -> bool {
        if !b {
            f.arith(site, false);
        }
        self & b
    }
    fn nu_rem<const TR: bool>(self, b: bool, f: Checker<'_, TR>, site: &'static Site) -> bool {
        if !b {
            f.arith(site, false);
        }
        false
    }
    fn nu_rem_euclid<const TR: bool>(self, b: bool, f: Checker<'_, TR>, s: &'static Site) -> bool {
        self.nu_rem(b, f, s)
    }
    fn nu_div_euclid<const TR: bool>(self, b: bool, f: Checker<'_, TR>, s: &'static Site) -> bool {
        self.nu_div(b, f, s)
    }
    fn nu_saturating_div<const TR: bool>(
        self,
        b: bool,
        f: Checker<'_, TR>,
        s: &'static Site,
    ) -> bool {
        self.nu_div(b, f, s)
    }
    fn nu_clamp<const TR: bool>(
        self,
        lo: bool,
        hi: bool,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> bool {
        clamp_checked(self, lo, hi, f, site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Faults, SiteKind};

    static DIV: Site = Site::new(SiteKind::Divide, "", 0, "t.rs", 1, 1);

    #[test]
    fn integers_wrap_and_shifts_mask() {
        assert_eq!(i32::MAX.nu_add(1), i32::MIN);
        assert_eq!(200u8.nu_mul(2), 144);
        assert_eq!(1u8.nu_shl(9u32), 2);
        assert_eq!((-8i32).nu_shr(1i64), -4);
        assert_eq!(i8::MIN.nu_abs(), i8::MIN);
    }

    #[test]
    fn division_by_zero_faults_and_gives_zero() {
        let f = Faults::new();
        // SAFETY: the checker is passed to no view; division checks ignore trust.
        let trusting = unsafe { Checker::trusting(&f) };
        assert_eq!(7u32.nu_div(0, trusting, &DIV), 0);
        assert_eq!(f.first().map(|r| r.detail), Some(crate::fault::DETAIL_ZERO));
        let g = Faults::new();
        let c = Checker::<false>::new(&g);
        assert_eq!(i32::MIN.nu_rem(-1, c, &DIV), 0);
        assert_eq!(
            g.first().map(|r| r.detail),
            Some(crate::fault::DETAIL_OVERFLOW)
        );
        assert_eq!(7.0f32.nu_div(0.0, c, &DIV), f32::INFINITY);
    }
}
