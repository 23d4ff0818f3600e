//! Which nests the dependence test refuses: a read that another iteration's write may
//! reach, unless an affine test proves the two never meet.

use super::check;
use crate::base::ctxt::Ctxt;
use crate::syntax::Lower;
use quote::quote;

/// The errors of the nest written as `nfor!(..)` or `annot!(..)`, mapped on `mapped` loops.
fn errors(nest: proc_macro2::TokenStream, mapped: usize) -> Vec<String> {
    let mac: syn::Macro = syn::parse2(nest).expect("a macro call");
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    let nest = crate::syntax::annot::lower_nest_macro(&mut lower, &mac, "nuwork!");
    check(&cx, &nest.expect("a nest"), mapped);
    match cx.check() {
        Ok(()) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn a_neighbour_read_is_refused_naming_the_write_and_the_read() {
    let e = errors(quote!(nfor!(i in 0..n - 1 { a[i] = a[i + 1]; })), 1);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("`a[i + 1]`") && e[0].contains("`a[i]`"),
        "{}",
        e[0]
    );
    assert!(e[0].contains("#[independent]"), "{}", e[0]);
    let cases = [
        quote!(nfor!(i in 1..n { a[i] = a[i - 1] * 2.0; })),
        quote!(nfor!(i in n { a[i] = a[n - 1 - i]; })),
        quote!(nfor!((i, j) in (n, n) { a[(i, j)] = a[(j, i)]; })),
        quote!(nfor!(i in n { let j = i + 1; let v = a[j]; a[i] = v; })),
        quote!(nfor!(i in n { a[i] = a[idx[i]]; })),
        quote!(nfor!(i in n { a[2 * i] = a[i]; })),
        quote!(nfor!(i in n { nfor!(k in m { a[i] += a[k]; }); })),
        quote!(nfor!(i in n { let mut k = i; k += 1; a[i] = a[k]; })),
        quote!(nfor!(i in n { a[i % 4] = a[i]; })),
    ];
    for nest in cases {
        let text = nest.to_string();
        assert!(!errors(nest, 1).is_empty(), "must be refused: {text}");
    }
}

#[test]
fn provably_separate_elements_compile() {
    let cases = [
        // The same element of each iteration.
        quote!(nfor!(i in n { a[i] = a[i] * 2.0 + b[i + 1]; })),
        quote!(nfor!(i in n { a[i] += 1.0; })),
        // Even writes, odd reads (the GCD test).
        quote!(nfor!(i in n { a[2 * i] = a[2 * i + 1]; })),
        // The second half read, the first written (bounds: Banerjee).
        quote!(nfor!(i in n { a[i] = a[i + n]; })),
        quote!(nfor!(i in 0..n { a[i + n] = 2.0 * a[i]; })),
        // Rows of their own; a serial inner loop carries its own dependence.
        quote!(nfor!(i in n { nfor!(j in 1..m { a[(i, j)] = a[(i, j - 1)] + 1.0; }); })),
        quote!(nfor!(i in n { for j in 1..m { a[(i, j)] += a[(i, j - 1)]; } })),
        // A loop the nest does not map is serial in each work-item.
        quote!(nfor!((i, j) in (n, m) { a[(i, j)] = a[(i, j - 1)]; })),
        // Gauss–Seidel over an anti-diagonal: every read is of another diagonal.
        quote!(nfor!(i in lo <> hi {
            let j = w - 2 * i;
            a[(i, j)] = (a[(i - 1, j)] + a[(i, j + 1)] + a[(i + 1, j)] + a[(i, j - 1)]
                + a[(i - 1, j - 1)] + a[(i + 1, j + 1)] + a[(i - 1, j + 1)] + a[(i + 1, j - 1)]
                + a[(i, j)]) / 9.0;
        })),
        // Stepped ranges: writes at multiples of 3, reads one past.
        quote!(nfor!(i in (0..n).step_by(3) { a[i] = a[i + 1]; })),
    ];
    for nest in cases {
        let text = nest.to_string();
        let e = errors(nest, 1);
        assert!(e.is_empty(), "must compile: {text}: {e:?}");
    }
}

#[test]
fn annotations_make_every_loop_parallel() {
    let nest = quote!(annot!(permut(2, 1); nfor!((i, j) in (n, m) { a[(i, j)] = a[(i, j - 1)]; })));
    assert_eq!(errors(nest, 1).len(), 1);
}

#[test]
fn private_arrays_belong_to_their_iteration() {
    let nest = quote!(nfor!(i in n { let mut t = [0.0f32; 64]; t[i] = 1.0; o[i] = t[0] + t[i]; }));
    assert!(errors(nest, 1).is_empty());
}

#[test]
fn equal_indices_that_are_not_one_to_one_are_refused() {
    let cases = [
        // Issue 47's reproducers: a read and a write through one index several iterations share.
        quote!(nfor!(i in n { a[i / 2] += 1; })),
        quote!(nfor!(i in n { h[idx[i]] += 1; })),
        quote!(nfor!(i in n { a[idx[i]] = a[idx[i]] + 1.0; })),
        quote!(nfor!(i in n { let j = i / 4; let t = a[j]; a[j] = t + 1; })),
        quote!(nfor!(i in n { a[i % 8] = a[i % 8] * 2; })),
    ];
    for nest in cases {
        let text = nest.to_string();
        let e = errors(nest, 1);
        assert_eq!(e.len(), 1, "must be refused once: {text}: {e:?}");
        assert!(e[0].contains("update the same element"), "{text}: {}", e[0]);
        assert!(
            e[0].contains("atomic_add") && e[0].contains("reduction variable"),
            "{}",
            e[0]
        );
    }
}

#[test]
fn two_writes_to_one_element_are_refused() {
    let e = errors(quote!(nfor!(i in n { w[i / 2] = i; })), 1);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("this write of `w[i / 2]`"), "{}", e[0]);
    let e = errors(quote!(nfor!((i, j) in (n, m) { last[i] = j; })), 2);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("`last[i]`") && e[0].contains("#[independent]"),
        "{}",
        e[0]
    );
    // With only `i` mapped, `j` runs in order inside each work-item: sequential Rust's result.
    assert!(errors(quote!(nfor!((i, j) in (n, m) { last[i] = j; })), 1).is_empty());
    // Two different writes.
    assert_eq!(
        errors(quote!(nfor!(i in n { a[i] = 1.0; a[i + 1] = 2.0; })), 1).len(),
        1
    );
    assert_eq!(errors(quote!(nfor!(i in n { a[0] = 1.0; })), 1).len(), 1);
}

