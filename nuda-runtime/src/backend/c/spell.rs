//! Rust's integer and float semantics in OpenCL C, per type: how a template's typed operation
//! is written once rustc has said what type it has.
//!
//! C leaves signed overflow undefined, converts out-of-range values to signed types in an
//! implementation-defined way, promotes narrow integers to `int` (so `uchar << 9` and
//! `ushort * ushort` go wrong), and traps or returns garbage on division by zero. Rust wraps
//! (nuda's defined overflow, in debug builds too), masks shift amounts to the type's width,
//! and panics on division by zero. So signed arithmetic is done on the unsigned twin and
//! reinterpreted with `as_T`, narrow arithmetic in `uint` and truncated, shift amounts masked,
//! and integer division goes through the prelude's `nu_div_T`, which records a fault.

/// An integer type's C name, unsigned twin, width and signedness, from the one scalar table
/// (`nuda_abi::SCALARS`). `nu_idx`/`nu_sidx` are `uint`/`int` or `ulong`/`long`, chosen per
/// program; their width is `NU_IDX_BITS`.
pub(super) struct Int {
    pub(super) name: &'static str,
    pub(super) unsigned: &'static str,
    bits: &'static str,
    pub(super) signed: bool,
}

/// Every integer type, in the table's order.
pub(super) fn ints() -> impl Iterator<Item = Int> {
    nuda_abi::SCALARS.iter().filter_map(|r| {
        let twin = r.scalar.twin()?;
        let bits = match r.bits {
            _ if r.scalar.is_size() => "NU_IDX_BITS",
            8 => "8",
            16 => "16",
            32 => "32",
            _ => "64",
        };
        Some(Int {
            name: r.c_value,
            unsigned: twin.c_name(),
            bits,
            signed: r.signed,
        })
    })
}

fn int(ty: &str) -> Option<Int> {
    ints().find(|i| i.name == ty)
}

impl Int {
    /// Narrower than `int`: C promotes it before arithmetic.
    fn narrow(&self) -> bool {
        matches!(self.bits, "8" | "16")
    }

    /// `v`, a value computed in the unsigned twin (or in `uint` for narrow types), brought
    /// back to this type with wrapping.
    fn back(&self, v: &str) -> String {
        match (self.signed, self.narrow()) {
            (true, true) => format!("as_{}(({})({v}))", self.name, self.unsigned),
            (true, false) => format!("as_{}({v})", self.name),
            (false, true) => format!("(({})({v}))", self.name),
            (false, false) => format!("({v})"),
        }
    }

    /// The type arithmetic is done in: the unsigned twin, or `uint` for narrow types.
    fn work(&self) -> &'static str {
        if self.narrow() {
            "uint"
        } else {
            self.unsigned
        }
    }

    fn mask(&self, amount: &str) -> String {
        format!("(({amount}) & ({} - 1))", self.bits)
    }
}

/// The C of typed operation `op` on values of type `ty`, with `args` already spelled.
pub fn op(op: &str, ty: &str, args: &[String]) -> String {
    let a = |k: usize| args.get(k).map_or("0", String::as_str);
    if let Some(target) = op.strip_prefix("to:") {
        return cast(ty, target, a(0));
    }
    if op == "from_int" {
        // An integer (a work-item's number, say) into this type, wrapping.
        return cast("ulong", ty, a(0));
    }
    match int(ty) {
        Some(t) => int_op(op, &t, args),
        None => float_op(op, ty, a(0), a(1)),
    }
}

/// Arithmetic that can leave the type's range, and so wraps.
fn wrapping_symbol(op: &str) -> Option<&'static str> {
    Some(match op {
        "add" => "+",
        "sub" => "-",
        "mul" => "*",
        _ => return None,
    })
}

/// Bitwise operations, which stay in range (narrow operands are promoted with their sign).
fn bitwise_symbol(op: &str) -> Option<&'static str> {
    Some(match op {
        "and" => "&",
        "or" => "|",
        "xor" => "^",
        _ => return None,
    })
}

