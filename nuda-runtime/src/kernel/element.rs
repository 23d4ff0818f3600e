//! The kernel value traits of stored types: [`Value`] (what arrays hold, as a kernel takes it)
//! and [`Element`] (a scalar a generic function may compute with in `nuwork!`). They bundle the
//! storage trait of layer 0 (`Stored`) with this layer's kernel traits, which is why they live
//! here and not beside `Pod`. Layer 5 (see `kernel/mod.rs`).

use super::Reduce;
use super::{Arith, Capture, ClType, LetCopy};
use crate::element::Stored;

/// What `NuArray1/2/3`, `NuVec` and kernel values hold: the scalars of [`Element`] and the
/// structs of `#[nustruct]`, whose layout is the same on the host and in OpenCL C.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored in a nuda array or passed to a kernel",
    label = "nuda stores f32, f64, i8..i64, u8..u64, usize, isize, bool and `#[nustruct]` structs",
    note = "a struct of such fields becomes storable with `#[nuda::nustruct]` above its `#[derive(Clone, Copy, Debug, Default, PartialEq)]`"
)]
pub trait Value:
    Stored + ClType + for<'a> Capture<Native<'a> = Self> + LetCopy<Local = Self>
{
}

/// A scalar element of `NuArray1/2/3`: f32, f64, i8, i16, i32, i64, u8, u16, u32, u64; and
/// usize, isize (stored as 64-bit integers: `nu_word`/`nu_sword` in OpenCL C) and bool (one
/// byte, 0 or 1: `uchar`, since OpenCL C has no `bool` in memory).
///
/// Every element is also a kernel value ([`ClType`], [`Arith`], and captured by value through
/// [`Capture`], and reduced by [`Reduce`]), so a function generic over `T: Element` may call
/// `nuwork!`: rustc checks the operators the body uses against the function's own bounds
/// (`T: std::ops::Mul<Output = T>` for `*`), and the kernel is instantiated per concrete type
/// at its first launch.
pub trait Element: Value + Arith + Reduce<This = Self> {}

macro_rules! scalar_values {
    ($($t:ty),*) => {$(
        impl Value for $t {}
        impl Element for $t {}
        impl LetCopy for $t {
            type Local = $t;
            #[inline(always)]
            fn local(&self) -> $t {
                *self
            }
        }
    )*};
}
// Every scalar of the one table (`nuda_abi`): the numbers, and `bool`.
nuda_abi::for_each_number!(scalar_values);
scalar_values!(bool);
