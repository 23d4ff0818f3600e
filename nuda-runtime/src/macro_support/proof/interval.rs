//! Integer intervals, and the integer types they are computed in. Bounds are `i128`, far wider
//! than any kernel type; arithmetic saturates at ±2^120, beyond every type's range, so an
//! overflowing bound reads as "outside the type" and never wraps in the analysis itself.

use super::Cmp;
use nuda_abi::{ScalarInfo, SCALARS};

/// The saturation bound: beyond any kernel type.
const BIG: i128 = 1 << 120;

/// A closed interval `[lo, hi]`; empty when `lo > hi` (a value that never exists, as the
/// variable of a loop that runs no iteration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Iv {
    /// Smallest value.
    pub lo: i128,
    /// Largest value.
    pub hi: i128,
}

fn sat(v: Option<i128>) -> i128 {
    v.map_or(BIG, |v| v.clamp(-BIG, BIG))
}

impl Iv {
    /// Every value: what an unknown float or memory read is.
    pub const TOP: Iv = Iv { lo: -BIG, hi: BIG };
    /// No value.
    pub const EMPTY: Iv = Iv { lo: 1, hi: 0 };

    /// `[v, v]`.
    pub fn point(v: i128) -> Iv {
        Iv { lo: v, hi: v }
    }

    /// `[lo, hi]`.
    pub fn new(lo: i128, hi: i128) -> Iv {
        Iv { lo, hi }
    }

    /// Whether it holds no value.
    pub fn is_empty(self) -> bool {
        self.lo > self.hi
    }

    /// Whether every value lies in `[lo, hi]`.
    pub fn within(self, lo: i128, hi: i128) -> bool {
        self.is_empty() || (self.lo >= lo && self.hi <= hi)
    }

    /// Whether `v` may be a value.
    pub fn holds(self, v: i128) -> bool {
        !self.is_empty() && self.lo <= v && v <= self.hi
    }

    /// The smallest interval holding both.
    pub fn hull(self, o: Iv) -> Iv {
        match (self.is_empty(), o.is_empty()) {
            (true, _) => o,
            (_, true) => self,
            _ => Iv::new(self.lo.min(o.lo), self.hi.max(o.hi)),
        }
    }

    /// Applies `f` to each pair of bounds and takes the hull: exact for operations monotonic
    /// in each operand (`+`, `-`, `*`, and `/` by a divisor of one sign).
    pub fn corners(self, o: Iv, f: impl Fn(i128, i128) -> Option<i128>) -> Iv {
        if self.is_empty() || o.is_empty() {
            return Iv::EMPTY;
        }
        let c = [
            f(self.lo, o.lo),
            f(self.lo, o.hi),
            f(self.hi, o.lo),
            f(self.hi, o.hi),
        ]
        .map(sat);
        Iv::new(
            c.iter().copied().min().unwrap_or(-BIG),
            c.iter().copied().max().unwrap_or(BIG),
        )
    }

    /// `a + b`.
    pub fn add(self, o: Iv) -> Iv {
        self.corners(o, i128::checked_add)
    }

    /// `a - b`.
    pub fn sub(self, o: Iv) -> Iv {
        self.corners(o, i128::checked_sub)
    }

    /// `a * b`.
    pub fn mul(self, o: Iv) -> Iv {
        self.corners(o, i128::checked_mul)
    }

    /// `-a`.
    pub fn neg(self) -> Iv {
        if self.is_empty() {
            return self;
        }
        Iv::new(-self.hi, -self.lo)
    }

    /// `a / b` truncating toward zero, as Rust and C do; a zero divisor gives 0 (the fault's
    /// stand-in value).
    pub fn div(self, o: Iv) -> Iv {
        let neg = Iv::new(o.lo, o.hi.min(-1));
        let pos = Iv::new(o.lo.max(1), o.hi);
        let q = |d: Iv| self.corners(d, i128::checked_div);
        let mut out = Iv::EMPTY;
        for part in [neg, pos] {
            if !part.is_empty() {
                out = out.hull(q(part));
            }
        }
        if o.holds(0) {
            out = out.hull(Iv::point(0));
        }
        out
    }