fn int_op(op: &str, t: &Int, args: &[String]) -> String {
    let a = |k: usize| args.get(k).map_or("0", String::as_str);
    let w = t.work();
    if let Some(sym) = wrapping_symbol(op) {
        // Unsigned arithmetic of `uint` width or more is already modular in C; both operands
        // have the type, as Rust requires.
        if !t.signed && !t.narrow() {
            return format!("({} {sym} {})", a(0), a(1));
        }
        return t.back(&format!("({w})({}) {sym} ({w})({})", a(0), a(1)));
    }
    if let Some(sym) = bitwise_symbol(op) {
        return match t.narrow() {
            true => format!("(({})(({}) {sym} ({})))", t.name, a(0), a(1)),
            false => format!("({} {sym} {})", a(0), a(1)),
        };
    }
    match op {
        "shl" => t.back(&format!("({w})({}) << {}", a(0), t.mask(a(1)))),
        // `>>` of a signed value fills with its sign bit (OpenCL C 6.3.j); narrow values are
        // promoted with their sign, so the result is in range.
        "shr" => format!("(({})(({}) >> {}))", t.name, a(0), t.mask(a(1))),
        "neg" => t.back(&format!("-({w})({})", a(0))),
        "not" => format!("(({})~({}))", t.name, a(0)),
        // |x| in the unsigned twin (the prelude's `nu_abs_T`): |MIN| reinterpreted is MIN,
        // as Rust's wrapping, and no C rule lets the compiler assume it non-negative.
        "abs" | "wrapping_abs" | "unsigned_abs" if t.signed => {
            let f = if op == "unsigned_abs" {
                "unsigned_abs"
            } else {
                "abs"
            };
            format!("nu_{f}_{}({})", t.name, a(0))
        }
        "abs" | "wrapping_abs" | "unsigned_abs" => format!("({})", a(0)),
        "div" | "rem" | "rem_euclid" | "div_euclid" | "saturating_div" => format!(
            "nu_{op}_{}({}, {}, {}, {}, nu_err)",
            t.name,
            a(0),
            a(1),
            a(2),
            a(3)
        ),
        "trips" | "last" => format!("nu_{op}_{}({}, nu_err)", t.name, args.join(", ")),
        "some" => format!("nu_some_{}({})", t.name, args.join(", ")),
        _ => format!("/* nuda: unknown operation {op} */ 0"),
    }
}

fn float_op(op: &str, ty: &str, a: &str, b: &str) -> String {
    match op {
        "add" => format!("({a} + {b})"),
        "sub" => format!("({a} - {b})"),
        "mul" => format!("({a} * {b})"),
        "div" => format!("({a} / {b})"),
        "rem" => format!("fmod({a}, {b})"),
        "rem_euclid" => format!("nu_rem_euclid_{ty}({a}, {b})"),
        "div_euclid" => format!("nu_div_euclid_{ty}({a}, {b})"),
        "neg" => format!("(-{a})"),
        "not" if ty == "bool" => format!("(!{a})"),
        "abs" => format!("fabs({a})"),
        "and" => format!("({a} & {b})"),
        "or" => format!("({a} | {b})"),
        "xor" => format!("({a} ^ {b})"),
        _ => format!("/* nuda: unknown operation {op} on {ty} */ 0"),
    }
}

/// `x as target`, from a value of type `from`: floats saturate (NaN gives 0, through the
/// prelude's `nu_sat_<target>_<from>`), integers wrap.
fn cast(from: &str, target: &str, x: &str) -> String {
    if matches!(from, "float" | "double") {
        return match int(target) {
            Some(_) => format!("nu_sat_{target}_{from}({x})"),
            None => format!("(({target})({x}))"),
        };
    }
    match int(target) {
        Some(t) if t.signed => format!("as_{target}(({})({x}))", t.unsigned),
        Some(_) => format!("(({target})({x}))"),
        None => format!("(({target})({x}))"),
    }
}

/// A literal with `digits` (base 10) of OpenCL C type `ty`. Every value Rust accepts keeps
/// its value: a signed literal one past the maximum (the operand of a negation, as in
/// `-2147483648i32`) is written through its unsigned twin.
pub fn literal(digits: &str, ty: &str) -> String {
    match ty {
        "float" => format!("{}f", decimal(digits)),
        "double" => decimal(digits),
        "bool" => digits.to_string(),
        _ => match int(ty) {
            Some(t) => int_literal(digits, &t),
            None => format!("(({ty}){digits})"),
        },
    }
}

