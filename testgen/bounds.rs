//! Random kernels whose indices may leave their arrays: a nest of 1 to 3 loops reads `a` and
//! writes `out` at indices made of the loop variables with random offsets, scales and
//! subtractions (which wrap, as `usize` does). Each kernel is written twice: inside
//! `nuwork!`, and as a plain Rust reference that applies nuda's rule (an out-of-range read
//! gives 0, an out-of-range write is skipped) and lists every fault.

use super::rng::Rng;
use std::fmt::Write;

const VARS: [&str; 3] = ["i", "j", "k"];

/// One index component: kernel text and its plain Rust twin.
fn component(r: &mut Rng, v: &str) -> (String, String) {
    let c = r.pick(4);
    match r.pick(6) {
        0 => (format!("{v} + {c}"), format!("{v}.wrapping_add({c})")),
        1 => (format!("{v} - {c}"), format!("{v}.wrapping_sub({c})")),
        2 => (
            format!("{v} * 2 + {c}"),
            format!("{v}.wrapping_mul(2).wrapping_add({c})"),
        ),
        3 => (format!("{c}usize"), format!("{c}usize")),
        4 => (
            format!("({v} + {c}) % 5"),
            format!("{v}.wrapping_add({c}) % 5"),
        ),
        _ => (v.to_string(), v.to_string()),
    }
}

/// A write component: one-to-one in the loop variable, so no two iterations write one cell.
fn write_component(r: &mut Rng, v: &str) -> (String, String) {
    let c = r.pick(3);
    match r.pick(3) {
        0 => (format!("{v} + {c}"), format!("{v}.wrapping_add({c})")),
        1 => (
            format!("{v} * 2 + {c}"),
            format!("{v}.wrapping_mul(2).wrapping_add({c})"),
        ),
        _ => (format!("{v} - {c}"), format!("{v}.wrapping_sub({c})")),
    }
}

fn index(parts: &[(String, String)], host: bool) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .map(|(k, h)| if host { h.as_str() } else { k.as_str() })
        .collect();
    match texts.as_slice() {
        [one] => one.to_string(),
        many => format!("({})", many.join(", ")),
    }
}

/// The dims of an `Arr` as the tuple a `NuArray` of `rank` takes.
fn dims(name: &str, rank: usize) -> String {
    let d: Vec<String> = (0..rank).map(|k| format!("{name}.dims[{k}]")).collect();
    match rank {
        1 => d[0].clone(),
        _ => format!("({})", d.join(", ")),
    }
}

fn case(out: &mut String, k: usize, r: &mut Rng) -> String {
    let rank = 1 + r.pick(3);
    let mapped = 1 + r.pick(rank);
    let vars = &VARS[..rank];
    let read: Vec<_> = vars.iter().map(|v| component(r, v)).collect();
    let write: Vec<_> = vars.iter().map(|v| write_component(r, v)).collect();
    let ranges: Vec<String> = (0..rank).map(|d| format!("n{d}")).collect();
    let sizes = vec!["4"; mapped].join(", ");
    let (head, tuple) = match rank {
        1 => ("i".to_string(), ranges[0].clone()),
        _ => (
            format!("({})", vars.join(", ")),
            format!("({})", ranges.join(", ")),
        ),
    };
    let salt: Vec<String> = vars
        .iter()
        .enumerate()
        .map(|(d, v)| format!("{v} * {}", 7 + d))
        .collect();
    let salt = salt.join(" + ");
    let (kr, kw) = (index(&read, false), index(&write, false));
    let (hr, hw) = (index(&read, true), index(&write, true));
    let body = format!("let v = a[{kr}]; out[{kw}] = v + ({salt}) as i32;");
    let _ = writeln!(
        out,
        "fn device_{k}(p: &P, a0: &Arr, out0: &Arr) -> (nuda::Result<()>, Vec<i32>) {{"
    );
    let _ = writeln!(
        out,
        "    let a = NuArray{rank}::<i32>::from_vec({}, a0.data.clone()).unwrap();",
        dims("a0", rank)
    );
    let _ = writeln!(
        out,
        "    let mut out = NuArray{rank}::<i32>::from_vec({}, out0.data.clone()).unwrap();",
        dims("out0", rank)
    );
    let _ = writeln!(out, "    let (n0, n1, n2) = (p.n[0], p.n[1], p.n[2]);");
    let _ = writeln!(out, "    let _ = (n0, n1, n2, a0.rank);");
    let _ = writeln!(
        out,
        "    let r = nuwork!({sizes}; nfor!({head} in {tuple} {{ {body} }}));"
    );
    let _ = writeln!(out, "    (r, out.to_vec())");
    let _ = writeln!(out, "}}");
    let _ = writeln!(
        out,
        "fn host_{k}(p: &P, a: &Arr, out: &mut Arr, faults: &mut Vec<Fault>) {{"
    );
    let _ = writeln!(out, "    let (n0, n1, n2) = (p.n[0], p.n[1], p.n[2]);");
    let _ = writeln!(out, "    let _ = (n0, n1, n2, a.rank);");
    let loops: String = vars
        .iter()
        .zip(&ranges)
        .map(|(v, n)| format!("for {v} in 0..{n} {{ "))
        .collect();
    let _ = writeln!(
        out,
        "    {loops}let v = a.get(&{}, \"a\", faults); out.set(&{}, v.wrapping_add(({salt}) as i32), \"out\", faults); {}",
        as_list(&hr),
        as_list(&hw),
        "}".repeat(rank)
    );
    let _ = writeln!(out, "}}");
    let text = format!("nuwork!({sizes}; nfor!({head} in {tuple} {{ {body} }}))");
    format!("Case {{ text: {text:?}, rank: {rank}, device: device_{k}, host: host_{k} }}")
}

/// A host index as an array of `usize`.
fn as_list(index: &str) -> String {
    let inner = index
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .filter(|s| s.contains(", "));
    format!("[{}]", inner.unwrap_or(index))
}

/// The file `tests/random_bounds.rs` includes: the kernels, their references, and `CASES`.
pub fn file(seed: u64) -> String {
    let mut r = Rng(seed);
    let mut out = String::from("// Generated by testgen/bounds.rs; see tests/random_bounds.rs.\n");
    let cases: Vec<String> = (0..18).map(|k| case(&mut out, k, &mut r)).collect();
    let _ = writeln!(
        out,
        "const CASES: &[Case] = &[\n    {},\n];",
        cases.join(",\n    ")
    );
    out
}
