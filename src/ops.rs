//! Library conveniences over the loop forms, each a few lines of `nuwork!` with a reduction
//! or a scan variable: what a user would write, kept here so nobody writes it twice.
//!
//! There is no `nufilter!` or closure form: `nuwork!(..; nfor!(i in n { if keep { v.push(x); } }))`
//! says what it does with nothing new to learn, and a closure form would hide which values
//! the kernel captures.

use crate::prelude::*;

/// The operator of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanOp {
    /// Running sums (integers wrap).
    Add,
    /// Running minima.
    Min,
    /// Running maxima.
    Max,
}

/// Reductions and scans of a whole array, on the current device.
pub trait ArrayOps<T: nuda_runtime::Element> {
    /// The sum (integers wrap; floats reassociated, see `nuda::guide::reductions`).
    fn sum(&self) -> Result<T>;
    /// The smallest element, `None` when empty (floats: a NaN is ignored, as `f32::min`).
    fn min(&self) -> Result<Option<T>>;
    /// The largest element, `None` when empty.
    fn max(&self) -> Result<Option<T>>;
    /// Element `i` of the result is `a[0] op .. op a[i]`.
    fn scan_inclusive(&self, op: ScanOp) -> Result<NuArray1<T>>;
    /// Element `i` of the result is `a[0] op .. op a[i - 1]`, the operator's identity first.
    fn scan_exclusive(&self, op: ScanOp) -> Result<NuArray1<T>>;
}

macro_rules! array_ops {
    ($($t:ty),*) => {$(
        impl ArrayOps<$t> for NuArray1<$t> {
            fn sum(&self) -> Result<$t> {
                let (a, n, mut s) = (self, self.len(), 0 as $t);
                nuwork!(256; nfor!(i in n { s += a[i]; }))?;
                Ok(s)
            }
            fn min(&self) -> Result<Option<$t>> {
                let (a, n, mut m) = (self, self.len(), <$t>::MAX);
                nuwork!(256; nfor!(i in n { m = m.min(a[i]); }))?;
                Ok((n > 0).then_some(m))
            }
            fn max(&self) -> Result<Option<$t>> {
                let (a, n, mut m) = (self, self.len(), <$t>::MIN);
                nuwork!(256; nfor!(i in n { m = m.max(a[i]); }))?;
                Ok((n > 0).then_some(m))
            }
            fn scan_inclusive(&self, op: ScanOp) -> Result<NuArray1<$t>> {
                scan(self, op, true)
            }
            fn scan_exclusive(&self, op: ScanOp) -> Result<NuArray1<$t>> {
                scan(self, op, false)
            }
        }

        impl Scan for $t {
            // Inside `macro_rules!`, rustc's liveness sees the generated witness's last update
            // of `s` as never read; the same loop written in a function does not warn.
            #[allow(unused_assignments)]
            fn scan(a: &NuArray1<$t>, op: ScanOp, incl: bool) -> Result<NuArray1<$t>> {
                let n = a.len();
                let mut out = NuArray1::<$t>::new(n);
                match op {
                    ScanOp::Add => {
                        let mut s = 0 as $t;
                        nuwork!(256; nfor!(i in n {
                            if incl { s += a[i]; out[i] = s; } else { out[i] = s; s += a[i]; }
                        }))?;
                    }
                    ScanOp::Min => {
                        let mut s = <$t>::MAX;
                        nuwork!(256; nfor!(i in n {
                            if incl { s = s.min(a[i]); out[i] = s; } else { out[i] = s; s = s.min(a[i]); }
                        }))?;
                    }
                    ScanOp::Max => {
                        let mut s = <$t>::MIN;
                        nuwork!(256; nfor!(i in n {
                            if incl { s = s.max(a[i]); out[i] = s; } else { out[i] = s; s = s.max(a[i]); }
                        }))?;
                    }
                }
                Ok(out)
            }
        }
    )*};
}

/// One element type's scans.
trait Scan: Sized + nuda_runtime::Element {
    fn scan(a: &NuArray1<Self>, op: ScanOp, incl: bool) -> Result<NuArray1<Self>>;
}

fn scan<T: Scan>(a: &NuArray1<T>, op: ScanOp, incl: bool) -> Result<NuArray1<T>> {
    T::scan(a, op, incl)
}

// Every number type of the one scalar table (`nuda_abi`): a new type gets these by its row.
nuda_abi::for_each_number!(array_ops);
