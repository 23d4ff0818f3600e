//! Loop ranges with Rust's semantics, shared by host loops, the native engine and kernel
//! launches: a start, a positive step and an exact trip count, so every iteration runs once
//! whatever the bounds, steps and types.

use crate::error::{Error, Result};
use crate::launch::Launch;

/// An integer type a loop variable may have.
pub trait LoopIndex: Copy + PartialOrd + Send + Sync + std::fmt::Debug + 'static {
    /// The value, widened.
    fn wide(self) -> i128;
    /// `self + k * step`, for a `k` known to stay in range.
    fn offset(self, k: usize, step: Self) -> Self;
    /// One.
    fn one() -> Self;
    /// Pushes the value as a kernel argument of the loop variable's type.
    fn push(self, l: Launch<'_>) -> Launch<'_>;
}

macro_rules! loop_index {
    ($($t:ty => $push:ident),* $(,)?) => {$(
        impl LoopIndex for $t {
            #[inline(always)]
            fn wide(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn offset(self, k: usize, step: Self) -> Self {
                // In range by construction; wrapping keeps debug builds from checking twice.
                self.wrapping_add((k as $t).wrapping_mul(step))
            }
            fn one() -> Self {
                1
            }
            fn push(self, l: Launch<'_>) -> Launch<'_> {
                l.$push(self)
            }
        }
    )*};
}
loop_index!(i8 => arg, i16 => arg, i32 => arg, i64 => arg, u8 => arg, u16 => arg, u32 => arg,
    u64 => arg, usize => index, isize => sindex);

/// The number of iterations of `start..end` (or `..=end`) by `step`.
fn trips<T: LoopIndex>(start: T, end: T, step: T, inclusive: bool) -> Result<usize> {
    let (a, b, s) = (start.wide(), end.wide(), step.wide());
    if s <= 0 {
        return Err(Error::DimsMismatch {
            what: "a loop range".into(),
            expected: "a positive step".into(),
            found: format!("step {step:?}"),
        });
    }
    let n = match inclusive {
        true if b >= a => (b - a) / s + 1,
        false if b > a => (b - a + s - 1) / s,
        _ => 0,
    };
    Ok(n as usize)
}

/// The trip count of a range, for loops the annotations rewrite over a counter.
pub fn trips_of<T: LoopIndex>(start: T, end: T, step: T, inclusive: bool) -> usize {
    match trips(start, end, step, inclusive) {
        Ok(n) => n,
        Err(_) => panic!("nuda: a loop step must be positive, found {step:?}"),
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
    start: T,
    step: T,
    trips: usize,
}

impl<T: LoopIndex> LoopRange<T> {
    /// The range `start..end` (or `..=end`) by `step` (1 if `None`).
    pub fn new(start: T, end: T, step: Option<T>, inclusive: bool) -> Result<Self> {
        let step = step.unwrap_or_else(T::one);
        Ok(LoopRange {
            start,
            step,
            trips: trips(start, end, step, inclusive)?,
        })
    }

    /// The first value (for the type witness).
    pub fn first(&self) -> T {
        self.start
    }

    /// Number of iterations.
    pub fn trips(&self) -> usize {
        self.trips
    }

    /// The value of iteration `k`.
    #[inline(always)]
    pub fn at(&self, k: usize) -> T {
        self.start.offset(k, self.step)
    }

    /// Pushes start, step and trip count as kernel arguments.
    pub fn push<'a>(&self, l: Launch<'a>) -> Launch<'a> {
        self.step.push(self.start.push(l)).index(self.trips)
    }
}

/// The values of a stepped range, as host loops and native kernels iterate them.
pub fn steps<T: LoopIndex>(start: T, end: T, step: T, inclusive: bool) -> Steps<T> {
    match trips(start, end, step, inclusive) {
        Ok(left) => Steps {
            next: start,
            step,
            left,
        },
        Err(_) => panic!("nuda: a loop step must be positive, found {step:?}"),
    }
}

/// Iterator of [`steps`].
#[derive(Debug, Clone)]
pub struct Steps<T> {
    next: T,
    step: T,
    left: usize,
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
        (self.left, Some(self.left))
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
into_size!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trip_counts_are_exact() {
        assert_eq!(trips(0usize, 10, 3, false).unwrap(), 4); // 0 3 6 9
        assert_eq!(trips(0usize, 9, 3, true).unwrap(), 4); // 0 3 6 9
        assert_eq!(trips(5i32, 5, 1, false).unwrap(), 0);
        assert_eq!(trips(5i32, 5, 1, true).unwrap(), 1);
        assert_eq!(trips(7i32, 2, 1, false).unwrap(), 0);
        assert_eq!(trips(0u8, 255, 10, true).unwrap(), 26);
        assert!(trips(0i32, 9, 0, false).is_err());
    }

    #[test]
    fn steps_never_overflow_past_the_end() {
        let v: Vec<u8> = steps(0u8, 255, 10, true).collect();
        assert_eq!((v.len(), v[25]), (26, 250));
        let v: Vec<i32> = steps(-3, 3, 2, false).collect();
        assert_eq!(v, vec![-3, -1, 1]);
        let r = LoopRange::new(10i64, 0, None, false).unwrap();
        assert_eq!(r.trips(), 0);
    }
}