#[test]
fn sums_over_a_mapped_loop_are_refused() {
    let nest = quote!(nfor!((i, j) in (n, m) { s[i] += b[(i, j)]; }));
    let e = errors(nest.clone(), 2);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("`s.atomic_add(i, ..)`"), "{}", e[0]);
    assert!(errors(nest, 1).is_empty());
}

#[test]
fn plain_accesses_beside_atomics_are_refused() {
    let e = errors(
        quote!(nfor!(i in n { b[i] = a[i]; a.atomic_add(i + 1, 1); })),
        1,
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("this read of `a[i]`") && e[0].contains("a.atomic_add(i + 1, ..)"),
        "{}",
        e[0]
    );
    let e = errors(
        quote!(nfor!(i in n { a[i / 2] = 0; a.atomic_add(i, 1); })),
        1,
    );
    assert_eq!(e.len(), 1, "{e:?}");
    // Atomics among themselves combine; an atomic and a plain access in one iteration only
    // is fine.
    assert!(errors(
        quote!(nfor!(i in n { h.atomic_add(idx[i], 1); h.atomic_max(i / 2, 3); })),
        1
    )
    .is_empty());
    assert!(errors(
        quote!(nfor!(i in n { b[i] = a[i]; a.atomic_add(i, 1); })),
        1
    )
    .is_empty());
    assert!(errors(
        quote!(nfor!((i, j) in (n, m) { a.atomic_add((i, j / 2), 1); })),
        2
    )
    .is_empty());
}

#[test]
fn images_read_and_written_are_tested_too() {
    assert_eq!(
        errors(
            quote!(nfor!((x, y) in (w, h) { o.write(x, y / 2, 1.0); })),
            2
        )
        .len(),
        1
    );
    assert!(errors(
        quote!(nfor!((x, y) in (w, h) { o.write(x, y, i.read(x + 1, y)); })),
        2
    )
    .is_empty());
}

