//! What `#[nustruct]` expands to calls here: the per-field operations of a user struct's
//! [`Pod`] impl ([`Field`]), its OpenCL C declaration with the layout checks the device
//! compiler runs ([`StructDecl`]), and the registry programs take declarations from.
//!
//! A struct's layout is fixed three times over. Rust lays it out `#[repr(C)]`. The generated
//! code asserts at compile time that each field's Rust alignment is OpenCL C's and that each
//! offset is what C's rules give ([`c_offset`]). And the `typedef` carries a check that the
//! device compiler folds: a negative array size, a build error naming the struct, if its
//! `sizeof` or an offset differs from Rust's. So a mismatch never corrupts data silently.

use super::capture::ClType;
use super::Value;
use crate::element::Pod;
use std::sync::{Mutex, PoisonError};

/// A field of a `#[nustruct]`: a storable value, or a fixed-size array of fields.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a #[nustruct]",
    label = "#[nustruct] fields are f32, f64, i8..i64, u8..u64, usize, isize, bool, other #[nustruct] structs, or fixed-size arrays of those",
    note = "a device cannot follow references or own heap data such as `Vec`"
)]
///
/// # Safety
/// `Cell` has the layout of `Self`; `EVERY_BIT_PATTERN` and `PADDED` are true to the type.
pub unsafe trait Field: Copy + Send + Sync + 'static {
    /// The atomic twin, with the layout of `Self`.
    type Cell: Send + Sync;
    /// Whether every bit pattern is a value.
    const EVERY_BIT_PATTERN: bool;
    /// Whether the type has padding bytes.
    const PADDED: bool;
    /// OpenCL C's alignment of the type.
    const CL_ALIGN: usize;
    /// Reads a cell.
    fn load(cell: &Self::Cell) -> Self;
    /// Writes a cell.
    fn store(cell: &Self::Cell, value: Self);
    /// A new cell.
    fn cell(value: Self) -> Self::Cell;
    /// Whether two values have the same bits.
    fn same_bits(a: Self, b: Self) -> bool;
    /// Writes the value's `size_of::<Self>()` bytes at the start of `out`, padding zeroed.
    fn encode(&self, out: &mut [u8]);
    /// The value whose bytes start `bytes`.
    fn decode(bytes: &[u8]) -> Self;
    /// The OpenCL C type in memory: `float`, a struct's name, or for an array the private
    /// array struct `nu_arr_float_3`, which has the array's size and alignment.
    fn c_type() -> &'static str;
    /// Registers the declarations the type needs.
    fn declare();
}

// SAFETY: `Pod::Cell` has the layout of `T` (the `Pod` contract); the constants are `Pod`'s.
unsafe impl<T: Value> Field for T {
    type Cell = T::Cell;
    const EVERY_BIT_PATTERN: bool = <T as Pod>::EVERY_BIT_PATTERN;
    const PADDED: bool = <T as Pod>::PADDED;
    const CL_ALIGN: usize = <T as crate::element::Stored>::CL_ALIGN;
    fn load(cell: &T::Cell) -> T {
        <T as Pod>::load(cell)
    }
    fn store(cell: &T::Cell, value: T) {
        <T as Pod>::store(cell, value)
    }
    fn cell(value: T) -> T::Cell {
        <T as Pod>::cell(value)
    }
    fn same_bits(a: T, b: T) -> bool {
        <T as Pod>::same_bits(a, b)
    }
    fn encode(&self, out: &mut [u8]) {
        let out = &mut out[..size_of::<T>()];
        out.copy_from_slice(&crate::element::bytes(std::slice::from_ref(self)));
    }
    fn decode(bytes: &[u8]) -> T {
        let mut v = [T::default()];
        crate::element::download(&mut v, |b| {
            b.copy_from_slice(&bytes[..size_of::<T>()]);
            Ok(())
        })
        .unwrap_or_else(|_| unreachable!("copying bytes cannot fail"));
        v[0]
    }
    fn c_type() -> &'static str {
        T::CL_TYPE
    }
    fn declare() {
        <T as ClType>::declare()
    }
}

