//! The prelude's helper functions (layer 1, `backend/c`, shared by the source-form backends):
//! Rust's integer and float semantics where OpenCL C has no builtin of the same meaning, one C
//! function per type.
//! Each is one definition of its own, so that `prelude` can keep only those a program uses.

use super::dialect::Dialect;
use super::spell::ints;

/// The prelude's loop counts, computed in the unsigned twin so no difference overflows:
/// `nu_last_T(a, b, step, inclusive, check, site, record)` is the index of the last value
/// from `a` to `b` (counting up by a positive step, down by a negative one) and
/// `nu_some_T(a, b, step, inclusive)` whether there is any, so a loop over all 2^64 values
/// of a `u64` runs; `nu_trips_T(..)` is the count, for the annotations, which faults where it
/// does not fit. A zero step records a fault and gives no iteration.
pub fn trips_helpers() -> String {
    let mut s = String::new();
    for (t, u) in ints()
        .filter(|i| !i.name.starts_with("nu_"))
        .map(|i| (i.name, i.unsigned))
    {
        s += &format!(
            "nu_idx nu_last_{t}({t} a, {t} b, {t} s, int incl, int c, uint site, global uint* e) {{ \
             if (s == 0) {{ if (c) nu_fault(e, site, 0u, 0, 0, 0, 0, 0, 0); return 0; }} \
             {t} lo = s > 0 ? a : b, hi = s > 0 ? b : a; \
             if (hi < lo || (!incl && hi == lo)) return 0; \
             {u} st = s > 0 ? ({u})s : ({u})(({u})0 - ({u})s); \
             {u} d = ({u})(({u})hi - ({u})lo); \
             return incl ? (nu_idx)(d / st) : (nu_idx)(({u})(d - 1) / st); }}\n\
             int nu_some_{t}({t} a, {t} b, {t} s, int incl) {{ \
             {t} lo = s > 0 ? a : b, hi = s > 0 ? b : a; \
             return s != 0 && (hi > lo || (incl && hi == lo)); }}\n\
             nu_idx nu_trips_{t}({t} a, {t} b, {t} s, int incl, int c, uint site, global uint* e) {{ \
             nu_idx last = nu_last_{t}(a, b, s, incl, c, site, e); \
             if (!nu_some_{t}(a, b, s, incl)) return 0; \
             if (last == (nu_idx)~(nu_idx)0) {{ if (c) nu_fault(e, site, 1u, 0, 0, 0, 0, 0, 0); return 0; }} \
             return last + 1; }}\n"
        );
    }
    s
}

/// The prelude's float-to-integer casts, `nu_sat_T_F(x)`: OpenCL's saturating conversion,
/// and 0 for NaN as Rust gives. OpenCL C says a saturated NaN "should" become 0, and not
/// every compiler does: Intel's CPU runtime (2026.2) gives `u32::MAX` for NaN in its AVX-512
/// code.
pub fn float_cast_helpers() -> String {
    let mut s = String::new();
    for f in ["float", "double"] {
        for t in ints()
            .filter(|i| !i.name.starts_with("nu_"))
            .map(|i| i.name)
        {
            s += &format!(
                "{t} nu_sat_{t}_{f}({f} x) {{ return isnan(x) ? ({t})0 : convert_{t}_sat_rtz(x); }}\n"
            );
        }
    }
    s
}

