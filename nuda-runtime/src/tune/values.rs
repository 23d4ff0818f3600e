//! What a tuning run saves, restores and compares: the arrays a tuned kernel writes.

use crate::array::NuArray;
use crate::error::{Error, Result};
use crate::kernel::Value;
use crate::shape::Shape;
use std::any::Any;

/// Elements a tuning run can compare between candidates.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be compared between tune(..) candidates",
    label = "tune(..) compares arrays of numbers and bools; tune a kernel that writes those"
)]
pub trait TuneSame: Value {
    /// Whether `got` is `want`, up to what candidates may change.
    fn same(got: &[Self], want: &[Self]) -> bool;
}

macro_rules! exact {
    ($($t:ty),*) => {$(
        impl TuneSame for $t {
            fn same(got: &[$t], want: &[$t]) -> bool {
                got == want
            }
        }
    )*};
}
nuda_abi::for_each_int!(exact);
exact!(bool);

macro_rules! close {
    ($($t:ty),*) => {$(
        impl TuneSame for $t {
            fn same(got: &[$t], want: &[$t]) -> bool {
                got.len() == want.len() && got.iter().zip(want).all(|(&g, &w)| {
                    g == w || (g - w).abs() <= 1e-5 * w.abs().max(1.0) || (g.is_nan() && w.is_nan())
                })
            }
        }
    )*};
}
close!(f32, f64);

/// A value a tuned kernel writes, which a tuning run saves and restores.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written by a tuned nuwork!",
    label = "tune(..) saves and restores the arrays a kernel writes (NuArray1, NuArray2, NuArray3)"
)]
pub trait Tunable {
    /// A copy of the contents.
    fn save(&self) -> Result<Box<dyn Any>>;
    /// Puts a copy from `save` back.
    fn restore(&mut self, saved: &dyn Any) -> Result<()>;
    /// Whether the contents equal a copy from `save`.
    fn same_as(&self, saved: &dyn Any) -> Result<bool>;
    /// The dims, outermost first: part of the key a winner is stored under.
    fn dims(&self) -> Vec<usize>;
}

fn mismatch() -> Error {
    Error::DimsMismatch {
        what: "a tuning run's saved array".into(),
        expected: "the array's own element type".into(),
        found: "another".into(),
    }
}

impl<T: TuneSame, S: Shape> Tunable for NuArray<T, S> {
    fn save(&self) -> Result<Box<dyn Any>> {
        Ok(Box::new(self.try_as_slice()?.to_vec()))
    }

    fn restore(&mut self, saved: &dyn Any) -> Result<()> {
        let v = saved.downcast_ref::<Vec<T>>().ok_or_else(mismatch)?;
        self.copy_from_slice(v)
    }

    fn same_as(&self, saved: &dyn Any) -> Result<bool> {
        let v = saved.downcast_ref::<Vec<T>>().ok_or_else(mismatch)?;
        Ok(T::same(self.try_as_slice()?, v))
    }

    fn dims(&self) -> Vec<usize> {
        NuArray::dims(self).to_vec()
    }
}

/// The saved inputs and the reference outputs of one tuning run, in capture order.
#[derive(Default)]
pub struct Saved {
    inputs: Vec<Box<dyn Any>>,
    reference: Vec<Box<dyn Any>>,
}

impl Saved {
    /// Saves `a` as input `k` (the generated code calls this in capture order from 0).
    pub fn save(&mut self, k: usize, a: &dyn Tunable) -> Result<()> {
        self.inputs.truncate(k);
        self.inputs.push(a.save()?);
        Ok(())
    }

    /// Puts input `k` back into `a`.
    pub fn restore(&self, k: usize, a: &mut dyn Tunable) -> Result<()> {
        a.restore(self.inputs.get(k).ok_or_else(mismatch)?.as_ref())
    }

    /// Keeps `a` as reference `k`.
    pub fn keep(&mut self, k: usize, a: &dyn Tunable) -> Result<()> {
        self.reference.truncate(k);
        self.reference.push(a.save()?);
        Ok(())
    }

    /// `Err` unless `a` equals reference `k`.
    pub fn check(&self, k: usize, name: &str, a: &dyn Tunable) -> Result<()> {
        let want = self.reference.get(k).ok_or_else(mismatch)?;
        if a.same_as(want.as_ref())? {
            return Ok(());
        }
        Err(Error::DimsMismatch {
            what: format!("`{name}` after this candidate"),
            expected: "what the first candidate wrote".into(),
            found: "different values".into(),
        })
    }
}
