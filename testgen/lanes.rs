//! Random `vector(w)` nests, written as Rust source: 1 or 2 `usize` loops with random bounds
//! (inclusive or not, empty ones included), a float body with contiguous loads, gathers,
//! broadcast scalars, a per-lane accumulator over an inner loop and an update store, under a
//! random chain of 0 to 3 annotations that keep the innermost loop unit-stride, then
//! `vector(w)`. Each nest is written twice: as host `annot!` loops and inside `nuwork!`.

use super::rng::Rng;
use std::fmt::Write;

/// An annotation that leaves the innermost loop of its main part stepping by one.
fn prefix(r: &mut Rng, dims: usize) -> Option<String> {
    let k = 1 + r.pick(dims);
    let sizes = |r: &mut Rng| {
        (0..k)
            .map(|_| (1 + r.pick(5)).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(match r.pick(5) {
        0 => format!("tile({})", sizes(r)),
        1 => format!("tilem({})", sizes(r)),
        2 => format!("peel({}, {})", r.pick(3), r.pick(3)),
        // Unroll-and-jam of the outer loop only: the inner one's factor is 1.
        3 if dims == 2 => format!("dmine({}, 1)", 1 + r.pick(4)),
        4 if dims == 2 => "permut(2, 1)".to_string(),
        _ => return None,
    })
}

fn chain(r: &mut Rng, dims: usize) -> String {
    let mut parts: Vec<String> = (0..r.pick(4)).filter_map(|_| prefix(r, dims)).collect();
    // A `permut` after a `dmine` would make the stepped loop the innermost: drop it.
    let mut jammed = false;
    parts.retain(|p| {
        jammed |= p.starts_with("dmine") && !p.starts_with("dmine(1,");
        !(jammed && p.starts_with("permut"))
    });
    parts.push(format!("vector({})", [2, 4, 8][r.pick(3)]));
    parts.join(", ")
}

fn range(r: &mut Rng, d: usize) -> (String, bool) {
    match r.pick(2) {
        0 => (format!("a{d}..e{d}"), false),
        _ => (format!("a{d}..=e{d}"), true),
    }
}

fn body(dims: usize) -> String {
    let at = if dims == 2 { "(i, j)" } else { "(0, i)" };
    let col = if dims == 2 { "j" } else { "i" };
    format!(
        "let mut s = 0.0f32; \
         for q in 0..3 {{ s += x[{at}] * w[q]; }} \
         let t = -s + y[{col}] * c; \
         out[{at}] += t.max(0.5) - z[({col}, 0)];"
    )
}

/// The generated test source.
pub fn file(seed: u64) -> String {
    let mut r = Rng(seed);
    let mut out =
        format!("/// The seed these nests were drawn from.\nconst LANES_SEED: u64 = {seed};\n");
    let mut table = String::from("const LANE_NESTS: &[Case] = &[\n");
    for k in 0..12 {
        let dims = 1 + r.pick(2);
        let (mut ranges, incl): (Vec<String>, Vec<bool>) = (0..2).map(|d| range(&mut r, d)).unzip();
        ranges.truncate(dims);
        let vars = ["i", "j"][..dims].join(", ");
        let nest = format!(
            "nfor!(({vars}) in ({}) {{ {} }})",
            ranges.join(", "),
            body(dims)
        );
        let chain = chain(&mut r, dims);
        let _ = write!(
            out,
            "
#[allow(unused_variables, unused_parens, clippy::all)]
fn host_{k}(p: P, a: &Arrays, out: &mut NuArray2<f32>) {{
    let P {{ a0, a1, e0, e1, c }} = p;
    let Arrays {{ x, y, z, w }} = a;
    annot!({chain}; {nest});
}}
#[allow(unused_variables, unused_parens, clippy::all)]
fn device_{k}(p: P, a: &Arrays, out: &mut NuArray2<f32>) -> nuda::Result<()> {{
    let P {{ a0, a1, e0, e1, c }} = p;
    let Arrays {{ x, y, z, w }} = a;
    let w = *w;
    nuwork!(2; annot!({chain}; {nest}))
}}
"
        );
        let _ = writeln!(
            table,
            "    Case {{ text: {:?}, dims: {dims}, incl: {incl:?}, host: host_{k}, device: device_{k} }},",
            format!("annot!({chain}; nfor!(({vars}) in ({})))", ranges.join(", "))
        );
    }
    table.push_str("];\n");
    out + &table + &staged(&mut r)
}

/// Random `stage(..)` nests: 1 or 2 tiled loops (tile 2 to 8 each; some with a `dmine(2)` after
/// the stage, some with a `vector(w)` last), a staged loop over `q`
/// of random depth reading `x` at the loop variables plus random offsets (a halo) and `z` at
/// a uniform position, under `nuwork!` with the tiles as work-group sizes.
fn staged(r: &mut Rng) -> String {
    let mut out = String::new();
    let mut table = String::from("const STAGE_NESTS: &[Staged] = &[\n");
    for k in 0..10 {
        let dims = 1 + r.pick(2);
        let tiles: Vec<usize> = (0..dims).map(|_| 2 + r.pick(7)).collect();
        let depth = 1 + r.pick(8);
        let (o0, o1) = (r.pick(3), r.pick(3));
        let list = |v: &[usize]| {
            v.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (vars, ranges, at) = match dims {
            2 => ("i, j", "a0..e0, a1..e1", format!("(q + {o0}, j + {o1})")),
            _ => ("i", "a0..e0", format!("(q + {o0}, i + {o1})")),
        };
        // Half the nests give each work-item a block of 2 along the first loop (`dmine`),
        // where the tile is even: the group is then the tile over the factor.
        let block = if tiles[0].is_multiple_of(2) && r.pick(2) == 0 {
            2
        } else {
            1
        };
        let dmine = if block > 1 { ", dmine(2)" } else { "" };
        // Half of the rest run the last tiled loop in lanes (`vector`), where a width divides
        // its tile and no dmine steps it: the staged reads are then vector reads of the copy.
        let last = dims - 1;
        let widths: Vec<usize> = [2, 4, 8]
            .into_iter()
            .filter(|w| tiles[last].is_multiple_of(*w) && (last > 0 || block == 1))
            .collect();
        let width = match widths.len() {
            0 => 1,
            n if r.pick(2) == 0 => widths[r.pick(n)],
            _ => 1,
        };
        let vector = if width > 1 {
            format!(", vector({width})")
        } else {
            String::new()
        };
        let chain = format!(
            "tilem({}), stage(x, z, q: {depth}){dmine}{vector}",
            list(&tiles)
        );
        let mut group = tiles.clone();
        group[0] /= block;
        group[last] /= width;
        let body = format!(
            "let mut s = 0.0f32; \
             for q in a1..e1 {{ s += x[{at}] * c - z[(q, 0)]; }} \
             out[{}] += s;",
            if dims == 2 { "(i, j)" } else { "(0, i)" }
        );
        let nest = format!("nfor!(({vars}) in ({ranges}) {{ {body} }})");
        let _ = write!(
            out,
            "
#[allow(unused_variables, unused_parens, clippy::all)]
fn staged_host_{k}(p: P, a: &Arrays, out: &mut NuArray2<f32>) {{
    let P {{ a0, a1, e0, e1, c }} = p;
    let Arrays {{ x, y, z, w }} = a;
    annot!({chain}; {nest});
}}
#[allow(unused_variables, unused_parens, clippy::all)]
fn staged_device_{k}(p: P, a: &Arrays, out: &mut NuArray2<f32>) -> nuda::Result<()> {{
    let P {{ a0, a1, e0, e1, c }} = p;
    let Arrays {{ x, y, z, w }} = a;
    nuwork!({}; annot!({chain}; {nest}))
}}
",
            list(&group)
        );
        let _ = writeln!(
            table,
            "    Staged {{ text: {:?}, dims: {dims}, offsets: ({o0}, {o1}), host: staged_host_{k}, device: staged_device_{k} }},",
            format!("annot!({chain}; nfor!(({vars}) in ({ranges})))")
        );
    }
    table.push_str("];\n");
    out + &table
}
