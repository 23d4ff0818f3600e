//! `nfor!` on the host: every range form, with exactly Rust's iteration semantics.

use nuda::nfor;

#[test]
fn single_and_tuple_forms() {
    let mut seen = Vec::new();
    nfor!(i in 4 { seen.push(i); });
    assert_eq!(seen, vec![0, 1, 2, 3]);
    let mut pairs = Vec::new();
    nfor!((i, j) in (2, 3) { pairs.push((i, j)); });
    assert_eq!(pairs, vec![(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]);
}

#[test]
fn nuda_inclusive_ranges_and_steps() {
    let n = 10;
    let mut v = Vec::new();
    nfor!((i, j) in (1 <> n - 2 :/ 3, 0..2) { v.push((i, j)); });
    assert_eq!(v, vec![(1, 0), (1, 1), (4, 0), (4, 1), (7, 0), (7, 1)]);
    let mut w = Vec::new();
    nfor!(i in 5 :/ 2 { w.push(i); });
    assert_eq!(w, vec![0, 2, 4]);
}

#[test]
fn rust_range_forms() {
    let n = 9i32;
    let mut v = Vec::new();
    nfor!((i, j) in (1..=n - 7, (0..n).step_by(4)) { v.push((i, j)); });
    assert_eq!(v, vec![(1, 0), (1, 4), (1, 8), (2, 0), (2, 4), (2, 8)]);
}

#[test]
fn loop_variables_take_the_type_of_their_bounds() {
    let n: u8 = 255;
    let mut last = 0u8;
    let mut count = 0;
    nfor!(i in 250 <> n { last = i; count += 1; });
    assert_eq!(
        (last, count),
        (255, 6),
        "no overflow at the end of the type"
    );
    let mut s = 0i64;
    nfor!(i in -3i64..3 { s += i; });
    assert_eq!(s, -3);
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn empty_ranges_run_nothing_and_bodies_may_use_any_rust() {
    let mut hits = 0;
    nfor!((i, j) in (5..5, 3) { hits += i + j; });
    nfor!(i in 7..2 { hits += i; });
    assert_eq!(hits, 0);
    let mut text = String::new();
    nfor!(i in 3 { text.push_str(&format!("{i};")); });
    assert_eq!(text, "0;1;2;");
}
