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

/// The OpenCL C integer types: (name, unsigned twin, bits, signed). `nu_idx`/`nu_sidx` are
/// `uint`/`int` or `ulong`/`long`, chosen per program; `NU_IDX_BITS` says which.
const INTS: &[(&str, &str, &str, bool)] = &[
    ("char", "uchar", "8", true),
    ("uchar", "uchar", "8", false),
    ("short", "ushort", "16", true),
    ("ushort", "ushort", "16", false),
    ("int", "uint", "32", true),
    ("uint", "uint", "32", false),
    ("long", "ulong", "64", true),
    ("ulong", "ulong", "64", false),
    ("nu_sidx", "nu_idx", "NU_IDX_BITS", true),
    ("nu_idx", "nu_idx", "NU_IDX_BITS", false),
];

/// An integer type's twin, width and signedness.
struct Int {
    name: &'static str,
    unsigned: &'static str,
    bits: &'static str,
    signed: bool,
}

fn int(ty: &str) -> Option<Int> {
    INTS.iter()
        .find(|(n, ..)| *n == ty)
        .map(|&(name, unsigned, bits, signed)| Int {
            name,
            unsigned,
            bits,
            signed,
        })
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
        // `abs` returns the unsigned twin: |MIN| reinterpreted is MIN, as Rust's wrapping.
        // The operand is cast first: C's promotions may have made a `char` an `int`.
        "abs" if t.signed => format!("as_{}(abs(({})({})))", t.name, t.name, a(0)),
        "abs" => format!("({})", a(0)),
        "div" | "rem" | "rem_euclid" | "saturating_div" => format!(
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
        "neg" => format!("(-{a})"),
        "not" if ty == "bool" => format!("(!{a})"),
        "abs" => format!("fabs({a})"),
        "and" => format!("({a} & {b})"),
        "or" => format!("({a} | {b})"),
        "xor" => format!("({a} ^ {b})"),
        _ => format!("/* nuda: unknown operation {op} on {ty} */ 0"),
    }
}

