//! Element types that arrays and images hold, and how each maps to OpenCL C and to atomics.
//! Layer 0 of the runtime (see `backend/README.md`); the C names come from the one scalar
//! table, `nuda_abi::SCALARS`.
//!
//! The native engine writes through shared views from many rayon threads. Plain stores would be
//! a data race (undefined behaviour in Rust) whenever two work-items write one element, which
//! OpenCL merely calls unspecified. So every element has an atomic twin with the same layout,
//! and the native engine stores with `Ordering::Relaxed`: on x86-64 and AArch64 that is an
//! ordinary store, and a racy kernel yields some value instead of undefined behaviour.

use std::borrow::Cow;
use std::fmt::Debug;
use std::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicU16, AtomicU32,
    AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed,
};

/// Only types whose device layout nuda knows may be stored: its own scalars, and the structs
/// `#[nustruct]` lays out. Implementing it asserts that the type's layout is what the `Pod`
/// impl says (sizes, padding, a cell type of the same layout).
///
/// # Safety
/// Only nuda's own impls and `#[nustruct]`'s generated code implement it.
#[doc(hidden)]
pub unsafe trait Sealed {}
use Sealed as SealedPod;

/// Anything a nuda array or image can hold: plain old data with an atomic twin of the same layout.
pub trait Pod: SealedPod + Copy + Default + Debug + PartialEq + Send + Sync + 'static {
    /// The atomic twin, with the same size and alignment as `Self`.
    type Cell: Send + Sync;
    /// Reads a cell.
    fn load(cell: &Self::Cell) -> Self;
    /// Writes a cell.
    fn store(cell: &Self::Cell, value: Self);
    /// A new cell holding `value`.
    fn cell(value: Self) -> Self::Cell;
    /// Whether two values have the same bits. Merging shared writes compares bits, not
    /// values: a NaN written over a NaN, or -0.0 over 0.0, must count as what it is.
    fn same_bits(a: Self, b: Self) -> bool;
    /// Whether every bit pattern of `size_of::<Self>()` bytes is a value (false for `bool`):
    /// downloads of other types go through a byte buffer and [`Pod::decode`].
    const EVERY_BIT_PATTERN: bool = true;
    /// Values from their bytes, for a type not every bit pattern of which is a value.
    fn decode(bytes: &[u8], out: &mut [Self]) {
        let _ = (bytes, out);
        unreachable!("nuda bug: decode of a type whose every bit pattern is a value")
    }
    /// Whether the type has padding bytes (a `#[nustruct]` with gaps between fields): its
    /// bytes are then not all initialised, and transfers go through [`Pod::encode`] and
    /// [`Pod::decode`].
    const PADDED: bool = false;
    /// Writes the values' bytes into `out` (`size_of_val(values)` bytes), padding zeroed.
    fn encode(values: &[Self], out: &mut [u8]) {
        let _ = (values, out);
        unreachable!("nuda bug: encode of a type without padding")
    }
}

/// What `NuArray1/2/3` and `NuVec` hold, as stored: the scalars of `Element` and the structs
/// of `#[nustruct]`, whose layout is the same on the host and in OpenCL C. Every `Stored` type
/// is also a kernel value (`Value`, in the launch layer); only nuda's own impls and
/// `#[nustruct]`'s generated code implement it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored in a nuda array or passed to a kernel",
    label = "nuda stores f32, f64, i8..i64, u8..u64, usize, isize, bool and `#[nustruct]` structs",
    note = "a struct of such fields becomes storable with `#[nuda::nustruct]` above its `#[derive(Clone, Copy, Debug, Default, PartialEq)]`"
)]
pub trait Stored: Pod {
    /// The OpenCL C type name in memory, such as `float`, `uchar` or a struct's name.
    const CL_TYPE: &'static str;
    /// Whether the type is floating point (f32 or f64).
    const IS_FLOAT: bool;
    /// The alignment OpenCL C gives the type: a `#[nustruct]` asserts its fields' Rust
    /// alignments against it at compile time.
    const CL_ALIGN: usize;
    /// The value as little-endian bytes, for passing scalars to kernels.
    fn to_le_bytes_vec(self) -> Vec<u8>;
}

