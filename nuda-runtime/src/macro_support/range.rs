//! Loop ranges with Rust's semantics, shared by host loops, the native engine and kernel
//! launches: a first value, a step and an exact trip count, so every iteration runs once
//! whatever the bounds, steps and types.
//!
//! A positive step counts up from the start; a negative one (NUDA's `a <> b :/ -1`) counts
//! down from it; `.rev()` visits the values of the forward range last to first. A zero step
//! is an error (in kernels, a fault at the range's site).

use crate::error::{Error, KernelFault, Result};
use crate::fault::{Checker, Site};
use crate::launch::Launch;

/// An integer type a loop variable may have.
///
/// # Safety
///
/// The launch-time proof takes the loop variable's values from `wide` and `offset`: they
/// must be the values the loop runs. Only nuda implements it.
pub unsafe trait LoopIndex:
    Copy + PartialOrd + Send + Sync + std::fmt::Debug + 'static
{
    /// The value, widened.
    fn wide(self) -> i128;
    /// `self + k * step`, wrapping: exact for a `k` that keeps the value in range.
    fn offset(self, k: usize, step: Self) -> Self;
    /// `-self`, wrapping: the step that walks a range backwards.
    fn back(self) -> Self;
    /// One.
    fn one() -> Self;
    /// `v` in this type, wrapping (a step that a wider type gave).
    fn narrow(v: i128) -> Self;
    /// Pushes the value as a kernel argument of the loop variable's type.
    fn push(self, l: Launch<'_>) -> Launch<'_>;
}

macro_rules! loop_index {
    ($($t:ty => $push:ident),* $(,)?) => {$(
        // SAFETY: Rust's own integer values, widened exactly.
        unsafe impl LoopIndex for $t {
            #[inline(always)]
            fn wide(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn offset(self, k: usize, step: Self) -> Self {
                // In range by construction; wrapping keeps debug builds from checking twice.
                self.wrapping_add((k as $t).wrapping_mul(step))
            }
            #[inline(always)]
            fn back(self) -> Self {
                self.wrapping_neg()
            }
            fn one() -> Self {
                1
            }
            fn narrow(v: i128) -> Self {
                v as $t
            }
            fn push(self, l: Launch<'_>) -> Launch<'_> {
                l.$push(self)
            }
        }
    )*};
}
loop_index!(i8 => arg, i16 => arg, i32 => arg, i64 => arg, u8 => arg, u16 => arg, u32 => arg,
    u64 => arg, usize => index, isize => sindex);

/// The number of values of `a..b` (`..=b` if `inclusive`) by step `s`, all widened:
/// counting up for a positive step, down for a negative one; `None` for a zero step.
fn count_wide(a: i128, b: i128, s: i128, inclusive: bool) -> Option<u128> {
    let (from, to, s) = match s {
        0 => return None,
        s if s > 0 => (a, b, s),
        s => (b, a, -s),
    };
    let n = match inclusive {
        true if to >= from => (to - from) / s + 1,
        false if to > from => (to - from + s - 1) / s,
        _ => 0,
    };
    // At most 2^64 (all values of a 64-bit type), which a `usize` cannot hold.
    Some(n as u128)
}

/// [`count_wide`] for bounds and step of one type.
fn count<T: LoopIndex>(start: T, end: T, step: T, inclusive: bool) -> Option<u128> {
    count_wide(start.wide(), end.wide(), step.wide(), inclusive)
}

/// First value, step and trip count of a range, walked backwards if `rev`.
fn plan<T: LoopIndex>(
    start: T,
    end: T,
    step: T,
    inclusive: bool,
    rev: bool,
) -> Option<(T, T, u128)> {
    let n = count(start, end, step, inclusive)?;
    if rev && n > 0 {
        // `n - 1` is a value's distance in steps from the start: it fits a 64-bit usize.
        return Some((start.offset((n - 1) as usize, step), step.back(), n));
    }
    Some((start, step, n))
}

/// The trip count of a range in a native kernel; a zero step records a fault at `site` and
/// runs no iteration.
pub fn trips_of<T: LoopIndex, const TR: bool>(
    start: T,
    end: T,
    step: T,
    inclusive: bool,
    f: Checker<'_, TR>,
    site: &'static Site,
) -> usize {
    match count(start, end, step, inclusive).map(usize::try_from) {
        Some(Ok(n)) => n,
        // 2^64 iterations: more than a usize counts.
        Some(Err(_)) => {
            f.arith(site, true);
            0
        }
        None => {
            f.arith(site, false);
            0
        }
    }
}

/// The trip count of a range in a host loop (`annot!` outside kernels); a zero step panics,
/// as Rust's `step_by(0)` does.
pub fn trips_host<T: LoopIndex>(start: T, end: T, step: T, inclusive: bool) -> usize {
    match count(start, end, step, inclusive) {
        Some(n) => usize::try_from(n)
            .unwrap_or_else(|_| panic!("nuda: a loop of {n} iterations has no usize trip count")),
        None => panic!("nuda: a loop step of zero ({start:?} to {end:?} by {step:?})"),
    }
}

/// `start + count * step`, for a `count` that keeps the value inside its loop's range.
#[inline(always)]
pub fn offset<T: LoopIndex>(start: T, count: usize, step: T) -> T {
    start.offset(count, step)
}

/// A mapped loop's range, evaluated on the host before the launch.
#[derive(Debug, Clone, Copy)]
pub struct LoopRange<T> {
    first: T,
    step: T,
    trips: usize,
}

impl<T: LoopIndex> LoopRange<T> {
    /// The range `start..end` (or `..=end`) by `step` (1 if `None`), backwards if `rev`; a
    /// zero step is an error naming `site`. The step may have another integer type than the
    /// bounds, as Rust's `step_by(usize)` does: `(250u8..=255).step_by(st)`.
    pub fn new<S: LoopIndex>(
        start: T,
        end: T,
        step: Option<S>,
        inclusive: bool,
        rev: bool,
        site: &'static Site,
    ) -> Result<Self> {
        let fault = |fault| Error::Kernel {
            kernel: "nuwork!".into(),
            device: "the host, before the launch".into(),
            location: site.location(),
            fault,
        };
        // Counted in i128: a step wider than `T` (`(250u8..=255).step_by(st)`) is narrowed
        // only after. Narrowing wraps, and so does every `first + k * step` in `T`, so the
        // values in range come out exact.
        let (a, s) = (start.wide(), step.map_or(1, S::wide));
        let Some(trips) = count_wide(a, end.wide(), s, inclusive) else {
            return Err(fault(KernelFault::ZeroStep));
        };
        let (first, step) = match trips {
            // `(trips - 1) * s` is a distance inside the range: no i128 overflow.
            n if rev && n > 0 => (T::narrow(a + (n - 1) as i128 * s), T::narrow(-s)),
            _ => (start, T::narrow(s)),
        };
        // 2^64 work-items: no device launches that many, and no usize counts them.
        let trips = usize::try_from(trips)
            .map_err(|_| fault(KernelFault::Arithmetic(crate::fault::TOO_MANY)))?;
        Ok(LoopRange { first, step, trips })
    }

    /// The first value (for the type witness).
    pub fn first(&self) -> T {
        self.first
    }

    /// Number of iterations.
    pub fn trips(&self) -> usize {
        self.trips
    }

    /// The smallest and largest values the loop variable takes, widened (`None` if empty).
    pub fn hull(&self) -> Option<(i128, i128)> {
        let last = self.at(self.trips.checked_sub(1)?);
        let (a, b) = (self.first.wide(), last.wide());
        Some((a.min(b), a.max(b)))
    }

    /// The value of iteration `k`.
    #[inline(always)]
    pub fn at(&self, k: usize) -> T {
        self.first.offset(k, self.step)
    }

    /// What the launch-time proof knows of the loop.
    pub fn proof(&self) -> crate::macro_support::proof::Mapped {
        crate::macro_support::proof::Mapped {
            hull: self.hull(),
            first_step: (self.first.wide(), self.step.wide()),
            trips: self.trips,
        }
    }

    /// Pushes first value, step and trip count as kernel arguments.
    pub fn push<'a>(&self, l: Launch<'a>) -> Launch<'a> {
        self.step.push(self.first.push(l)).index(self.trips)
    }
}

/// The values of a stepped or reversed range, as host loops iterate them. A zero step
/// panics, as Rust's `step_by(0)` does.
pub fn steps<T: LoopIndex>(start: T, end: T, step: T, inclusive: bool, rev: bool) -> Steps<T> {
    match plan(start, end, step, inclusive, rev) {
        Some((next, step, left)) => Steps { next, step, left },
        None => panic!("nuda: a loop step of zero ({start:?} to {end:?} by {step:?})"),
    }
}

/// The values of a range in a native kernel: a zero step records a fault at `site` and runs
/// no iteration.
pub fn steps_in<T: LoopIndex, const TR: bool>(
    start: T,
    end: T,
    (step, inclusive, rev): (T, bool, bool),
    f: Checker<'_, TR>,
    site: &'static Site,
) -> Steps<T> {
    match plan(start, end, step, inclusive, rev) {
        Some((next, step, left)) => Steps { next, step, left },
        None => {
            f.arith(site, false);
            Steps {
                next: start,
                step,
                left: 0,
            }
        }
    }
}

/// Iterator of [`steps`].
#[derive(Debug, Clone)]
pub struct Steps<T> {
    next: T,
    step: T,
    left: u128,
}

impl<T: LoopIndex> Iterator for Steps<T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        let v = self.next;
        self.left -= 1;
        if self.left > 0 {
            self.next = v.offset(1, self.step);
        }
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.left).unwrap_or(usize::MAX);
        (n, usize::try_from(self.left).ok())
    }
}