/// The prelude's integer division and remainder: `nu_div_T(a, b, check, site, record)`.
/// With `check` set, a zero divisor (or `MIN / -1`) records a fault and gives 0; with it
/// clear (the divisor was proved safe at launch) it is a plain `/`.
pub fn division_helpers() -> String {
    let mut s = String::new();
    let mut div = |t: &str, bad: &str| {
        for (name, op) in [("div", "/"), ("rem", "%")] {
            s += &format!(
                "{t} nu_{name}_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ \
                 if (c && ({bad})) {{ nu_fault(e, s, b != 0, 0, 0, 0, 0, 0, 0); return 0; }} \
                 return a {op} b; }}\n"
            );
        }
    };
    // The fixed-width integers of the scalar table (`nu_idx` and `nu_sidx` are typedefs of
    // two of them, so they share their helpers).
    let fixed = || ints().filter(|i| !i.name.starts_with("nu_"));
    for i in fixed() {
        match i.signed {
            true => div(
                i.name,
                &format!("b == 0 || (a == {} && b == -1)", limits(i.name).0),
            ),
            false => div(i.name, "b == 0"),
        }
    }
    for t in fixed().filter(|i| !i.signed).map(|i| i.name) {
        // Rust's rem_euclid of unsigned values is the remainder; nothing saturates.
        s += &format!("{t} nu_rem_euclid_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ return nu_rem_{t}(a, b, c, s, e); }}\n");
        s += &format!("{t} nu_saturating_div_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ return nu_div_{t}(a, b, c, s, e); }}\n");
        s += &format!("{t} nu_div_euclid_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ return nu_div_{t}(a, b, c, s, e); }}\n");
    }
    // A negative remainder moves up by |b|, in the unsigned twin (|MIN| wraps, as in Rust).
    for (t, u) in fixed().filter(|i| i.signed).map(|i| (i.name, i.unsigned)) {
        s += &format!(
            "{t} nu_rem_euclid_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ {t} r = nu_rem_{t}(a, b, c, s, e); \
             return r < 0 ? as_{t}(({u})(({u})r + (b < 0 ? ({u})0 - ({u})b : ({u})b))) : r; }}\n"
        );
        // Euclid's quotient: one less (more, for a negative divisor) where the remainder is
        // negative; a zero divisor and `MIN / -1` fault as `/` does.
        let (min, max, _) = limits(t);
        s += &format!(
            "{t} nu_div_euclid_{t}({t} a, {t} b, int c, uint s, global uint* e) {{ \
             if (b == 0 || (a == {min} && b == -1)) return nu_div_{t}(a, b, c, s, e); \
             {t} q = a / b; return a % b < 0 ? (b > 0 ? q - 1 : q + 1) : q; }}\n"
        );
        // `MIN / -1` is `MAX`, as Rust's `saturating_div`; a zero divisor still faults.
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
pub fn method_helpers(d: &dyn Dialect) -> String {
    let mut s = String::from(
        "float nu_signum_float(float x) { return isnan(x) ? x : copysign(1.0f, x); }\n",
    );
    // Rust's rem_euclid of floats: a negative remainder moves up by |b|.
    s += "float nu_rem_euclid_float(float a, float b) { float r = fmod(a, b); return r < 0 ? r + fabs(b) : r; }\n";
    s += "double nu_signum_double(double x) { return isnan(x) ? x : copysign(1.0, x); }\n";
    s += "double nu_rem_euclid_double(double a, double b) { double r = fmod(a, b); return r < 0 ? r + fabs(b) : r; }\n";
    // Rust's div_euclid of floats: the truncated quotient, one less (more, for a negative
    // divisor) where the remainder is negative.
    for t in ["float", "double"] {
        s += &format!("{t} nu_div_euclid_{t}({t} a, {t} b) {{ {t} q = trunc(a / b); return fmod(a, b) < 0 ? (b > 0 ? q - 1 : q + 1) : q; }}\n");
    }
    s += &powi("float");
    s += &powi("double");
    let types = [
        "float", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "double",
    ];
    for t in types {
        // Rust's: `min <= max` or a fault (a panic in Rust); a NaN `x` stays NaN.
        s += &format!(
            "{t} nu_clamp_{t}({t} x, {t} lo, {t} hi, int c, uint s, global uint* e) {{ \
             if (c && !(lo <= hi)) {{ nu_fault(e, s, 0u, 0, 0, 0, 0, 0, 0); return x; }} \
             return x < lo ? lo : x > hi ? hi : x; }}\n"
        );
    }
    let ints = [
        ("char", "uchar", 1),
        ("short", "ushort", 2),
        ("int", "uint", 4),
        ("long", "ulong", 8),
    ];
    for (t, u, bytes) in ints {
        // A byte swap is the dialect's: OpenCL C reads a vector's lanes in reverse.
        let (swap, uswap) = match bytes {
            1 => ("x".to_string(), "x".to_string()),
            _ => (d.bswap(t, bytes), d.bswap(u, bytes)),
        };
        s += &format!("{t} nu_signum_{t}({t} x) {{ return ({t})((x > 0) - (x < 0)); }}\n");
        s += &abs(t, u);
        s += &format!("{u} nu_signum_{u}({u} x) {{ return ({u})(x != 0); }}\n");
        for (ty, sw) in [(t, swap.clone()), (u, uswap)] {
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

/// `nu_powi_<t>(x, n)`: Rust's `powi`, as LLVM computes it (`__powisf2` and the expansion
/// of a constant exponent alike): the result multiplies the powers of two of `|n|`'s set
/// bits, lowest first, then a negative `n` takes the reciprocal. OpenCL's `pown` may round
/// differently (0.1f32 squared was one ulp off on PoCL).
fn powi(t: &str) -> String {
    format!(
        "{t} nu_powi_{t}({t} x, int n) {{ uint m = n < 0 ? 0u - (uint)n : (uint)n; {t} r = 1, b = x; \
         int first = 1; while (m) {{ if (m & 1u) {{ r = first ? b : r * b; first = 0; }} m >>= 1; \
         if (m) b = b * b; }} return n < 0 ? 1 / r : r; }}\n"
    )
}

/// `nu_abs_<t>(x)` and `nu_unsigned_abs_<t>(x)` of a signed type `t`: `|x|` computed in the
/// unsigned twin `u`, where nothing overflows, so no C or LLVM rule can assume the result
/// non-negative (`abs(INT_MIN)` is undefined in C, and PoCL folded `abs(x) < 0` to false).
/// `abs` and `wrapping_abs` reinterpret it (`MIN.abs()` is `MIN`), `unsigned_abs` keeps it.
fn abs(t: &str, u: &str) -> String {
    let body = format!("x < 0 ? ({u})0 - ({u})x : ({u})x");
    format!(
        "{t} nu_abs_{t}({t} x) {{ return as_{t}(({u})({body})); }}\n\
         {u} nu_unsigned_abs_{t}({t} x) {{ return ({u})({body}); }}\n"
    )
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

/// `nu_vclamp_<floatN>(x, lo, hi, c, s, e)`: Rust's `clamp` on every lane of a `vector(w)`
/// value with shared bounds: bounds out of order (or NaN) fault once, as `nu_clamp_T`, and a
/// NaN lane stays NaN (no comparison holds for it). Lane by lane through the components
/// (`.s0` .. `.sf`), which both dialects have.
pub fn vector_clamp_helpers() -> String {
    let mut s = String::new();
    for t in ["float", "double"] {
        for w in [2usize, 4, 8, 16] {
            let lanes: String = (0..w)
                .map(|l| format!(" r.s{l:x} = x.s{l:x} < lo ? lo : x.s{l:x} > hi ? hi : x.s{l:x};"))
                .collect();
            s += &format!(
                "{t}{w} nu_vclamp_{t}{w}({t}{w} x, {t} lo, {t} hi, int c, uint s, global uint* e) {{ \
                 if (c && !(lo <= hi)) {{ nu_fault(e, s, 0u, 0, 0, 0, 0, 0, 0); return x; }} \
                 {t}{w} r;{lanes} return r; }}\n"
            );
        }
    }
    s
}
