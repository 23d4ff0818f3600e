//! The one table of scalar types. Every per-type list elsewhere (the runtime's element and
//! reduction impls, C spellings, the proof's integer ranges, the compiler's type names) is
//! generated from [`for_each_scalar!`](crate::for_each_scalar) or read from [`SCALARS`], so a new element type is one
//! row here plus what is truly specific to it.

/// Calls `$m! { $( ($rust, $Variant, $c_value, $c_stored, $cuda, $bits, $kind) )* }` once,
/// with every scalar type's row: the Rust type, its [`Scalar`] variant, the C name of a value
/// in kernel code (`nu_idx` for `usize`: 32 or 64 bits, chosen at launch), the C name of an
/// array element (always the host's width), the CUDA C name, the width in bits (`usize` and
/// `isize` 64-bit, as on the hosts nuda runs on) and the kind: `float`, `signed`, `unsigned`
/// or `bool`.
#[macro_export]
macro_rules! for_each_scalar {
    ($m:ident) => {
        $crate::__scalar_rows! { __plain, $m }
    };
}

/// Calls `$m!(i8, i16, ..., usize)` once with every integer type (not `bool`).
#[macro_export]
macro_rules! for_each_int {
    ($m:ident) => {
        $crate::__scalar_rows! { __select, $m, [signed unsigned] }
    };
}

/// Calls `$m!(f32, f64, i8, ..., usize)` once with every number type (integers and floats).
#[macro_export]
macro_rules! for_each_number {
    ($m:ident) => {
        $crate::__scalar_rows! { __select, $m, [float signed unsigned] }
    };
}

/// The rows, the one place they are written: handed to `$crate::$how!` with `$extra`.
#[doc(hidden)]
#[macro_export]
macro_rules! __scalar_rows {
    ($how:ident, $($extra:tt),*) => {
        $crate::$how! {
            [$($extra),*]
            (f32, F32, "float", "float", "float", 32, float)
            (f64, F64, "double", "double", "double", 64, float)
            (i8, I8, "char", "char", "signed char", 8, signed)
            (i16, I16, "short", "short", "short", 16, signed)
            (i32, I32, "int", "int", "int", 32, signed)
            (i64, I64, "long", "long", "long long", 64, signed)
            (isize, Isize, "nu_sidx", "nu_sword", "nu_sidx", 64, signed)
            (u8, U8, "uchar", "uchar", "unsigned char", 8, unsigned)
            (u16, U16, "ushort", "ushort", "unsigned short", 16, unsigned)
            (u32, U32, "uint", "uint", "unsigned int", 32, unsigned)
            (u64, U64, "ulong", "ulong", "unsigned long long", 64, unsigned)
            (usize, Usize, "nu_idx", "nu_word", "nu_idx", 64, unsigned)
            (bool, Bool, "bool", "uchar", "bool", 1, bool)
        }
    };
}

/// Every row to `$m`, as written.
#[doc(hidden)]
#[macro_export]
macro_rules! __plain {
    ([$m:ident] $($row:tt)*) => {
        $m! { $($row)* }
    };
}

