//! Random arithmetic expressions over i32, u32 and f32 values, written as Rust source: a host
//! function and a `nuwork!` kernel per expression, and a table of both.

use super::rng::Rng;
use std::fmt::Write;

/// A method receiver, cast to the expression's type: a receiver whose type hangs on a
/// literal (`(3 >> a).min(b)`) is ambiguous to rustc, as in Rust itself.
fn recv(p: String, t: &str) -> String {
    format!("(({p}) as {t})")
}

pub fn int(r: &mut Rng, t: &str, depth: u32) -> String {
    let (v1, v2, other) = if t == "i32" {
        ("a", "b", "c")
    } else {
        ("c", "d", "a")
    };
    if depth == 0 {
        return match r.pick(4) {
            0 => v1.into(),
            1 => v2.into(),
            2 => format!("{}", r.pick(100)),
            _ => format!("({other} as {t})"),
        };
    }
    let mut e = || int(r, t, depth - 1);
    let (p, q) = (e(), e());
    let (m, n) = (recv(p.clone(), t), recv(q.clone(), t));
    match r.pick(16) {
        0 => format!("{m}.wrapping_add({q})"),
        1 => format!("{m}.wrapping_sub({q})"),
        2 => format!("{m}.wrapping_mul({q})"),
        3 => format!("({p} & {q})"),
        4 => format!("({p} | {q})"),
        5 => format!("({p} ^ {q})"),
        6 => format!("({p} >> ({q} & 31))"),
        7 => format!("({p} << ({q} & 15))"),
        8 => format!("({p} / (({q} & 255) | 1))"),
        9 => format!("({p} % (({q} & 255) | 1))"),
        10 => format!("(!{p})"),
        11 => format!("{m}.min({q})"),
        12 => format!("{m}.max({q})"),
        13 => format!("{m}.rotate_left(({q} & 31) as u32)"),
        14 => format!("(({}) as {t})", float(r, depth - 1)),
        _ => format!("(if {p} < {q} {{ {p} }} else {{ {n}.wrapping_add(1) }})"),
    }
}

pub fn float(r: &mut Rng, depth: u32) -> String {
    if depth == 0 {
        return match r.pick(5) {
            0 => "x".into(),
            1 => "y".into(),
            2 => format!("{}.{}", r.pick(5), r.pick(10)),
            3 => "(a as f32)".into(),
            _ => "(c as f32)".into(),
        };
    }
    let mut e = || float(r, depth - 1);
    let (p, q) = (e(), e());
    let (m, n) = (recv(p.clone(), "f32"), recv(q.clone(), "f32"));
    match r.pick(13) {
        0 => format!("({p} + {q})"),
        1 => format!("({p} - {q})"),
        2 => format!("({p} * {q})"),
        3 => format!("({p} / ({n}.abs() + 1.0))"),
        4 => format!("{m}.abs().sqrt()"),
        5 => format!("{m}.min({q})"),
        6 => format!("{m}.max({q})"),
        7 => format!("{m}.mul_add({q}, 0.5)"),
        8 => format!("{m}.floor()"),
        9 => format!("{m}.ceil()"),
        10 => format!("(-{p})"),
        11 => format!("(if {p} < {q} {{ {p} }} else {{ {q} * 2.0 }})"),
        _ => format!("(({}) as f32)", int(r, "i32", depth - 1)),
    }
}

/// The generated test source.
pub fn file(seed: u64) -> String {
    let mut r = Rng(seed);
    let mut out =
        format!("/// The seed these expressions were drawn from.\nconst SEED: u64 = {seed};\n");
    let mut table = String::from("const EXPRESSIONS: &[Expression] = &[\n");
    for k in 0..48 {
        let (t, e) = match k % 3 {
            0 => ("i32", int(&mut r, "i32", 3)),
            1 => ("u32", int(&mut r, "u32", 3)),
            _ => ("f32", float(&mut r, 3)),
        };
        let _ = write!(out, "
#[allow(unused_parens, clippy::all)]
fn host_{k}(a: i32, b: i32, c: u32, d: u32, x: f32, y: f32) -> {t} {{ let _ = (a, b, c, d, x, y); {e} }}
#[allow(unused_parens, clippy::all)]
fn device_{k}(a: i32, b: i32, c: u32, d: u32, x: f32, y: f32) -> nuda::Result<{t}> {{
    let _ = (a, b, c, d, x, y);
    let mut out = NuArray1::<{t}>::new(1);
    nuwork!(1; nfor!(i in 1 {{ out[i] = {e}; }}))?;
    Ok(out[0])
}}
");
        let _ = writeln!(table, "    Expression {{ text: {e:?}, run: |v| compare(host_{k}(v.0, v.1, v.2, v.3, v.4, v.5), || device_{k}(v.0, v.1, v.2, v.3, v.4, v.5)) }},");
    }
    table.push_str("];\n");
    out + &table
}