macro_rules! element {
    ($t:ty, $cell:ty, $row:ident, |$v:ident| $to:expr, |$b:ident| $from:expr) => {
        // SAFETY: a primitive number: no padding, its atomic twin has its layout (asserted
        // below), every bit pattern is a value.
        unsafe impl SealedPod for $t {}
        impl Pod for $t {
            type Cell = $cell;
            #[inline(always)]
            fn load(cell: &$cell) -> $t {
                let $b = cell.load(Relaxed);
                $from
            }
            #[inline(always)]
            fn store(cell: &$cell, $v: $t) {
                cell.store($to, Relaxed)
            }
            fn cell($v: $t) -> $cell {
                <$cell>::new($to)
            }
            #[inline(always)]
            fn same_bits(a: $t, b: $t) -> bool {
                let bits = |$v: $t| $to;
                bits(a) == bits(b)
            }
        }
        impl Stored for $t {
            // The C name in memory, from the one scalar table.
            const CL_TYPE: &'static str = nuda_abi::Scalar::$row.info().c_stored;
            const IS_FLOAT: bool = nuda_abi::Scalar::$row.info().float;
            const CL_ALIGN: usize = size_of::<$t>();
            fn to_le_bytes_vec(self) -> Vec<u8> {
                self.to_le_bytes().to_vec()
            }
        }
        // Layout equality is what makes the atomic view of a `&mut [T]` sound.
        const _: () = assert!(
            std::mem::size_of::<$t>() == std::mem::size_of::<$cell>()
                && std::mem::align_of::<$t>() == std::mem::align_of::<$cell>()
        );
    };
}

element!(f32, AtomicU32, F32, |v| v.to_bits(), |b| {
    f32::from_bits(b)
});
element!(f64, AtomicU64, F64, |v| v.to_bits(), |b| {
    f64::from_bits(b)
});
element!(i8, AtomicI8, I8, |v| v, |b| b);
element!(i16, AtomicI16, I16, |v| v, |b| b);
element!(i32, AtomicI32, I32, |v| v, |b| b);
element!(i64, AtomicI64, I64, |v| v, |b| b);
element!(u8, AtomicU8, U8, |v| v, |b| b);
element!(u16, AtomicU16, U16, |v| v, |b| b);
element!(u32, AtomicU32, U32, |v| v, |b| b);
element!(u64, AtomicU64, U64, |v| v, |b| b);
// Distinct OpenCL C names (typedefs of ulong and long in the prelude) tell the launch-time
// proof that an element is a `usize` or `isize`: one read from memory may need 64 bits.
element!(usize, AtomicUsize, Usize, |v| v, |b| b);
element!(isize, AtomicIsize, Isize, |v| v, |b| b);
// nuda runs on 64-bit hosts only: the kernels' `usize` is at most 64 bits and arrays of it
// are stored as 64-bit integers on every device.
const _: () = assert!(size_of::<usize>() == 8);

// SAFETY: one byte without padding, the layout of `AtomicBool` (asserted below); not every
// bit pattern is a value, which `EVERY_BIT_PATTERN` says.
unsafe impl SealedPod for bool {}
impl Pod for bool {
    type Cell = AtomicBool;
    #[inline(always)]
    fn load(cell: &AtomicBool) -> bool {
        cell.load(Relaxed)
    }
    #[inline(always)]
    fn store(cell: &AtomicBool, v: bool) {
        cell.store(v, Relaxed)
    }
    fn cell(v: bool) -> AtomicBool {
        AtomicBool::new(v)
    }
    fn same_bits(a: bool, b: bool) -> bool {
        a == b
    }
    // A device byte other than 0 or 1 is no `bool`: downloads read bytes and compare to 0.
    const EVERY_BIT_PATTERN: bool = false;
    fn decode(bytes: &[u8], out: &mut [bool]) {
        for (o, &b) in out.iter_mut().zip(bytes) {
            *o = b != 0;
        }
    }
}
impl Stored for bool {
    const CL_TYPE: &'static str = nuda_abi::Scalar::Bool.info().c_stored;
    const IS_FLOAT: bool = false;
    const CL_ALIGN: usize = 1;
    fn to_le_bytes_vec(self) -> Vec<u8> {
        vec![u8::from(self)]
    }
}
const _: () = assert!(
    size_of::<bool>() == size_of::<AtomicBool>() && align_of::<bool>() == align_of::<AtomicBool>()
);