/// The Rust types of the rows whose kind is in `[$($kinds)*]`, to `$m` as one list: munches
/// the rows one by one, keeping those of a listed kind.
#[doc(hidden)]
#[macro_export]
macro_rules! __select {
    ([$m:ident, [$($kinds:ident)*]] $($rows:tt)*) => {
        $crate::__select! { @ $m [$($kinds)*] [] $($rows)* }
    };
    (@ $m:ident [$($kinds:ident)*] [$($kept:ident)*]
        ($t:ident, $v:ident, $cv:literal, $cs:literal, $cu:literal, $bits:literal, $kind:ident)
        $($rest:tt)*) => {
        $crate::__select! { @@ $m [$($kinds)*] [$($kept)*] $t $kind [$($kinds)*] $($rest)* }
    };
    (@ $m:ident [$($kinds:ident)*] [$($kept:ident)*]) => {
        $m! { $($kept),* }
    };
    // Is `$kind` among the kinds still to compare? Keep the type on a match, drop it when
    // none is left.
    (@@ $m:ident [$($kinds:ident)*] [$($kept:ident)*] $t:ident float [float $($_o:ident)*] $($rest:tt)*) => {
        $crate::__select! { @ $m [$($kinds)*] [$($kept)* $t] $($rest)* }
    };
    (@@ $m:ident [$($kinds:ident)*] [$($kept:ident)*] $t:ident signed [signed $($_o:ident)*] $($rest:tt)*) => {
        $crate::__select! { @ $m [$($kinds)*] [$($kept)* $t] $($rest)* }
    };
    (@@ $m:ident [$($kinds:ident)*] [$($kept:ident)*] $t:ident unsigned [unsigned $($_o:ident)*] $($rest:tt)*) => {
        $crate::__select! { @ $m [$($kinds)*] [$($kept)* $t] $($rest)* }
    };
    (@@ $m:ident [$($kinds:ident)*] [$($kept:ident)*] $t:ident bool [bool $($_o:ident)*] $($rest:tt)*) => {
        $crate::__select! { @ $m [$($kinds)*] [$($kept)* $t] $($rest)* }
    };
    (@@ $m:ident [$($kinds:ident)*] [$($kept:ident)*] $t:ident $kind:ident [$_k:ident $($o:ident)*] $($rest:tt)*) => {
        $crate::__select! { @@ $m [$($kinds)*] [$($kept)*] $t $kind [$($o)*] $($rest)* }
    };
    (@@ $m:ident [$($kinds:ident)*] [$($kept:ident)*] $t:ident $kind:ident [] $($rest:tt)*) => {
        $crate::__select! { @ $m [$($kinds)*] [$($kept)*] $($rest)* }
    };
}

/// What a row says about one scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalarInfo {
    /// The type.
    pub scalar: Scalar,
    /// Its Rust name.
    pub rust: &'static str,
    /// Its C name as a value in kernel code (OpenCL C, and CUDA C through nuda's prelude).
    pub c_value: &'static str,
    /// Its C name as an array element in device memory.
    pub c_stored: &'static str,
    /// Its CUDA C name.
    pub cuda: &'static str,
    /// Its width in bits.
    pub bits: u32,
    /// Whether it is a signed integer.
    pub signed: bool,
    /// Whether it is `f32` or `f64`.
    pub float: bool,
}

macro_rules! kind_is {
    (signed, signed) => {
        true
    };
    (float, float) => {
        true
    };
    ($a:ident, $b:ident) => {
        false
    };
}

macro_rules! scalar_table {
    ($( ($t:ident, $v:ident, $cv:literal, $cs:literal, $cu:literal, $bits:literal, $kind:ident) )*) => {
        /// The Rust scalar types kernels use.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Scalar {
            $(
                #[doc = concat!("`", stringify!($t), "`")]
                $v,
            )*
        }

        /// Every scalar type's row, in [`for_each_scalar!`](crate::for_each_scalar)'s order.
        pub const SCALARS: &[ScalarInfo] = &[$(
            ScalarInfo {
                scalar: Scalar::$v,
                rust: stringify!($t),
                c_value: $cv,
                c_stored: $cs,
                cuda: $cu,
                bits: $bits,
                signed: kind_is!($kind, signed),
                float: kind_is!($kind, float),
            },
        )*];
    };
}

for_each_scalar!(scalar_table);