#[test]
fn loop_invariant_terms_are_symbols() {
    // `n / 2` has one value in every iteration: the halves do not meet.
    let half = quote!(nfor!(i in 0..n / 2 { a[i] = a[i + n / 2]; }));
    assert!(errors(half, 1).is_empty());
    let captured = quote!(nfor!(i in 0..h { a[i] = a[i + h]; }));
    assert!(errors(captured, 1).is_empty());
    let local = quote!(nfor!(i in 0..n / 2 { let h = n / 2; a[i] = a[i + h]; }));
    assert!(errors(local, 1).is_empty());
    // Different invariant terms are different symbols.
    let other = quote!(nfor!(i in 0..n / 2 { a[i] = a[i + n / 3]; }));
    assert_eq!(errors(other, 1).len(), 1);
    // A term that reads memory is not loop-invariant.
    let read = quote!(nfor!(i in 0..n / 2 { a[i] = a[i + c[0] / 2]; }));
    assert_eq!(errors(read, 1).len(), 1);
}

#[test]
fn a_permutation_is_judged_on_the_loops_it_maps() {
    // PolyBench trmm: after permut(2, 1) only `j` is mapped; each column is one work-item's.
    let trmm = quote!(annot!(permut(2, 1); nfor!((i, j) in (m, n) {
        nfor!(k in i + 1..m { b[(i, j)] += a[(k, i)] * b[(k, j)]; });
        b[(i, j)] = alpha * b[(i, j)];
    })));
    assert!(errors(trmm.clone(), 1).is_empty());
    // Mapping both loops makes the rows race.
    assert_eq!(errors(trmm, 2).len(), 1);
    // Serial loops the permutation reorders count as parallel.
    let reordered = quote!(
        annot!(permut(3, 2, 1); nfor!((i, j, k) in (n, n, n) { a[(i, j, k)] = a[(i + 1, j, k)]; }))
    );
    assert_eq!(errors(reordered, 1).len(), 1);
    // Other annotations may redistribute every loop.
    let tiled = quote!(annot!(tilem(8); nfor!((i, j) in (n, n) { a[(i, j)] = a[(i, j - 1)]; })));
    assert_eq!(errors(tiled, 1).len(), 1);
}

#[test]
fn arrays_that_would_race_as_one_are_paired() {
    let pairs = |nest: proc_macro2::TokenStream| {
        let mac: syn::Macro = syn::parse2(nest).expect("a macro call");
        let cx = Ctxt::new();
        let mut lower = Lower::new(&cx);
        let nest = crate::syntax::annot::lower_nest_macro(&mut lower, &mac, "nuwork!");
        cx.check().expect("no errors");
        super::alias_pairs(&nest.expect("a nest"), 1)
    };
    let p = pairs(quote!(nfor!(i in 0..n - 1 { q[i] = p[i + 1]; })));
    assert_eq!(p, vec![("p".to_string(), "q".to_string())]);
    assert!(pairs(quote!(nfor!(i in n { q[i] = p[i] + 1.0; }))).is_empty());
    // `r` and `p` as one array: iteration `i + 1` writes what iteration `i` reads.
    let p = pairs(quote!(nfor!(i in n { q[i] = p[i + 1]; r[i] = p[i]; })));
    let want = [("p", "q"), ("p", "r")].map(|(a, b)| (a.to_string(), b.to_string()));
    assert_eq!(p, want);
}

#[test]
fn stores_at_a_counted_slot_are_each_iterations_own() {
    // The filter idiom: a scan variable read as the slot, then increased.
    let filter = quote!(nfor!(i in n { if a[i] > 0 { out[slot] = a[i]; slot += 1; } }));
    assert!(errors(filter, 1).is_empty());
    let cast = quote!(nfor!(i in n { out[k as usize] = a[i]; k += 2; }));
    assert!(errors(cast, 1).is_empty());
    // Without the increment, or with a local, or a counter also decreased, slots repeat.
    assert_eq!(
        errors(quote!(nfor!(i in n { out[slot] = a[i]; })), 1).len(),
        1
    );
    let local = quote!(nfor!(i in n { let mut s = 0; out[s] = a[i]; s += 1; }));
    assert_eq!(errors(local, 1).len(), 1);
    let down = quote!(nfor!(i in n { out[s] = a[i]; s += 1; if a[i] > 2 { s -= 1; } }));
    assert_eq!(errors(down, 1).len(), 1);
}

