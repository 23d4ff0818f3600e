//! Random annotated loop nests, written as Rust source: 1 to 3 loops with random range forms
//! (inclusive or not, stepped or not), bounds and steps read from captured values, and a
//! random chain of 1 to 4 annotations. Each nest is written twice: as host `annot!` loops and
//! inside `nuwork!`.

use super::rng::Rng;
use std::fmt::Write;

const VARS: [&str; 3] = ["i", "j", "k"];

fn list(r: &mut Rng, k: usize, lo: usize, hi: usize) -> String {
    (0..k)
        .map(|_| (lo + r.pick(hi - lo + 1)).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A chain the nest's shape allows: each annotation has at most as many parameters as its
/// main part has loops.
fn chain(r: &mut Rng, dims: usize) -> String {
    let mut main = dims;
    let mut parts = Vec::new();
    let mut copies = 1;
    for _ in 0..1 + r.pick(4) {
        let k = 1 + r.pick(main);
        let a = match r.pick(6) {
            0 => format!("tile({})", list(r, k, 1, 5)),
            1 => format!("tilem({})", list(r, k, 1, 5)),
            // Copies multiply along a chain; 32 keeps the test's compile time short.
            2 | 3 if copies * 4usize.pow(k as u32) > 32 => format!(
                "permut({})",
                (1..=k)
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            2 => {
                main = k;
                copies *= 4usize.pow(k as u32);
                format!("unroll({})", list(r, k, 1, 4))
            }
            3 => {
                copies *= 4usize.pow(k as u32);
                format!("dmine({})", list(r, k, 1, 4))
            }
            4 => format!("peel({}, {})", r.pick(3), r.pick(3)),
            _ => {
                let mut order: Vec<usize> = (1..=k).collect();
                for i in (1..k).rev() {
                    order.swap(i, r.pick(i + 1));
                }
                format!(
                    "permut({})",
                    order
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        };
        parts.push(a);
    }
    parts.join(", ")
}

fn range(r: &mut Rng, d: usize, incl: bool, stepped: bool) -> String {
    let (a, e, s) = (format!("a{d}"), format!("e{d}"), format!("s{d}"));
    match (incl, stepped, r.pick(2)) {
        (false, false, _) => format!("{a}..{e}"),
        (true, false, 0) => format!("{a}..={e}"),
        (true, false, _) => format!("{a} <> {e}"),
        (false, true, 0) => format!("({a}..{e}).step_by({s})"),
        (false, true, _) => format!("{a}..{e} :/ {s}"),
        (true, true, _) => format!("{a} <> {e} :/ {s}"),
    }
}

fn body(dims: usize, stepped: &[bool]) -> String {
    let mut b = String::new();
    for d in 0..dims {
        let v = VARS[d];
        let step = if stepped[d] {
            format!(" / s{d}")
        } else {
            String::new()
        };
        let _ = write!(b, "let t{d} = ((({v} - a{d})){step}) as usize; ");
    }
    let idx: Vec<String> = (0..dims)
        .map(|d| {
            format!(
                "t{d}{}",
                (d + 1..dims)
                    .map(|e| format!(" * n{e}"))
                    .collect::<String>()
            )
        })
        .collect();
    let val: Vec<String> = (0..dims)
        .map(|d| format!("{} as i64 * {}", VARS[d], [31, 7, 1][d]))
        .collect();
    let _ = write!(
        b,
        "let idx = {}; hits[idx] += 1; vals[idx] = {};",
        idx.join(" + "),
        val.join(" + ")
    );
    b
}

/// The generated test source. Each iteration's `idx` is its own (its trip numbers, through a
/// division by the step), which no affine dependence test can prove: the device nests say
/// so with `#[independent]`.
pub fn file(seed: u64) -> String {
    let mut r = Rng(seed);
    let mut out =
        format!("/// The seed these nests were drawn from.\nconst NEST_SEED: u64 = {seed};\n");
    let mut table = String::from("const NESTS: &[Case] = &[\n");
    for k in 0..40 {
        let dims = 1 + r.pick(3);
        let incl: Vec<bool> = (0..3).map(|_| r.pick(2) == 0).collect();
        let stepped: Vec<bool> = (0..3).map(|_| r.pick(2) == 0).collect();
        let ranges: Vec<String> = (0..dims)
            .map(|d| range(&mut r, d, incl[d], stepped[d]))
            .collect();
        let vars = VARS[..dims].join(", ");
        let nest = format!(
            "nfor!(({vars}) in ({}) {{ {} }})",
            ranges.join(", "),
            body(dims, &stepped)
        );
        let chain = chain(&mut r, dims);
        let _ = write!(
            out,
            "
#[allow(unused_variables, unused_parens, clippy::all)]
fn host_{k}(p: P, hits: &mut NuArray1<u32>, vals: &mut NuArray1<i64>) {{
    let P {{ a0, a1, a2, e0, e1, e2, s0, s1, s2, n0, n1, n2 }} = p;
    annot!({chain}; {nest});
}}
#[allow(unused_variables, unused_parens, clippy::all)]
fn device_{k}(p: P, hits: &mut NuArray1<u32>, vals: &mut NuArray1<i64>) -> nuda::Result<()> {{
    let P {{ a0, a1, a2, e0, e1, e2, s0, s1, s2, n0, n1, n2 }} = p;
    nuwork!(#[independent] 1; annot!({chain}; {nest}))
}}
"
        );
        let _ = writeln!(
            table,
            "    Case {{ text: {:?}, dims: {dims}, incl: {incl:?}, stepped: {stepped:?}, host: host_{k}, device: device_{k} }},",
            format!("annot!({chain}; nfor!(({vars}) in ({})))", ranges.join(", "))
        );
    }
    table.push_str("];\n");
    out + &table
}