impl Scalar {
    /// Its row.
    pub const fn info(self) -> &'static ScalarInfo {
        // The table is in the enum's order: the variant's discriminant is its row.
        &SCALARS[self as usize]
    }

    /// The type a Rust name such as `f32` or `usize` names.
    pub fn from_rust(name: &str) -> Option<Scalar> {
        SCALARS.iter().find(|r| r.rust == name).map(|r| r.scalar)
    }

    /// The type whose kernel-code C name is `name` (`float`, `nu_idx`).
    pub fn from_c(name: &str) -> Option<Scalar> {
        SCALARS.iter().find(|r| r.c_value == name).map(|r| r.scalar)
    }

    /// The Rust type name.
    pub fn rust_name(self) -> &'static str {
        self.info().rust
    }

    /// The C type name of a value in kernel code.
    pub fn c_name(self) -> &'static str {
        self.info().c_value
    }

    /// The width in bits (`usize` and `isize` 64).
    pub fn bits(self) -> u32 {
        self.info().bits
    }

    /// Whether it is a signed integer.
    pub fn is_signed(self) -> bool {
        self.info().signed
    }

    /// Whether it is `f32` or `f64`.
    pub fn is_float(self) -> bool {
        self.info().float
    }

    /// Whether it is an integer (`bool` is not).
    pub fn is_int(self) -> bool {
        !self.is_float() && self != Scalar::Bool
    }

    /// `usize` or `isize`, whose width in kernels is chosen per program (32 bits where the
    /// launch proves that enough).
    pub fn is_size(self) -> bool {
        matches!(self, Scalar::Usize | Scalar::Isize)
    }

    /// An integer type's unsigned twin, the type of the same width that signed arithmetic is
    /// done in (`i8` is `u8`'s, `isize` `usize`'s); an unsigned type is its own.
    pub fn twin(self) -> Option<Scalar> {
        let rust = self.rust_name();
        match self {
            _ if !self.is_int() => None,
            _ if self.is_signed() => Scalar::from_rust(&format!("u{}", &rust[1..])),
            _ => Some(self),
        }
    }

    /// The largest value of an integer type (1 for `bool`).
    pub fn max_value(self) -> u128 {
        let b = self.bits();
        if self.is_signed() {
            (1u128 << (b - 1)) - 1
        } else {
            (1u128 << b) - 1
        }
    }

    /// The smallest value of an integer type (0 for unsigned ones and `bool`).
    pub fn min_value(self) -> i128 {
        if self.is_signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits agree with Rust's own for every integer row.
    #[test]
    fn limits_are_rusts() {
        macro_rules! check {
            ($( ($t:ident, $v:ident, $cv:literal, $cs:literal, $cu:literal, $bits:literal, $kind:ident) )*) => {$(
                check!(@ $t, $v, $kind);
            )*};
            (@ $t:ident, $v:ident, float) => {};
            (@ $t:ident, $v:ident, bool) => {
                assert_eq!(Scalar::$v.max_value(), 1);
            };
            (@ $t:ident, $v:ident, $kind:ident) => {
                assert_eq!(Scalar::$v.max_value(), $t::MAX as u128, stringify!($t));
                assert_eq!(Scalar::$v.min_value(), $t::MIN as i128, stringify!($t));
                assert_eq!(Scalar::$v.bits(), $t::BITS, stringify!($t));
            };
        }
        for_each_scalar!(check);
        for r in SCALARS {
            assert_eq!(r.scalar.info(), r);
            assert_eq!(Scalar::from_rust(r.rust), Some(r.scalar));
            if let Some(t) = r.scalar.twin() {
                assert!(!t.is_signed() && t.bits() == r.bits && t.is_size() == r.scalar.is_size());
            }
        }
    }

    /// The selections list exactly the rows of their kinds, in the table's order.
    #[test]
    fn selections_keep_their_kinds() {
        macro_rules! names {
            ($($t:ident),*) => {
                vec![$(stringify!($t)),*]
            };
        }
        let ints: Vec<&str> = for_each_int!(names);
        let numbers: Vec<&str> = for_each_number!(names);
        let of = |keep: fn(&ScalarInfo) -> bool| -> Vec<&str> {
            SCALARS.iter().filter(|r| keep(r)).map(|r| r.rust).collect()
        };
        assert_eq!(ints, of(|r| r.scalar.is_int()));
        assert_eq!(numbers, of(|r| r.scalar != Scalar::Bool));
        assert_eq!(ints.len(), 10);
    }
}