// SAFETY: an array of cells has the layout of the array of values, element by element;
// arrays add no padding between elements, so `PADDED` is the element's.
unsafe impl<T: Field, const N: usize> Field for [T; N] {
    type Cell = [T::Cell; N];
    const EVERY_BIT_PATTERN: bool = T::EVERY_BIT_PATTERN;
    const PADDED: bool = T::PADDED;
    const CL_ALIGN: usize = T::CL_ALIGN;
    fn load(cell: &Self::Cell) -> Self {
        std::array::from_fn(|k| T::load(&cell[k]))
    }
    fn store(cell: &Self::Cell, value: Self) {
        for (c, v) in cell.iter().zip(value) {
            T::store(c, v);
        }
    }
    fn cell(value: Self) -> Self::Cell {
        value.map(T::cell)
    }
    fn same_bits(a: Self, b: Self) -> bool {
        a.iter().zip(b).all(|(x, y)| T::same_bits(*x, y))
    }
    fn encode(&self, out: &mut [u8]) {
        for (v, o) in self.iter().zip(out.chunks_mut(size_of::<T>())) {
            v.encode(o);
        }
    }
    fn decode(bytes: &[u8]) -> Self {
        std::array::from_fn(|k| T::decode(&bytes[k * size_of::<T>()..]))
    }
    fn c_type() -> &'static str {
        <[T; N] as ClType>::cl()
    }
    fn declare() {
        <[T; N] as ClType>::declare()
    }
}

/// C's offset of a field of alignment `align` placed after `end` bytes of earlier fields.
pub const fn c_offset(end: usize, align: usize) -> usize {
    end.div_ceil(align) * align
}

/// Encodes each value into its `size_of::<T>()` bytes of `out`, padding zeroed.
pub fn encode_each<T: Pod>(values: &[T], out: &mut [u8], one: impl Fn(&T, &mut [u8])) {
    out.fill(0);
    for (v, o) in values.iter().zip(out.chunks_mut(size_of::<T>())) {
        one(v, o);
    }
}

/// Decodes each value from its `size_of::<T>()` bytes of `bytes`.
pub fn decode_each<T: Pod>(bytes: &[u8], out: &mut [T], one: impl Fn(&[u8]) -> T) {
    for (o, b) in out.iter_mut().zip(bytes.chunks(size_of::<T>())) {
        *o = one(b);
    }
}

/// A struct's OpenCL C declaration, built from Rust's layout of it.
pub struct StructDecl {
    name: &'static str,
    size: usize,
    fields: String,
    checks: Vec<String>,
}

impl StructDecl {
    /// The struct `name` of `size` bytes.
    pub fn new(name: &'static str, size: usize) -> StructDecl {
        let checks = vec![format!("sizeof({name}) == {size}")];
        StructDecl {
            name,
            size,
            fields: String::new(),
            checks,
        }
    }

    /// A field of type `F` named `field` at Rust's offset `offset`.
    pub fn field<F: Field>(mut self, field: &str, offset: usize) -> StructDecl {
        F::declare();
        self.fields += &format!(" {} {field};", F::c_type());
        let name = self.name;
        self.checks
            .push(format!("NU_OFFSETOF({name}, {field}) == {offset}"));
        self
    }

    /// The `typedef`, then a check the device compiler evaluates: a negative array size, a
    /// build error naming the struct, if its layout differs from Rust's.
    pub fn text(self) -> String {
        let (name, size) = (self.name, self.size);
        let mut t = format!(
            "typedef struct {{{} }} {name};\n/* {name}: {size} bytes, laid out as in Rust */\n",
            self.fields
        );
        for (k, c) in self.checks.iter().enumerate() {
            t += &format!("typedef char {name}_layout_matches_rust_{k}[({c}) ? 1 : -1];\n");
        }
        t
    }
}

