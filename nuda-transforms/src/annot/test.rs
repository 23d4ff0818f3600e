//! Snapshots of each annotation on the IR, before and after, printed as Rust-like text.
//! Update with `UPDATE_EXPECT=1`.

use super::apply;
use crate::base::ctxt::Ctxt;
use crate::base::ir::Block;
use crate::syntax::annot::lower_annot;
use crate::syntax::Lower;
use expect_test::{expect, Expect};
use proc_macro2::TokenStream;
use quote::quote;

fn transformed(input: TokenStream) -> Result<String, String> {
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    let mac: syn::Macro = syn::parse2(quote!(annot!(#input))).unwrap();
    let nest = lower_annot(&mut lower, &mac);
    let before = nest.as_ref().map(|n| n.to_string()).unwrap_or_default();
    let mut slots = lower.slots;
    let stmts = nest
        .map(|n| apply(&cx, &mut slots, n, true))
        .unwrap_or_default();
    cx.check().map_err(|e| e.to_string())?;
    Ok(format!(
        "before:\n{before}after:\n{}",
        Block { stmts, tail: None }
    ))
}

fn check(input: TokenStream, want: Expect) {
    want.assert_eq(&transformed(input).unwrap());
}

fn error(input: TokenStream) -> String {
    transformed(input).unwrap_err()
}

#[test]
fn tile_bounds_the_last_tile_with_min() {
    check(
        quote!(tile(4); nfor!((i, j) in (n, 1..=m) { a[(i, j)] += 1; })),
        expect![[r#"
            before:
            annot!(tile(4); nfor!((i, j) in (0..n, 1..=m) {
                a[(i, j)] += 1;
            }));
            after:
            nfor!((i_tile) in ((0usize..trips(0..n)).step_by(4 as usize)) {
                nfor!((i_e, j) in (0usize..(4 as usize).min(trips(0..n) - i_tile), 1..=m) {
                    let i = 0 + (i_tile + i_e);
                    a[(i, j)] += 1;
                });
            });
        "#]],
    );
}

#[test]
fn tilem_splits_partial_tiles_off() {
    check(
        quote!(tilem(8, 8); nfor!((i, j) in (n, m) { c[(i, j)] = 1.0; })),
        expect![[r#"
            before:
            annot!(tilem(8, 8); nfor!((i, j) in (0..n, 0..m) {
                c[(i, j)] = 1.0;
            }));
            after:
            nfor!((i_tile, j_tile) in ((0usize..(trips(0..n) / (8 as usize)) * (8 as usize)).step_by(8 as usize), (0usize..(trips(0..m) / (8 as usize)) * (8 as usize)).step_by(8 as usize)) {
                nfor!((i_e, j_e) in (0usize..8 as usize, 0usize..8 as usize) {
                    let i = 0 + (i_tile + i_e);
                    let j = 0 + (j_tile + j_e);
                    c[(i, j)] = 1.0;
                });
            });
            nfor!((i_t, j_t) in ((trips(0..n) / (8 as usize)) * (8 as usize)..trips(0..n), 0usize..trips(0..m)) {
                let i = 0 + i_t;
                let j = 0 + j_t;
                c[(i, j)] = 1.0;
            });
            nfor!((i_t, j_t) in (0usize..(trips(0..n) / (8 as usize)) * (8 as usize), (trips(0..m) / (8 as usize)) * (8 as usize)..trips(0..m)) {
                let i = 0 + i_t;
                let j = 0 + j_t;
                c[(i, j)] = 1.0;
            });
        "#]],
    );
}

#[test]
fn unroll_copies_the_body_in_order() {
    check(
        quote!(unroll(2); nfor!(i in 2 <> n :/ 3 { let t = x[i]; y[i] = t; })),
        expect![[r#"
            before:
            annot!(unroll(2); nfor!((i) in ((2..=n).step_by(3)) {
                let t = x[i];
                y[i] = t;
            }));
            after:
            nfor!((i_t) in ((0usize..(trips((2..=n).step_by(3)) / 2usize) * 2usize).step_by(2usize)) {
                { let i = 2 + i_t * 3;     let t = x[i];     y[i] = t; };
                { let i = 2 + (i_t + 1usize) * 3;     let t = x[i];     y[i] = t; };
            });
            nfor!((i_t) in ((trips((2..=n).step_by(3)) / 2usize) * 2usize..trips((2..=n).step_by(3))) {
                let i = 2 + i_t * 3;
                let t = x[i];
                y[i] = t;
            });
        "#]],
    );
}

#[test]
fn dmine_jams_into_inner_loops_with_four_accumulators() {
    check(
        quote!(dmine(2, 2); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        })),
        expect![[r#"
            before:
            annot!(dmine(2, 2); nfor!((i, j) in (0..n, 0..n) {
                let mut s = 0.0f32;
                nfor!((k) in (0..n) {
                    s += a[(k, i)] * b[(k, j)];
                });
                c[(i, j)] = s;
            }));
            after:
            nfor!((i_t, j_t) in ((0usize..(trips(0..n) / 2usize) * 2usize).step_by(2usize), (0usize..(trips(0..n) / 2usize) * 2usize).step_by(2usize)) {
                let i_0_0 = 0 + i_t;
                let i_0_1 = 0 + i_t;
                let i_1_0 = 0 + (i_t + 1usize);
                let i_1_1 = 0 + (i_t + 1usize);
                let j_0_0 = 0 + j_t;
                let j_0_1 = 0 + (j_t + 1usize);
                let j_1_0 = 0 + j_t;
                let j_1_1 = 0 + (j_t + 1usize);
                let mut s_0_0 = 0.0f32;
                let mut s_0_1 = 0.0f32;
                let mut s_1_0 = 0.0f32;
                let mut s_1_1 = 0.0f32;
                nfor!((k) in (0..n) {
                    s_0_0 += a[(k, i_0_0)] * b[(k, j_0_0)];
                    s_0_1 += a[(k, i_0_1)] * b[(k, j_0_1)];
                    s_1_0 += a[(k, i_1_0)] * b[(k, j_1_0)];
                    s_1_1 += a[(k, i_1_1)] * b[(k, j_1_1)];
                });
                c[(i_0_0, j_0_0)] = s_0_0;
                c[(i_0_1, j_0_1)] = s_0_1;
                c[(i_1_0, j_1_0)] = s_1_0;
                c[(i_1_1, j_1_1)] = s_1_1;
            });
            nfor!((i_t, j_t) in ((trips(0..n) / 2usize) * 2usize..trips(0..n), 0usize..trips(0..n)) {
                let i = 0 + i_t;
                let j = 0 + j_t;
                let mut s = 0.0f32;
                nfor!((k) in (0..n) {
                    s += a[(k, i)] * b[(k, j)];
                });
                c[(i, j)] = s;
            });
            nfor!((i_t, j_t) in (0usize..(trips(0..n) / 2usize) * 2usize, (trips(0..n) / 2usize) * 2usize..trips(0..n)) {
                let i = 0 + i_t;
                let j = 0 + j_t;
                let mut s = 0.0f32;
                nfor!((k) in (0..n) {
                    s += a[(k, i)] * b[(k, j)];
                });
                c[(i, j)] = s;
            });
        "#]],
    );
}

#[test]
fn dmine_copies_inner_loops_that_depend_on_the_unrolled_variable() {
    check(
        quote!(dmine(2); nfor!(i in n { for k in 0..i { y[i] += x[k]; } })),
        expect![[r#"
            before:
            annot!(dmine(2); nfor!((i) in (0..n) {
                for k in 0..i {
                    y[i] += x[k];
                }
            }));
            after:
            nfor!((i_t) in ((0usize..(trips(0..n) / 2usize) * 2usize).step_by(2usize)) {
                let i_0 = 0 + i_t;
                let i_1 = 0 + (i_t + 1usize);
                for k_0 in 0..i_0 {
                    y[i_0] += x[k_0];
                }
                for k_1 in 0..i_1 {
                    y[i_1] += x[k_1];
                }
            });
            nfor!((i_t) in ((trips(0..n) / 2usize) * 2usize..trips(0..n)) {
                let i = 0 + i_t;
                for k in 0..i {
                    y[i] += x[k];
                }
            });
        "#]],
    );
}

#[test]
fn peel_splits_first_and_last_iterations() {
    check(
        quote!(peel(1, 2); nfor!(i in n { y[i] = 0.0; })),
        expect![[r#"
            before:
            annot!(peel(1, 2); nfor!((i) in (0..n) {
                y[i] = 0.0;
            }));
            after:
            nfor!((i_t) in (0usize..1usize.min(trips(0..n))) {
                let i = 0 + i_t;
                y[i] = 0.0;
            });
            nfor!((i_t) in (1usize.min(trips(0..n))..(trips(0..n).max(2usize) - 2usize).max(1usize.min(trips(0..n)))) {
                let i = 0 + i_t;
                y[i] = 0.0;
            });
            nfor!((i_t) in ((trips(0..n).max(2usize) - 2usize).max(1usize.min(trips(0..n)))..trips(0..n)) {
                let i = 0 + i_t;
                y[i] = 0.0;
            });
        "#]],
    );
}

#[test]
fn inline_unrolls_a_constant_loop() {
    check(
        quote!(inline; nfor!(k in -1..2 { s += w[(k + 1) as usize]; })),
        expect![[r#"
            before:
            annot!(inline(); nfor!((k) in (-1..2) {
                s += w[(k + 1) as usize];
            }));
            after:
            { s += w[((-1) + 1) as usize]; };
            { s += w[(0 + 1) as usize]; };
            { s += w[(1 + 1) as usize]; };
        "#]],
    );
}

#[test]
fn inline_unrolls_every_loop_of_the_nest() {
    check(
        quote!(inline; nfor!((i, j) in (2, 1..3) { c[(i, j)] = 0; })),
        expect![[r#"
            before:
            annot!(inline(); nfor!((i, j) in (0..2, 1..3) {
                c[(i, j)] = 0;
            }));
            after:
            { { c[(0, 1)] = 0; };     { c[(0, 2)] = 0; }; };
            { { c[(1, 1)] = 0; };     { c[(1, 2)] = 0; }; };
        "#]],
    );
}

#[test]
fn permut_swaps_the_outer_loops() {
    check(
        quote!(permut(2, 1); nfor!((i, j, k) in (m, n, p) { c[(i, j)] += k; })),
        expect![[r#"
            before:
            annot!(permut(2, 1); nfor!((i, j, k) in (0..m, 0..n, 0..p) {
                c[(i, j)] += k;
            }));
            after:
            nfor!((j, i, k) in (0..n, 0..m, 0..p) {
                c[(i, j)] += k;
            });
        "#]],
    );
}

#[test]
fn chains_apply_to_the_main_part() {
    check(
        quote!(tilem(8, 8), dmine(2, 2), permut(2, 1); nfor!((i, j) in (m, n) {
            c[(j, i)] = a[i] * b[j];
        })),
        expect![[r#"
            before:
            annot!(tilem(8, 8), dmine(2, 2), permut(2, 1); nfor!((i, j) in (0..m, 0..n) {
                c[(j, i)] = a[i] * b[j];
            }));
            after:
            nfor!((i_tile, j_tile) in ((0usize..(trips(0..m) / (8 as usize)) * (8 as usize)).step_by(8 as usize), (0usize..(trips(0..n) / (8 as usize)) * (8 as usize)).step_by(8 as usize)) {
                nfor!((j_e_t, i_e_t) in ((0usize..(trips(0usize..8 as usize) / 2usize) * 2usize).step_by(2usize), (0usize..(trips(0usize..8 as usize) / 2usize) * 2usize).step_by(2usize)) {
                    let i_e_0_0 = 0usize + i_e_t;
                    let i_e_0_1 = 0usize + i_e_t;
                    let i_e_1_0 = 0usize + (i_e_t + 1usize);
                    let i_e_1_1 = 0usize + (i_e_t + 1usize);
                    let j_e_0_0 = 0usize + j_e_t;
                    let j_e_0_1 = 0usize + (j_e_t + 1usize);
                    let j_e_1_0 = 0usize + j_e_t;
                    let j_e_1_1 = 0usize + (j_e_t + 1usize);
                    let i_0_0 = 0 + (i_tile + i_e_0_0);
                    let i_0_1 = 0 + (i_tile + i_e_0_1);
                    let i_1_0 = 0 + (i_tile + i_e_1_0);
                    let i_1_1 = 0 + (i_tile + i_e_1_1);
                    let j_0_0 = 0 + (j_tile + j_e_0_0);
                    let j_0_1 = 0 + (j_tile + j_e_0_1);
                    let j_1_0 = 0 + (j_tile + j_e_1_0);
                    let j_1_1 = 0 + (j_tile + j_e_1_1);
                    c[(j_0_0, i_0_0)] = a[i_0_0] * b[j_0_0];
                    c[(j_0_1, i_0_1)] = a[i_0_1] * b[j_0_1];
                    c[(j_1_0, i_1_0)] = a[i_1_0] * b[j_1_0];
                    c[(j_1_1, i_1_1)] = a[i_1_1] * b[j_1_1];
                });
                nfor!((i_e_t, j_e_t) in ((trips(0usize..8 as usize) / 2usize) * 2usize..trips(0usize..8 as usize), 0usize..trips(0usize..8 as usize)) {
                    let i_e = 0usize + i_e_t;
                    let j_e = 0usize + j_e_t;
                    let i = 0 + (i_tile + i_e);
                    let j = 0 + (j_tile + j_e);
                    c[(j, i)] = a[i] * b[j];
                });
                nfor!((i_e_t, j_e_t) in (0usize..(trips(0usize..8 as usize) / 2usize) * 2usize, (trips(0usize..8 as usize) / 2usize) * 2usize..trips(0usize..8 as usize)) {
                    let i_e = 0usize + i_e_t;
                    let j_e = 0usize + j_e_t;
                    let i = 0 + (i_tile + i_e);
                    let j = 0 + (j_tile + j_e);
                    c[(j, i)] = a[i] * b[j];
                });
            });
            nfor!((i_t, j_t) in ((trips(0..m) / (8 as usize)) * (8 as usize)..trips(0..m), 0usize..trips(0..n)) {
                let i = 0 + i_t;
                let j = 0 + j_t;
                c[(j, i)] = a[i] * b[j];
            });
            nfor!((i_t, j_t) in (0usize..(trips(0..m) / (8 as usize)) * (8 as usize), (trips(0..n) / (8 as usize)) * (8 as usize)..trips(0..n)) {
                let i = 0 + i_t;
                let j = 0 + j_t;
                c[(j, i)] = a[i] * b[j];
            });
        "#]],
    );
}

#[test]
fn diagnostics() {
    let e = error(quote!(dmine(u); nfor!(i in n { y[i] = 1; })));
    assert!(e.contains("dmine needs a constant here"), "{e}");
    let e = error(quote!(permut(2, 2); nfor!((i, j) in (n, n) { y[i] = 1; })));
    assert!(e.contains("not a permutation"), "{e}");
    let e = error(quote!(unroll(2, 2, 2); nfor!((i, j) in (n, n) { y[i] = 1; })));
    assert!(
        e.contains("has 3 parameters but the nest it applies to has 2 loops"),
        "{e}"
    );
    let e = error(quote!(inline; nfor!(i in n { y[i] = 1; })));
    assert!(e.contains("inline needs constant trip counts"), "{e}");
    let e = error(quote!(inline; nfor!((i, j) in (4, n) { y[i] = j; })));
    assert_eq!(
        e.matches("inline needs").count(),
        1,
        "one error, not one per copy: {e}"
    );
    let e = error(quote!(inline; nfor!((i, j) in (64, 32) { y[i] = j; })));
    assert!(e.contains("at most 1024 copies in all"), "{e}");
    let e = error(quote!(dmien(2); nfor!(i in n { y[i] = 1; })));
    assert!(e.contains("did you mean `dmine`"), "{e}");
    let e = error(quote!(unroll(2); nfor!(i in n { if i > 2 { continue; } y[i] = 1; })));
    assert!(e.contains("`continue`"), "{e}");
    let e = error(quote!(tile(4, 4); nfor!((i, j) in (n, i) { y[i] = 1; })));
    assert!(e.contains("annotated loops must be independent"), "{e}");
    let e = error(quote!(inline, unroll(2); nfor!(i in 4 { y[i] = 1; })));
    assert!(e.contains("nothing follows it"), "{e}");
}

#[test]
fn an_inner_loop_hiding_a_name_the_annotated_range_reads_is_refused() {
    let e = error(quote!(unroll(2); nfor!((i, s) in (s..n, 0..4) { a[(i, s)] = 1; })));
    assert!(e.contains("loop variable `s` hides"), "{e}");
}

#[test]
fn a_range_the_body_may_change_is_bound_once_before_the_nest() {
    let out = transformed(quote!(unroll(2); nfor!(j in s..s + 3 { s += 1; }))).unwrap();
    assert!(out.contains("let j_start = s;"), "{out}");
    assert!(out.contains("let j_end = s + 3;"), "{out}");
    assert!(out.contains("let j = j_start + "), "{out}");
}

/// The staged nest carries its plan once the chain has applied (issue 29, item 5): the
/// group's shape after a `dmine`, and each array's box, widened by the reads' offsets; the
/// emitter reads it instead of deriving it again.
#[test]
fn stage_plans_the_boxes_after_the_whole_chain() {
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    let mac: syn::Macro = syn::parse2(quote!(annot!(tilem(16, 16), stage(a, k: 8), dmine(2, 1);
    nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)] + a[(k, i + 2)]; });
        c[(i, j)] = s;
    }))))
    .unwrap();
    let nest = lower_annot(&mut lower, &mac).unwrap();
    let stmts = apply(&cx, &mut lower.slots, nest, true);
    cx.check().unwrap();
    let mut found = Vec::new();
    struct Find<'f>(&'f mut Vec<crate::base::ir::Stage>);
    impl crate::base::ir::visit::VisitMut for Find<'_> {
        fn visit_nest(&mut self, n: &mut crate::base::ir::Nest) {
            self.0.extend(n.stage.as_deref().cloned());
            crate::base::ir::visit::walk_nest(self, n);
        }
    }
    use crate::base::ir::visit::VisitMut;
    let mut v = Find(&mut found);
    stmts.into_iter().for_each(|mut s| v.visit_stmt(&mut s));
    let [st] = found.as_slice() else {
        panic!("one staged nest: {found:?}")
    };
    // dmine(2, 1): each work-item covers two rows, so 8 along i and 16 along j.
    assert_eq!(st.group, vec![(2, 8), (1, 16)]);
    let [b] = st.boxes.as_slice() else {
        panic!("one box: {:?}", st.boxes)
    };
    use crate::base::ir::staging::Follows;
    assert_eq!(b.follows, vec![(Follows::K, 0), (Follows::Elem(0), 0)]);
    // k: the depth, 8; i: 16 values of the tile plus the reads' offset of 2.
    assert_eq!(b.extents, vec![8, 18]);
}

/// Reads of one array that follow different loops at one position cannot share a box: the
/// annotation pass says so at the read.
#[test]
fn stage_refuses_reads_of_different_shapes() {
    let e = error(quote!(tilem(16, 16), stage(a, k: 8);
    nfor!((i, j) in (n, n) {
        let mut s = 0.0f32;
        nfor!(k in n { s += a[(k, i)] + a[(k, j)]; });
        c[(i, j)] = s;
    })));
    assert!(
        e.contains("follow different loops at index position 2"),
        "{e}"
    );
}

/// Reads of a staged array too far apart to copy as one block are a compile error at the read,
/// not an overflow in the expansion.
#[test]
fn a_staged_box_too_large_to_copy_is_an_error() {
    let e = error(quote!(tilem(16), stage(a, k: 16); nfor!(i in n {
        let mut s = 0.0f32;
        nfor!(k in 0..16 { s += a[(k, i)] + a[(k + 1152921504606846960, i)]; });
        c[i] = s;
    })));
    assert!(
        e.contains("stage(a, ..): the reads of `a` lie too far apart"),
        "{e}"
    );
}

/// A staged position the same for the whole group that could fault is refused: the copy (and
/// the native engine's panel) computes it before the loop reads it, where plain Rust might not
/// compute it at all (`t / m` behind `if m != 0`).
#[test]
fn a_staged_uniform_index_that_could_fault_is_an_error() {
    let e = error(
        quote!(tilem(16, 16), stage(a, b, k: 8); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in 0..p {
                if m != 0 {
                    s += a[(k, i)] * b[(k, t / m)];
                }
            });
            c[(i, j)] = s;
        })),
    );
    assert!(
        e.contains("stage(b, ..): the index `t / m` could fault"),
        "{e}"
    );
}