    /// `a % b`: the sign of `a`, smaller in magnitude than `b` (0 for a zero divisor).
    pub fn rem(self, o: Iv) -> Iv {
        if self.is_empty() || o.is_empty() {
            return Iv::EMPTY;
        }
        let m =
            o.lo.unsigned_abs()
                .max(o.hi.unsigned_abs())
                .min(BIG as u128) as i128;
        let bound = (m - 1).max(0);
        let lo = if self.lo >= 0 { 0 } else { self.lo.max(-bound) };
        let hi = if self.hi <= 0 { 0 } else { self.hi.min(bound) };
        Iv::new(lo, hi)
    }

    /// `min(a, b)`.
    pub fn min(self, o: Iv) -> Iv {
        if self.is_empty() || o.is_empty() {
            return Iv::EMPTY;
        }
        Iv::new(self.lo.min(o.lo), self.hi.min(o.hi))
    }

    /// `max(a, b)`.
    pub fn max(self, o: Iv) -> Iv {
        if self.is_empty() || o.is_empty() {
            return Iv::EMPTY;
        }
        Iv::new(self.lo.max(o.lo), self.hi.max(o.hi))
    }

    /// `|a|`.
    pub fn abs(self) -> Iv {
        if self.is_empty() {
            return self;
        }
        let (a, b) = (self.lo.abs(), self.hi.abs());
        let lo = if self.holds(0) { 0 } else { a.min(b) };
        Iv::new(lo, a.max(b))
    }

    /// The values of `self` that satisfy `self <cmp> o` for some value of `o`.
    pub fn refine(self, cmp: Cmp, o: Iv) -> Iv {
        if o.is_empty() {
            return Iv::EMPTY;
        }
        let (lo, hi) = match cmp {
            Cmp::Lt => (self.lo, self.hi.min(o.hi.saturating_sub(1))),
            Cmp::Le => (self.lo, self.hi.min(o.hi)),
            Cmp::Gt => (self.lo.max(o.lo.saturating_add(1)), self.hi),
            Cmp::Ge => (self.lo.max(o.lo), self.hi),
            Cmp::Eq => (self.lo.max(o.lo), self.hi.min(o.hi)),
        };
        Iv::new(lo, hi)
    }
}

/// An OpenCL C type as the analysis sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntTy {
    /// Smallest value.
    pub min: i128,
    /// Largest value.
    pub max: i128,
    /// Width in bits.
    pub bits: u32,
    /// `usize` or `isize`: 64-bit, unless the proof shows 32 bits give the same results.
    pub index: bool,
}

impl IntTy {
    /// The integer type named `cl` (`usize` as 64 bits); `None` for floats and vectors.
    pub fn of(cl: &str) -> Option<IntTy> {
        if cl == "bool" {
            return Some(IntTy::new(0, 1, 1, false));
        }
        let is = |r: &&ScalarInfo| r.c_value == cl || r.c_stored == cl;
        let r = SCALARS.iter().filter(|r| r.scalar.is_int()).find(is)?;
        // A stored `usize` (`nu_word`) is 64 bits whatever width the launch gives indices.
        let index = r.scalar.is_size() && r.c_value == cl;
        Some(IntTy::bits(r.bits, r.signed, index))
    }

    fn new(min: i128, max: i128, bits: u32, index: bool) -> IntTy {
        IntTy {
            min,
            max,
            bits,
            index,
        }
    }

    fn bits(bits: u32, signed: bool, index: bool) -> IntTy {
        match signed {
            true => IntTy::new(-(1 << (bits - 1)), (1 << (bits - 1)) - 1, bits, index),
            false => IntTy::new(0, (1 << bits) - 1, bits, index),
        }
    }

    /// Every value of the type.
    pub fn range(self) -> Iv {
        Iv::new(self.min, self.max)
    }

    /// The values a 32-bit `usize` (or `isize`) holds with the same meaning.
    pub fn narrow(self) -> Iv {
        match self.min < 0 {
            true => Iv::new(i32::MIN.into(), i32::MAX.into()),
            false => Iv::new(0, u32::MAX.into()),
        }
    }

    /// The value of `exact` computed in this type: itself if it fits, else (it wrapped)
    /// anything in the type.
    pub fn wrap(self, exact: Iv) -> Iv {
        if exact.within(self.min, self.max) {
            exact
        } else {
            self.range()
        }
    }
}