#[test]
fn arithmetic_inside_a_cast_is_not_followed() {
    // `h` may be a float (or a narrow integer that wraps): `(h + h) as usize` is one term, so
    // the GCD test cannot "prove" 2i + 2h and 2i + 3 apart.
    let float = quote!(nfor!(i in 0..n { a[2 * i + (h + h) as usize] = a[2 * i + 3]; }));
    assert_eq!(errors(float, 1).len(), 1);
    // Arithmetic of loop variables wraps in a narrow type: in `u32`, `i + 4294967295` is
    // `i - 1`; in `u8`, `i * 2` meets itself at `i + 128`, and `i + 10` is 5 at 251.
    let wraps = [
        quote!(nfor!(i in 1u32..100u32 { a[i as usize] = a[(i + 4294967295u32) as usize] + 1.0; })),
        quote!(nfor!(i in 0u8..255u8 { a[(i * 2) as usize] = i as f32; })),
        quote!(nfor!(i in 0u8..=255u8 { a[(i + 10) as usize] = a[5]; })),
        quote!(nfor!(i in n { let k = i * 2; a[k as usize] = a[k as usize] * 2.0; })),
    ];
    for w in wraps {
        let e = errors(w.clone(), 1);
        assert!(!e.is_empty(), "{w}");
        assert!(
            e[0].contains("cast first") || w.to_string().contains("let k"),
            "{}",
            e[0]
        );
    }
    // One shifted loop variable wraps alike in two iterations: beside the same index as
    // written, two iterations meet only where they would without wrapping.
    let same = [
        quote!(nfor!(i in 0..n { a[(i + 1) as usize] = a[(i + 1) as usize] * 2.0; })),
        quote!(nfor!(i in -5i32..7 { out[(i + 5) as usize] = i * i - 3; })),
        quote!(nfor!(i in 0u8..=255u8 { let k = 255 - i; a[k as usize] += 1.0; })),
    ];
    for q in same {
        let e = errors(q.clone(), 1);
        assert!(e.is_empty(), "{q}: {e:?}");
    }
    // A bare loop variable and a bare captured name keep their values, and arithmetic after
    // the cast is `usize`'s: these are followed.
    assert!(errors(
        quote!(nfor!(i in 0..n { a[i as usize + 1] = a[i as usize + 1] * 2.0; })),
        1
    )
    .is_empty());
    assert!(errors(
        quote!(nfor!(i in 0..n { a[2 * i] = a[2 * i + 1 + 2 * k as usize]; })),
        1
    )
    .is_empty());
    assert!(errors(
        quote!(nfor!(i in 0u8..200u8 { a[i as usize * 2] = a[i as usize * 2 + 1]; })),
        1
    )
    .is_empty());
}

#[test]
fn slots_through_a_narrowing_cast_are_not_each_iterations_own() {
    let narrow = quote!(nfor!(i in n { out[(s as u8) as usize] = x[i]; s += 1; }));
    assert_eq!(errors(narrow, 1).len(), 1);
}

