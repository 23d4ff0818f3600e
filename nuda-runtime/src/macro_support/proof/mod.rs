//! The launch-time proof: which checks a launch can leave out, and whether `usize` may be
//! 32-bit on the device. See `README.md` beside this file. Part of layer 6, the macros'
//! support: it evaluates the programs of `macro_support/program.rs`.
//!
//! The macros compile each kernel body into a small program of [`Op`]s: one per integer value
//! the body computes, and one per check site. At each launch the runtime evaluates it over
//! intervals, with the launch's own values as inputs (captured scalars, array dims, mapped
//! loop ranges, work sizes) and rustc's types as the template's fills. A check whose operands
//! are proved in range in every execution is compiled out; `usize` is 32-bit only if every
//! `usize` or `isize` value the kernel can compute stays within 32 bits, so the narrow program
//! computes exactly what the 64-bit one would.

mod interval;
mod run;
#[cfg(test)]
mod test;

pub use run::{keeping_checks, prove};

pub use super::program::{Bin, Cmp, Input, Inputs, Item, Mapped, Op, Reg, Ty, NONE};