/// `x as target`, from a value of type `from`: floats saturate (NaN gives 0), integers wrap.
fn cast(from: &str, target: &str, x: &str) -> String {
    if matches!(from, "float" | "double") {
        return match int(target) {
            Some(_) => format!("convert_{target}_sat_rtz({x})"),
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
        "signum" | "pow" | "swap_bytes" | "saturating_mul" | "clamp" | "checked_add"
        | "checked_sub" | "checked_mul" | "checked_div" | "checked_rem" | "checked_neg"
        | "checked_abs" | "saturating_abs" | "checked_pow" | "saturating_pow" | "checked_shl"
        | "checked_shr" | "checked_div_euclid" | "checked_rem_euclid" => {
            format!("nu_{f}_{ty}")
        }
        other => other.to_string(),
    }
}

/// The prelude's loop counts, computed in the unsigned twin so no difference overflows:
/// `nu_last_T(a, b, step, inclusive, check, site, record)` is the index of the last value
/// from `a` to `b` (counting up by a positive step, down by a negative one) and
/// `nu_some_T(a, b, step, inclusive)` whether there is any, so a loop over all 2^64 values
/// of a `u64` runs; `nu_trips_T(..)` is the count, for the annotations, which faults where it
/// does not fit. A zero step records a fault and gives no iteration.
pub fn trips_helpers() -> String {
    let mut s = String::from(
        "#define NU_TRIPS(T, U) \\\n\
         nu_idx nu_last_##T(T a, T b, T s, int incl, int c, uint site, global uint* e) { \\\n\
         \x20   if (s == 0) { if (c) nu_fault(e, site, 0u, 0, 0, 0, 0, 0, 0); return 0; } \\\n\
         \x20   T lo = s > 0 ? a : b, hi = s > 0 ? b : a; \\\n\
         \x20   if (hi < lo || (!incl && hi == lo)) return 0; \\\n\
         \x20   U st = s > 0 ? (U)s : (U)((U)0 - (U)s); \\\n\
         \x20   U d = (U)((U)hi - (U)lo); \\\n\
         \x20   return incl ? (nu_idx)(d / st) : (nu_idx)((U)(d - 1) / st); \\\n\
         } \\\n\
         int nu_some_##T(T a, T b, T s, int incl) { \\\n\
         \x20   T lo = s > 0 ? a : b, hi = s > 0 ? b : a; \\\n\
         \x20   return s != 0 && (hi > lo || (incl && hi == lo)); \\\n\
         } \\\n\
         nu_idx nu_trips_##T(T a, T b, T s, int incl, int c, uint site, global uint* e) { \\\n\
         \x20   nu_idx last = nu_last_##T(a, b, s, incl, c, site, e); \\\n\
         \x20   if (!nu_some_##T(a, b, s, incl)) return 0; \\\n\
         \x20   if (last == (nu_idx)~(nu_idx)0) { if (c) nu_fault(e, site, 1u, 0, 0, 0, 0, 0, 0); return 0; } \\\n\
         \x20   return last + 1; \\\n\
         }\n",
    );
    for (t, u) in INTS
        .iter()
        .filter(|i| !i.0.starts_with("nu_"))
        .map(|i| (i.0, i.1))
    {
        s += &format!("NU_TRIPS({t}, {u})\n");
    }
    s
}

/// The prelude's integer division and remainder: `nu_div_T(a, b, check, site, record)`.
/// With `check` set, a zero divisor (or `MIN / -1`) records a fault and gives 0; with it
/// clear (the divisor was proved safe at launch) it is a plain `/`.
pub fn division_helpers() -> String {
    let mut s = String::from(
        "#define NU_DIV(T, OP, NAME, OVER) \\\n\
         T nu_##NAME##_##T(T a, T b, int c, uint s, global uint* e) { \\\n\
         \x20   if (c && (b == 0 || OVER)) { nu_fault(e, s, b != 0, 0, 0, 0, 0, 0, 0); return 0; } \\\n\
         \x20   return a OP b; \\\n\
         }\n",
    );
    for (t, min) in [
        ("char", "CHAR_MIN"),
        ("short", "SHRT_MIN"),
        ("int", "INT_MIN"),
        ("long", "LONG_MIN"),
    ] {
        let over = format!("(a == {min} && b == -1)");
        s += &format!("NU_DIV({t}, /, div, {over})\nNU_DIV({t}, %, rem, {over})\n");
    }
    for t in ["uchar", "ushort", "uint", "ulong"] {
        s += &format!("NU_DIV({t}, /, div, 0)\nNU_DIV({t}, %, rem, 0)\n");
        // Rust's rem_euclid of unsigned values is the remainder; nothing saturates.
        s += &format!("{t} nu_rem_euclid_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ return nu_rem_{t}(a, b, c, s, e); }}\n");
        s += &format!("{t} nu_saturating_div_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ return nu_div_{t}(a, b, c, s, e); }}\n");
    }
    // A negative remainder moves up by |b|, in the unsigned twin (|MIN| wraps, as in Rust).
    for (t, u) in [
        ("char", "uchar"),
        ("short", "ushort"),
        ("int", "uint"),
        ("long", "ulong"),
    ] {
        s += &format!(
            "{t} nu_rem_euclid_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ {t} r = nu_rem_{t}(a, b, c, s, e); \
             return r < 0 ? as_{t}(({u})(({u})r + (b < 0 ? ({u})0 - ({u})b : ({u})b))) : r; }}\n"
        );
        // `MIN / -1` is `MAX`, as Rust's `saturating_div`; a zero divisor still faults.
        let (min, max, _) = limits(t);
        s += &format!(
            "{t} nu_saturating_div_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ \
             return (a == {min} && b == -1) ? {max} : nu_div_{t}(a, b, c, s, e); }}\n"
        );
    }
    s
}

/// The prelude's per-type helpers of methods OpenCL C has no builtin for: `signum` (Rust's:
/// NaN stays NaN, a zero keeps its sign, integers give -1, 0 or 1), wrapping `pow` (square
/// and multiply in 64 bits, then the type's low bits), `swap_bytes` and `saturating_mul`
/// (exact in `long` for narrower types; `mul_hi` tells a 64-bit product's overflow).
pub fn method_helpers(fp64: bool) -> String {
    let mut s = String::from(
        "float nu_signum_float(float x) { return isnan(x) ? x : copysign(1.0f, x); }\n",
    );
    // Rust's rem_euclid of floats: a negative remainder moves up by |b|.
    s += "float nu_rem_euclid_float(float a, float b) { float r = fmod(a, b); return r < 0 ? r + fabs(b) : r; }\n";
    if fp64 {
        s += "double nu_signum_double(double x) { return isnan(x) ? x : copysign(1.0, x); }\n";
        s += "double nu_rem_euclid_double(double a, double b) { double r = fmod(a, b); return r < 0 ? r + fabs(b) : r; }\n";
    }
    let mut types = vec![
        "float", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
    ];
    if fp64 {
        types.push("double");
    }
    for t in types {
        // Rust's: `min <= max` or a fault (a panic in Rust); a NaN `x` stays NaN.
        s += &format!(
            "{t} nu_clamp_{t}({t} x, {t} lo, {t} hi, int c, uint s, global uint* e) {{ \
             if (c && !(lo <= hi)) {{ nu_fault(e, s, 0u, 0, 0, 0, 0, 0, 0); return x; }} \
             return x < lo ? lo : x > hi ? hi : x; }}\n"
        );
    }
    let ints = [
        ("char", "uchar", "x"),
        ("short", "ushort", "as_short(as_uchar2(x).s10)"),
        ("int", "uint", "as_int(as_uchar4(x).s3210)"),
        ("long", "ulong", "as_long(as_uchar8(x).s76543210)"),
    ];
    for (t, u, swap) in ints {
        let uswap = swap
            .replace("as_short(", "as_ushort(")
            .replace("as_int(", "as_uint(")
            .replace("as_long(", "as_ulong(");
        s += &format!("{t} nu_signum_{t}({t} x) {{ return ({t})((x > 0) - (x < 0)); }}\n");
        s += &format!("{u} nu_signum_{u}({u} x) {{ return ({u})(x != 0); }}\n");
        for (ty, sw) in [(t, swap.to_string()), (u, uswap)] {
            // The low bits reinterpreted, as the rest of nuda's signed arithmetic does.
            let back = if ty == t {
                format!("as_{t}(({u})r)")
            } else {
                format!("({u})r")
            };
            s += &format!(
                "{ty} nu_pow_{ty}({ty} x, uint e) {{ ulong r = 1, b = (ulong)x; \
                 while (e) {{ if (e & 1) r *= b; b *= b; e >>= 1; }} return {back}; }}\n"
            );
            s += &format!("{ty} nu_swap_bytes_{ty}({ty} x) {{ return {sw}; }}\n");
        }
        s += &saturating_mul(t, u);
        s += &checked(t, u);
    }
    s
}

/// `nu_checked_<op>_<t>(x, y, v)` and `_<u>`: `x op y`, or `v` where Rust's `checked_op`
/// gives `None` (overflow, a zero divisor, `MIN / -1`).
fn checked(t: &str, u: &str) -> String {
    let min = match t {
        "char" => "CHAR_MIN",
        "short" => "SHRT_MIN",
        "int" => "INT_MIN",
        _ => "LONG_MIN",
    };
    let wide = if t == "long" {
        None
    } else {
        Some(("long", "ulong"))
    };
    let mul_t = match wide {
        Some((l, _)) => format!("{l} r = ({l})x * ({l})y; return r == ({t})r ? ({t})r : v;"),
        None => "long r = as_long((ulong)x * (ulong)y); return mul_hi(x, y) == (r >> 63) ? r : v;"
            .into(),
    };
    let mul_u = match wide {
        Some((_, ul)) => format!("{ul} r = ({ul})x * ({ul})y; return r == ({u})r ? ({u})r : v;"),
        None => "return mul_hi(x, y) ? v : x * y;".into(),
    };
    let mut s = String::new();
    let mut f = |ty: &str, op: &str, body: &str| {
        s += &format!("{ty} nu_checked_{op}_{ty}({ty} x, {ty} y, {ty} v) {{ {body} }}\n");
    };
    f(
        t,
        "add",
        &format!("{t} r = as_{t}(({u})(({u})x + ({u})y)); return ((x ^ r) & (y ^ r)) < 0 ? v : r;"),
    );
    f(
        t,
        "sub",
        &format!("{t} r = as_{t}(({u})(({u})x - ({u})y)); return ((x ^ y) & (x ^ r)) < 0 ? v : r;"),
    );
    f(t, "mul", &mul_t);
    f(
        t,
        "div",
        &format!("return (y == 0 || (x == {min} && y == -1)) ? v : ({t})(x / y);"),
    );
    f(
        t,
        "rem",
        &format!("return (y == 0 || (x == {min} && y == -1)) ? v : ({t})(x % y);"),
    );
    f(
        u,
        "add",
        &format!("{u} r = ({u})(x + y); return r < x ? v : r;"),
    );
    f(u, "sub", &format!("return x < y ? v : ({u})(x - y);"));
    f(u, "mul", &mul_u);
    f(u, "div", &format!("return y == 0 ? v : ({u})(x / y);"));
    f(u, "rem", &format!("return y == 0 ? v : ({u})(x % y);"));
    // Euclid's quotient and remainder: the remainder is never negative. An unsigned one is
    // the plain division's.
    let over = format!("y == 0 || (x == {min} && y == -1)");
    f(
        t,
        "div_euclid",
        &format!("if ({over}) return v; {t} q = ({t})(x / y); return ({t})(x % y) < 0 ? ({t})(y > 0 ? q - 1 : q + 1) : q;"),
    );
    f(
        t,
        "rem_euclid",
        &format!("if ({over}) return v; {t} r = ({t})(x % y); return r < 0 ? as_{t}(({u})(({u})r + (y < 0 ? ({u})0 - ({u})y : ({u})y))) : r;"),
    );
    f(
        u,
        "div_euclid",
        &format!("return y == 0 ? v : ({u})(x / y);"),
    );
    f(
        u,
        "rem_euclid",
        &format!("return y == 0 ? v : ({u})(x % y);"),
    );
    // A shift of the type's bits or more is `None`; a signed left shift goes through the
    // unsigned twin, where C defines it.
    let shift = |ty: &str, op: &str, body: &str| {
        format!("{ty} nu_checked_{op}_{ty}({ty} x, uint y, {ty} v) {{ return y < 8 * sizeof({ty}) ? {body} : v; }}\n")
    };
    s += &shift(t, "shl", &format!("as_{t}(({u})(({u})x << y))"));
    s += &shift(u, "shl", &format!("({u})(x << y)"));
    s += &shift(t, "shr", &format!("({t})(x >> y)"));
    s += &shift(u, "shr", &format!("({u})(x >> y)"));
    // `neg` and `abs` overflow only at MIN; an unsigned `checked_neg` is `Some` only for 0.
    let one = |ty: &str, op: &str, body: &str| {
        format!("{ty} nu_checked_{op}_{ty}({ty} x, {ty} v) {{ {body} }}\n")
    };
    s += &one(t, "neg", &format!("return x == {min} ? v : ({t})(-x);"));
    s += &one(
        t,
        "abs",
        &format!("return x == {min} ? v : (x < 0 ? ({t})(-x) : x);"),
    );
    s += &one(u, "neg", "return x == 0 ? x : v;");
    s +=
        &format!("{t} nu_saturating_abs_{t}({t} x) {{ return x < 0 ? sub_sat(({t})0, x) : x; }}\n");
    s += &pow_helpers(t, u);
    s
}

/// OpenCL C's limits of a signed type `t`: its MIN and MAX, and its unsigned twin's MAX.
fn limits(t: &str) -> (&'static str, &'static str, &'static str) {
    match t {
        "char" => ("CHAR_MIN", "CHAR_MAX", "UCHAR_MAX"),
        "short" => ("SHRT_MIN", "SHRT_MAX", "USHRT_MAX"),
        "int" => ("INT_MIN", "INT_MAX", "UINT_MAX"),
        _ => ("LONG_MIN", "LONG_MAX", "ULONG_MAX"),
    }
}

/// `nu_checked_pow_<t>(x, e, v)` and `nu_saturating_pow_<t>(x, e)`, and for `u`: Rust's
/// results, by squaring with checked multiplications. A true power is 0 only for a zero
/// base, so a zero from `nu_checked_mul` of two non-zero factors is the overflow.
fn pow_helpers(t: &str, u: &str) -> String {
    let (tmin, tmax, umax) = limits(t);
    let mut s = String::new();
    for ty in [t, u] {
        s += &format!(
            "{ty} nu_checked_pow_{ty}({ty} x, uint e, {ty} v) {{ {ty} r = 1, b = x; \
             while (e) {{ if (e & 1) {{ {ty} p = nu_checked_mul_{ty}(r, b, 0); \
             if (p == 0 && r != 0 && b != 0) return v; r = p; }} e >>= 1; \
             if (e) {{ {ty} q = nu_checked_mul_{ty}(b, b, 0); if (q == 0 && b != 0) return v; b = q; }} }} \
             return r; }}\n"
        );
    }
    s += &format!(
        "{t} nu_saturating_pow_{t}({t} x, uint e) {{ {t} r = nu_checked_pow_{t}(x, e, 0); \
         return (r == 0 && x != 0) ? ((x < 0 && (e & 1)) ? {tmin} : {tmax}) : r; }}\n\
         {u} nu_saturating_pow_{u}({u} x, uint e) {{ {u} r = nu_checked_pow_{u}(x, e, 0); \
         return (r == 0 && x != 0) ? {umax} : r; }}\n"
    );
    s
}

/// `nu_saturating_mul_<t>` and `_<u>` for a signed type `t` and its unsigned twin `u`.
fn saturating_mul(t: &str, u: &str) -> String {
    let (tmin, tmax, umax) = limits(t);
    if t == "long" {
        return "long nu_saturating_mul_long(long a, long b) { long lo = as_long((ulong)a * (ulong)b); \
             return mul_hi(a, b) == (lo >> 63) ? lo : ((a < 0) != (b < 0) ? LONG_MIN : LONG_MAX); }\n\
             ulong nu_saturating_mul_ulong(ulong a, ulong b) { return mul_hi(a, b) ? ULONG_MAX : a * b; }\n"
            .to_string();
    }
    format!(
        "{t} nu_saturating_mul_{t}({t} a, {t} b) {{ long r = (long)a * (long)b; \
         return ({t})(r > {tmax} ? {tmax} : r < {tmin} ? {tmin} : r); }}\n\
         {u} nu_saturating_mul_{u}({u} a, {u} b) {{ ulong r = (ulong)a * (ulong)b; \
         return ({u})(r > {umax} ? {umax} : r); }}\n"
    )
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
        assert_eq!(
            op("to:int", "float", &["x".into()]),
            "convert_int_sat_rtz(x)"
        );
        assert_eq!(op("to:char", "int", &["x".into()]), "as_char((uchar)(x))");
        assert_eq!(op("to:uint", "long", &["x".into()]), "((uint)(x))");
    }
}