#[test]
fn inner_nests_whose_annotations_reorder_them_are_checked() {
    let vector = quote!(
        nfor!(i in n { annot!(vector(4); nfor!(k in 1..m { a[(i, k)] = a[(i, k - 1)] + 1.0; })); })
    );
    let e = errors(vector, 1);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("annot!: the annotations of this inner nest"),
        "{}",
        e[0]
    );
    // `inline`, and `unroll` or `tile` on one loop, run the copies in order: a serial
    // recurrence, or updates of one element, stay fine.
    let inline = quote!(
        nfor!(i in n { annot!(inline; nfor!(k in 1..8 { a[(i, k)] = a[(i, k - 1)] + 1.0; })); })
    );
    assert!(errors(inline, 1).is_empty());
    let unroll =
        quote!(nfor!(i in n { annot!(unroll(4), tile(2); nfor!(k in m { c[i] += a[(i, k)]; })); }));
    assert!(errors(unroll, 1).is_empty());
    // `dmine` interleaves its copies, and tiling two loops reorders them.
    let dmine = quote!(
        nfor!(i in n { annot!(dmine(2); nfor!(k in 1..m { a[(i, k)] = a[(i, k - 1)] + 1.0; })); })
    );
    assert_eq!(errors(dmine, 1).len(), 1);
    let tiles = quote!(
        nfor!(i in n { annot!(tile(2, 2); nfor!((k, l) in (m, m) { a[(i, l)] = a[(i, l - 1)]; })); })
    );
    assert!(!errors(tiles, 1).is_empty());
    // An inner nest with no dependence of its own compiles under any annotation.
    let free = quote!(
        nfor!(i in n { annot!(vector(4); nfor!(k in m { b[(i, k)] = a[(i, k)] * 2.0; })); })
    );
    assert!(errors(free, 1).is_empty());
}

#[test]
fn a_push_is_never_named_by_its_store() {
    for nest in [
        quote!(nfor!(i in n { v[0] = 1.0; v.push(x[i]); })),
        quote!(nfor!(i in n { v.push(x[i]); v[0] = 1.0; })),
    ] {
        let text = nest.to_string();
        let mac: syn::Macro = syn::parse2(nest).expect("a macro call");
        let cx = Ctxt::new();
        let mut lower = Lower::new(&cx);
        let mut nest =
            crate::syntax::annot::lower_nest_macro(&mut lower, &mac, "nuwork!").expect("a nest");
        crate::checks::reduce::push::rewrite(&cx, &mut nest.body, &mut lower.slots);
        check(&cx, &nest, 1);
        let e: Vec<String> = cx
            .check()
            .unwrap_err()
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert!(e.iter().all(|m| !m.contains("__nuda")), "{text}: {e:?}");
        assert!(
            e.iter().any(|m| m.contains("this write of `v[0]`")),
            "{text}: {e:?}"
        );
    }
}

#[test]
fn huge_literals_make_an_opaque_term_not_a_panic() {
    let big = quote!(
        nfor!(i in n { a[i + 18446744073709551615 * 18446744073709551615 * 18446744073709551615] = 0.0; })
    );
    assert_eq!(errors(big, 1).len(), 1);
}

/// A flattened index `i * m + j`, with `j` in `0..m` by its loop, meets itself in another
/// iteration only with the same `i` and `j`: C-style code over a 2-D array in a 1-D buffer.
#[test]
fn flattened_rows_are_followed_where_the_column_stays_in_its_row() {
    let accepted = [
        (
            quote!(nfor!((i, j) in (n, m) { c[i * m + j] = a[i * m + j] * 2.0; })),
            2,
        ),
        (quote!(nfor!((i, j) in (n, m) { c[m * i + j] += 1.0; })), 2),
        (
            quote!(nfor!(i in n { nfor!(j in 0..m { c[i * m + j] = a[j]; }); })),
            1,
        ),
        (
            quote!(nfor!((i, j) in (n, w) { let k = i * w + j; c[k] = c[k] + 1.0; })),
            2,
        ),
    ];
    for (q, mapped) in accepted {
        let e = errors(q.clone(), mapped);
        assert!(e.is_empty(), "{q}: {e:?}");
    }
    // A neighbour, a column range one past the row, another symbol, and `i * m` alone (all
    // rows at 0 when `m` is 0): each may meet another iteration's element.
    let refused = [
        quote!(nfor!((i, j) in (n, m) { c[i * m + j] = c[i * m + j + 1]; })),
        quote!(nfor!((i, j) in (n, m + 1) { c[i * m + j] = 1.0; })),
        quote!(nfor!((i, j) in (n, k) { c[i * m + j] = 1.0; })),
        quote!(nfor!((i, j) in (n, m) { c[i * m] = 1.0; })),
        quote!(nfor!((i, j) in (n, m) { c[i * j + j] = 1.0; })),
    ];
    for q in refused {
        assert!(!errors(q.clone(), 2).is_empty(), "{q}");
    }
}