/// An integer a size may be written as.
pub trait IntoSize: Copy + std::fmt::Debug {
    /// The value as a size, if it is one.
    fn size(self) -> Option<usize>;
}

macro_rules! into_size {
    ($($t:ty),*) => {$( impl IntoSize for $t { fn size(self) -> Option<usize> { usize::try_from(self).ok() } } )*};
}
nuda_abi::for_each_int!(into_size);

/// A work-group size: a positive integer of any type.
pub fn group_size<T: IntoSize>(v: T) -> Result<usize> {
    match v.size() {
        Some(n) if n > 0 => Ok(n),
        _ => Err(Error::DimsMismatch {
            what: "nuwork! work-group sizes".into(),
            expected: "positive sizes".into(),
            found: format!("{v:?}"),
        }),
    }
}

/// An element a mapped range reads on the host before the launch: of a nuda array (its host
/// copy, checked as kernels check) or of a slice (a Rust array or vector reaches the slice's
/// impl through method-call autoderef). Out of range it is a fault at the range's site, the
/// launch's `Err`, as in kernels.
pub trait RangeElement<I> {
    /// The element type.
    type Out;
    /// The element at `index`, or a default with a fault recorded at `site`.
    fn range_element<const TR: bool>(
        &self,
        index: I,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Result<Self::Out>;
}

impl<T: crate::kernel::Value, S: crate::shape::Shape> RangeElement<S>
    for crate::array::NuArray<T, S>
{
    type Out = T;
    fn range_element<const TR: bool>(
        &self,
        index: S,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Result<T> {
        Ok(self.read_view()?.load(index, f, site))
    }
}

impl<T: Copy + Default> RangeElement<usize> for [T] {
    type Out = T;
    fn range_element<const TR: bool>(
        &self,
        index: usize,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Result<T> {
        Ok(self.get(index).copied().unwrap_or_else(|| {
            f.bounds(site, [index as u64, 0, 0], [self.len() as u64, 0, 0]);
            T::default()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all<T: LoopIndex>(a: T, b: T, s: T, incl: bool, rev: bool) -> Vec<T> {
        steps(a, b, s, incl, rev).collect()
    }

    #[test]
    fn trip_counts_are_exact() {
        assert_eq!(count(0usize, 10, 3, false), Some(4)); // 0 3 6 9
        assert_eq!(count(0usize, 9, 3, true), Some(4)); // 0 3 6 9
        assert_eq!(count(5i32, 5, 1, false), Some(0));
        assert_eq!(count(5i32, 5, 1, true), Some(1));
        assert_eq!(count(7i32, 2, 1, false), Some(0));
        assert_eq!(count(0u8, 255, 10, true), Some(26));
        assert_eq!(count(0i32, 9, 0, false), None);
    }

    #[test]
    fn steps_never_overflow_past_the_end() {
        let v = all(0u8, 255, 10, true, false);
        assert_eq!((v.len(), v[25]), (26, 250));
        assert_eq!(all(-3, 3, 2, false, false), vec![-3, -1, 1]);
        let site = Site::new(crate::fault::SiteKind::Step, "", 0, "t.rs", 1, 1);
        let site: &'static Site = Box::leak(Box::new(site));
        let r = LoopRange::new(10i64, 0, None::<i32>, false, false, site).unwrap();
        assert_eq!(r.trips(), 0);
    }

    #[test]
    fn negative_steps_count_down_and_rev_reverses() {
        assert_eq!(all(5i32, 0, -1, true, false), vec![5, 4, 3, 2, 1, 0]);
        assert_eq!(all(10i32, 0, -3, true, false), vec![10, 7, 4, 1]);
        assert_eq!(all(0usize, 4, 1, false, true), vec![3, 2, 1, 0]);
        assert_eq!(all(0u8, 10, 3, false, true), vec![9, 6, 3, 0]);
        assert_eq!(all(0u8, 255, 1, true, true).len(), 256);
        assert_eq!(all(0usize, 0, 1, false, true), Vec::<usize>::new());
        assert_eq!(
            (0..10).step_by(3).rev().collect::<Vec<i32>>(),
            all(0, 10, 3, false, true)
        );
    }
}