/// A texel of `NuImage2`: `f32` (one channel) or `[f32; 4]` (RGBA), stored as 32-bit floats.
pub trait Texel: Pod {
    /// Number of channels: 1 or 4.
    const CHANNELS: usize;
}

impl Texel for f32 {
    const CHANNELS: usize = 1;
}

// SAFETY: four f32 without padding, the layout of `[AtomicU32; 4]` (asserted below).
unsafe impl SealedPod for [f32; 4] {}
impl Pod for [f32; 4] {
    // Four independent channel cells: a racy RGBA write may tear between channels, never UB.
    type Cell = [AtomicU32; 4];
    #[inline(always)]
    fn load(cell: &Self::Cell) -> Self {
        [0, 1, 2, 3].map(|c| f32::from_bits(cell[c].load(Relaxed)))
    }
    #[inline(always)]
    fn store(cell: &Self::Cell, value: Self) {
        for (c, v) in cell.iter().zip(value) {
            c.store(v.to_bits(), Relaxed);
        }
    }
    fn cell(value: Self) -> Self::Cell {
        value.map(|v| AtomicU32::new(v.to_bits()))
    }
    #[inline(always)]
    fn same_bits(a: Self, b: Self) -> bool {
        a.map(f32::to_bits) == b.map(f32::to_bits)
    }
}
const _: () = assert!(
    std::mem::size_of::<[f32; 4]>() == std::mem::size_of::<[AtomicU32; 4]>()
        && std::mem::align_of::<[f32; 4]>() == std::mem::align_of::<[AtomicU32; 4]>()
);

impl Texel for [f32; 4] {
    const CHANNELS: usize = 4;
}

/// The bytes of a slice of elements, for transfers to a backend: borrowed, or encoded with
/// zeroed padding for a padded `#[nustruct]`.
pub(crate) fn bytes<T: Pod>(s: &[T]) -> Cow<'_, [u8]> {
    if T::PADDED {
        let mut out = vec![0u8; size_of_val(s)];
        T::encode(s, &mut out);
        return Cow::Owned(out);
    }
    // SAFETY: a `Pod` type (sealed: the numeric types, bool, `[f32; 4]` and `#[nustruct]`
    // types) with `PADDED` false (checked above) is plain data without padding, so all
    // `size_of_val(s)` bytes behind the pointer are initialised; `u8` has alignment 1; the
    // borrow of `s` covers the result's lifetime.
    Cow::Borrowed(unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), size_of_val(s)) })
}

/// Fills `s` from a backend's download `read`, which writes all of the bytes it is given: in
/// place where every bit pattern is an element, else through a byte buffer and
/// [`Pod::decode`], so that no invalid value (a `bool` byte of 2) is ever made.
pub(crate) fn download<T: Pod>(
    s: &mut [T],
    read: impl FnOnce(&mut [u8]) -> crate::error::Result<()>,
) -> crate::error::Result<()> {
    if !T::EVERY_BIT_PATTERN || T::PADDED {
        let mut staging = vec![0u8; size_of_val(s)];
        read(&mut staging)?;
        T::decode(&staging, s);
        return Ok(());
    }
    // SAFETY: `s` holds initialised elements without padding (`PADDED` is false, checked
    // above), so its bytes are initialised (see `bytes`);
    // `T::EVERY_BIT_PATTERN` (checked above) says every bit pattern is a valid `T`, so
    // whatever bytes `read` writes leave valid elements; `u8` has alignment 1; the unique
    // borrow of `s` makes the byte slice the only access while it lives.
    let raw =
        unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u8>(), size_of_val(s)) };
    read(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downloads_decode_bools_and_copy_numbers_in_place() {
        let mut flags = [false; 4];
        download(&mut flags, |b| {
            b.copy_from_slice(&[0, 1, 2, 255]);
            Ok(())
        })
        .unwrap();
        assert_eq!(flags, [false, true, true, true]);
        let mut words = [0usize; 2];
        download(&mut words, |b| {
            b.copy_from_slice(&[1, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0]);
            Ok(())
        })
        .unwrap();
        assert_eq!(words, [1 | (1 << 56), 2]);
        assert_eq!(&*bytes(&[true, false]), &[1, 0]);
    }
}