fn int_literal(digits: &str, t: &Int) -> String {
    let value: u128 = digits.parse().unwrap_or(0);
    let max_signed: u128 = match t.bits {
        "8" => i8::MAX as u128,
        "16" => i16::MAX as u128,
        "32" => i32::MAX as u128,
        _ => i64::MAX as u128,
    };
    if t.signed && value > max_signed {
        return format!("as_{}(({})({digits}UL))", t.name, t.unsigned);
    }
    match t.name {
        "int" => digits.to_string(),
        "uint" => format!("{digits}u"),
        "long" => format!("{digits}L"),
        "ulong" => format!("{digits}UL"),
        // 64-bit when the program's index type is; a larger value forces it (see `proof`).
        "nu_idx" => format!("((nu_idx){digits}UL)"),
        "nu_sidx" => format!("((nu_sidx){digits}L)"),
        other => format!("(({other}){digits})"),
    }
}

/// A float literal's digits with a decimal point, so C reads them as floating point.
pub fn decimal(d: &str) -> String {
    if d.contains(['e', 'E']) {
        d.to_string()
    } else if d.ends_with('.') {
        format!("{d}0")
    } else if d.contains('.') {
        d.to_string()
    } else {
        format!("{d}.0")
    }
}

/// The spelling of a type-dependent function for `ty`: `min`/`max` (`fmin` for floats).
pub fn func(f: &str, ty: &str) -> String {
    let float = matches!(ty, "float" | "double");
    match f {
        "min" | "max" if float => format!("f{f}"),
        // The bits of a float, as the unsigned integer of its width.
        "to_bits" if ty == "double" => "as_ulong".to_string(),
        "to_bits" => "as_uint".to_string(),
        "signum" | "powi" | "pow" | "swap_bytes" | "saturating_mul" | "clamp" | "checked_add"
        | "checked_sub" | "checked_mul" | "checked_div" | "checked_rem" | "checked_neg"
        | "checked_abs" | "saturating_abs" | "checked_pow" | "saturating_pow" | "checked_shl"
        | "checked_shr" | "checked_div_euclid" | "checked_rem_euclid" => {
            format!("nu_{f}_{ty}")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(o: &str, ty: &str) -> String {
        op(o, ty, &["a".into(), "b".into()])
    }

    #[test]
    fn signed_arithmetic_wraps_through_the_unsigned_twin() {
        assert_eq!(ops("add", "int"), "as_int((uint)(a) + (uint)(b))");
        assert_eq!(
            ops("mul", "short"),
            "as_short((ushort)((uint)(a) * (uint)(b)))"
        );
        assert_eq!(ops("mul", "ushort"), "((ushort)((uint)(a) * (uint)(b)))");
        assert_eq!(ops("add", "float"), "(a + b)");
        assert_eq!(ops("sub", "nu_idx"), "(a - b)");
    }

    #[test]
    fn shifts_mask_to_the_type_width() {
        assert_eq!(
            ops("shl", "uchar"),
            "((uchar)((uint)(a) << ((b) & (8 - 1))))"
        );
        assert_eq!(ops("shr", "char"), "((char)((a) >> ((b) & (8 - 1))))");
    }

    #[test]
    fn literals_keep_their_values() {
        assert_eq!(literal("2147483648", "int"), "as_int((uint)(2147483648UL))");
        assert_eq!(literal("5000000000", "nu_idx"), "((nu_idx)5000000000UL)");
        assert_eq!(literal("128", "char"), "as_char((uchar)(128UL))");
        assert_eq!(literal("2", "float"), "2.0f");
    }

    #[test]
    fn casts_saturate_from_floats_and_wrap_between_integers() {
        assert_eq!(op("to:int", "float", &["x".into()]), "nu_sat_int_float(x)");
        assert_eq!(op("to:char", "int", &["x".into()]), "as_char((uchar)(x))");
        assert_eq!(op("to:uint", "long", &["x".into()]), "((uint)(x))");
    }
}