/// Every struct declared so far, dependencies first: name and declaration.
static DECLS: Mutex<Vec<(&'static str, String)>> = Mutex::new(Vec::new());

/// Registers struct `name`'s declaration, made by `decl` (which registers its fields' first),
/// once per process.
pub fn declare_struct(name: &'static str, decl: impl FnOnce() -> String) {
    let known = |d: &Vec<(&str, String)>| d.iter().any(|(n, _)| *n == name);
    if known(&DECLS.lock().unwrap_or_else(PoisonError::into_inner)) {
        return;
    }
    // Built without the lock: nested structs register themselves meanwhile.
    let text = decl();
    let mut decls = DECLS.lock().unwrap_or_else(PoisonError::into_inner);
    if !known(&decls) {
        decls.push((name, text));
    }
}

/// The declarations a program's text needs: the structs it names and those they contain,
/// in dependency order.
pub(crate) fn declarations_for(text: &str) -> String {
    let decls = DECLS.lock().unwrap_or_else(PoisonError::into_inner);
    let mut used: Vec<bool> = decls.iter().map(|(n, _)| mentions(text, n)).collect();
    // Later structs contain earlier ones only: one pass from the end closes the set.
    for i in (0..decls.len()).rev() {
        if used[i] {
            for (j, (n, _)) in decls[..i].iter().enumerate() {
                used[j] |= mentions(&decls[i].1, n);
            }
        }
    }
    let mut out = String::new();
    for (d, _) in decls.iter().zip(&used).filter(|(_, u)| **u) {
        out += &d.1;
    }
    out
}

/// Whether `text` names `name` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    text.match_indices(name).any(|(i, _)| {
        !word(text[..i].chars().next_back()) && !word(text[i + name.len()..].chars().next())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_offsets_round_up_to_the_alignment() {
        assert_eq!(c_offset(0, 8), 0);
        assert_eq!(c_offset(9, 8), 16);
        assert_eq!(c_offset(17, 1), 17);
    }

    #[test]
    fn declarations_follow_names_and_nesting() {
        declare_struct("nus_test_inner", || {
            "typedef struct { int a; } nus_test_inner;\n".into()
        });
        declare_struct("nus_test_outer", || {
            "typedef struct { nus_test_inner i; } nus_test_outer;\n".into()
        });
        let d = declarations_for("kernel void k(nus_test_outer o) {}");
        let (inner, outer) = (d.find("} nus_test_inner;"), d.find("} nus_test_outer;"));
        assert!(inner.is_some() && outer.is_some() && inner < outer, "{d}");
        assert!(declarations_for("nus_test_outer_x nus_test_innerx").is_empty());
    }

    /// Encodes and decodes `v` through its bytes, as uploads and downloads of a struct field
    /// do (run under Miri by `scripts/miri`).
    fn round_trip<F: Field + std::fmt::Debug>(v: F) -> Vec<u8> {
        let mut bytes = vec![0xAAu8; size_of::<F>()];
        v.encode(&mut bytes);
        assert!(F::same_bits(F::decode(&bytes), v), "{v:?}");
        let cell = F::cell(v);
        assert!(F::same_bits(F::load(&cell), v), "{v:?}");
        F::store(&cell, F::decode(&bytes));
        assert!(F::same_bits(F::load(&cell), v), "{v:?}");
        bytes
    }

    #[test]
    fn fields_and_arrays_of_fields_round_trip_bit_exactly() {
        let b = round_trip([1.5f64, -0.0, f64::from_bits(0x7ff8_0000_0000_0001)]);
        assert_eq!(&b[8..16], &(-0.0f64).to_le_bytes());
        let b = round_trip([[true, false], [false, true]]);
        assert_eq!(b, [1, 0, 0, 1]);
        round_trip([usize::MAX, 7]);
        round_trip([[3u8; 3]; 2]);
        round_trip(-5i16);
        let mut out = vec![0xAAu8; 3 * size_of::<u16>()];
        let vals = [1u16, 0xBEEF, 6];
        encode_each(&vals, &mut out, |v, o| v.encode(o));
        let mut back = [0u16; 3];
        decode_each(&out, &mut back, <u16 as Field>::decode);
        assert_eq!(back, vals);
    }

    #[test]
    fn array_fields_are_private_array_structs() {
        assert_eq!(
            <[[f32; 3]; 2] as Field>::c_type(),
            "nu_arr_nu_arr_float_3_2"
        );
        let d = declarations_for("nu_arr_nu_arr_float_3_2 x;");
        let (inner, outer) = (
            d.find("} nu_arr_float_3;"),
            d.find("} nu_arr_nu_arr_float_3_2;"),
        );
        assert!(inner.is_some() && outer.is_some() && inner < outer, "{d}");
        assert!(d.contains("#ifndef nu_arr_float_3_declared"), "{d}");
    }
}
