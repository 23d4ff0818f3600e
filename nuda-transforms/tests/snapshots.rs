//! Snapshots of the OpenCL C the macros generate for representative kernels, with template
//! placeholders shown as `$T3` (type of slot 3), `$L4(2.0)` (literal typed by slot 4),
//! `$P6(b)` (parameters of capture `b`) and so on. Update with `UPDATE_EXPECT=1`.

use expect_test::{expect, Expect};
use nuda_transforms::emit::template::render_for_test;
use quote::quote;

fn check(template: syn::Result<String>, want: Expect) {
    let template = template.unwrap();
    assert_all_marked(&template);
    want.assert_eq(&render_for_test(&template));
}

/// Every construct a dialect spells its own way is a dialect mark in the template, never
/// OpenCL C's text: a kernel qualifier, an address space, a vector literal.
fn assert_all_marked(template: &str) {
    let text: String = template
        .split('\x0e')
        .map(|part| part.split_once('\x0f').map_or(part, |(_, rest)| rest))
        .collect();
    let words = [
        "kernel ",
        "global ",
        "local ",
        "constant ",
        "__kernel ",
        "__global ",
        "__local ",
    ];
    let types = [
        "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double",
    ];
    for line in text.lines().filter(|l| !l.trim_start().starts_with("/*")) {
        for w in words {
            let at_word = line.match_indices(w).any(|(k, _)| {
                k == 0
                    || !line.as_bytes()[k - 1].is_ascii_alphanumeric()
                        && line.as_bytes()[k - 1] != b'_'
            });
            assert!(!at_word, "unmarked `{w}` in: {line}");
        }
        for t in types {
            for n in ["2", "3", "4", "8", "16"] {
                assert!(
                    !line.contains(&format!("({t}{n})(")),
                    "unmarked vector literal in: {line}"
                );
            }
        }
    }
}

#[test]
fn nuwork_array_by_2() {
    check(
        nuda_transforms::entry::nuwork::template(quote!(1, 128; nfor!((i, j) in (n, n) {
            b[(i, j)] = 2.0 * a[(i, j)];
        }))),
        expect![[r#"
            $E8 nu_ld_a($P8(a), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0 && nu_i1 < a__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, a__d0, a__d1, 0);
                    $E8 nu_zero = {0};
                    return nu_zero;
                }
                return $D8(a)[(nu_i0) * a__d1 + nu_i1];
            }
            void nu_st_b($P7(b), nu_idx nu_i0, nu_idx nu_i1, $E7 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < b__d0 && nu_i1 < b__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, b__d0, b__d1, 0);
                    return;
                }
                $D7(b)[(nu_i0) * b__d1 + nu_i1] = nu_v;
            }
            kernel void NU_BOUNDS(128) nuwork(global uint* restrict nu_err, $T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $T3 nu_s1, $T3 nu_st1, nu_idx nu_n1, $P7(b), $P8(a)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T1 i = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                $T3 j = $O3(add)[nu_s1, $O3(from_int)[nu_g1]];
                nu_st_b(b, b__d0, b__d1, i, j, $O6(mul)[$L4(2.0), nu_ld_a(a, a__d0, a__d1, i, j, NU_C$Q0, $Q0u, nu_err)], NU_C$Q1, $Q1u, nu_err);
            }
        "#]],
    );
}

#[test]
fn nuwork_sgemm_with_a_sequential_inner_loop() {
    check(
        nuda_transforms::entry::nuwork::template(quote!(16, 16; nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        }))),
        expect![[r#"
            $E12 nu_ld_a($P12(a), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0 && nu_i1 < a__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, a__d0, a__d1, 0);
                    $E12 nu_zero = {0};
                    return nu_zero;
                }
                return $D12(a)[(nu_i0) * a__d1 + nu_i1];
            }
            $E13 nu_ld_b($P13(b), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < b__d0 && nu_i1 < b__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, b__d0, b__d1, 0);
                    $E13 nu_zero = {0};
                    return nu_zero;
                }
                return $D13(b)[(nu_i0) * b__d1 + nu_i1];
            }
            void nu_st_c($P14(c), nu_idx nu_i0, nu_idx nu_i1, $E14 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < c__d0 && nu_i1 < c__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, c__d0, c__d1, 0);
                    return;
                }
                $D14(c)[(nu_i0) * c__d1 + nu_i1] = nu_v;
            }
            kernel void NU_BOUNDS(256) nuwork(global uint* restrict nu_err, $T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $T3 nu_s1, $T3 nu_st1, nu_idx nu_n1, $P11(n), $P12(a), $P13(b), $P14(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T1 i = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                $T3 j = $O3(add)[nu_s1, $O3(from_int)[nu_g1]];
                $T4 s = $Z0(float:0.0);
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s = $O10(add)[s, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j, NU_C$Q1, $Q1u, nu_err)]];
                }
                nu_st_c(c, c__d0, c__d1, i, j, s, NU_C$Q2, $Q2u, nu_err);
            }
        "#]],
    );
}

#[test]
fn nuwork_three_loops_two_mapped() {
    check(
        nuda_transforms::entry::nuwork::template(
            quote!(1, 64; nfor!((i, j, k) in (n, m, 1 <> p :/ 2) {
                c[(i, j)] += a[(i, k)];
            })),
        ),
        expect![[r#"
            $E11 nu_ld_a($P11(a), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0 && nu_i1 < a__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, a__d0, a__d1, 0);
                    $E11 nu_zero = {0};
                    return nu_zero;
                }
                return $D11(a)[(nu_i0) * a__d1 + nu_i1];
            }
            $E10 nu_ld_c($P10(c), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < c__d0 && nu_i1 < c__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, c__d0, c__d1, 0);
                    $E10 nu_zero = {0};
                    return nu_zero;
                }
                return $D10(c)[(nu_i0) * c__d1 + nu_i1];
            }
            void nu_st_c($P10(c), nu_idx nu_i0, nu_idx nu_i1, $E10 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < c__d0 && nu_i1 < c__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, c__d0, c__d1, 0);
                    return;
                }
                $D10(c)[(nu_i0) * c__d1 + nu_i1] = nu_v;
            }
            kernel void NU_BOUNDS(64) nuwork(global uint* restrict nu_err, $T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $T3 nu_s1, $T3 nu_st1, nu_idx nu_n1, $P9(p), $P10(c), $P11(a)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T1 i = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                $T3 j = $O3(add)[nu_s1, $O3(from_int)[nu_g1]];
                {
                    $T6 nu_a = $L4(1), nu_b = p, nu_st = $L5(2);
                    nu_idx nu_last = $O6(last)[nu_a, nu_b, nu_st, 1, NU_C$Q0, $Q0u];
                    for (nu_idx nu_k = 0, nu_go = $O6(some)[nu_a, nu_b, nu_st, 1]; nu_go; nu_go = nu_k != nu_last, nu_k++) {
                        $T6 k = $O6(add)[nu_a, $O6(mul)[$O6(from_int)[nu_k], nu_st]];
                        {
                            nu_idx nu_i = i;
                            nu_idx nu_i_1 = j;
                            nu_st_c(c, c__d0, c__d1, nu_i, nu_i_1, $O8(add)[nu_ld_c(c, c__d0, c__d1, nu_i, nu_i_1, NU_C$Q2, $Q2u, nu_err), nu_ld_a(a, a__d0, a__d1, i, k, NU_C$Q1, $Q1u, nu_err)], NU_C$Q2, $Q2u, nu_err);
                        }
                    }
                }
            }
        "#]],
    );
}

#[test]
fn value_if_with_statements_is_hoisted() {
    check(
        nuda_transforms::entry::nuwork::template(quote!(64; nfor!(i in n {
            let v = if i % 2 == 0 { let t = x[i] * 3.0; t + 1.0 } else if i % 3 == 0 { 2.0 } else { x[i] };
            let w = if v > 0.0 { v } else { -v };
            y[i] = v + w;
        }))),
        expect![[r#"
            $E26 nu_ld_x($P26(x), nu_idx nu_i0, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < x__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, x__d0, 0, 0);
                    $E26 nu_zero = {0};
                    return nu_zero;
                }
                return $D26(x)[nu_i0];
            }
            void nu_st_y($P27(y), nu_idx nu_i0, $E27 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < y__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, y__d0, 0, 0);
                    return;
                }
                $D27(y)[nu_i0] = nu_v;
            }
            kernel void NU_BOUNDS(64) nuwork(global uint* restrict nu_err, $T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $P26(x), $P27(y)) {
                nu_idx nu_g0 = get_global_id(0);
                if (nu_g0 >= nu_n0) return;
                $T1 i = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                $T18 nu_v;
                if ($O3(rem)[i, $L2(2), NU_C$Q0, $Q0u] == $L4(0)) {
                    $T8 t = $O7(mul)[nu_ld_x(x, x__d0, i, NU_C$Q1, $Q1u, nu_err), $L6(3.0)];
                    nu_v = $O10(add)[t, $L9(1.0)];
                } else {
                    nu_v = (($O12(rem)[i, $L11(3), NU_C$Q0, $Q0u] == $L13(0)) ? $L14(2.0) : (nu_ld_x(x, x__d0, i, NU_C$Q1, $Q1u, nu_err)));
                }
                $T19 v = nu_v;
                $T24 w = ((v > $L20(0.0)) ? v : ($O21(neg)[v]));
                nu_st_y(y, y__d0, i, $O25(add)[v, w], NU_C$Q2, $Q2u, nu_err);
            }
        "#]],
    );
}

#[test]
fn stepped_and_inclusive_for_loops_count_trips() {
    check(
        nuda_transforms::entry::nuwork::template(quote!(64; nfor!(i in n {
            let mut s = 0u8;
            for k in (0..=250u8).step_by(10) { s = s.wrapping_add(k); }
            for k in 0..i { s ^= k as u8; }
            out[i] = s;
        }))),
        expect![[r#"
            void nu_st_out($P12(out), nu_idx nu_i0, $E12 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < out__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, out__d0, 0, 0);
                    return;
                }
                $D12(out)[nu_i0] = nu_v;
            }
            kernel void NU_BOUNDS(64) nuwork(global uint* restrict nu_err, $T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $P12(out)) {
                nu_idx nu_g0 = get_global_id(0);
                if (nu_g0 >= nu_n0) return;
                $T1 i = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                $T2 s = $Z0(uchar:0);
                {
                    $T6 nu_a = $L3(0), nu_b = $Z0(uchar:250), nu_st = $L4(10);
                    nu_idx nu_last = $O6(last)[nu_a, nu_b, nu_st, 1, NU_C$Q0, $Q0u];
                    for (nu_idx nu_k = 0, nu_go = $O6(some)[nu_a, nu_b, nu_st, 1]; nu_go; nu_go = nu_k != nu_last, nu_k++) {
                        $T6 k = $O6(add)[nu_a, $O6(mul)[$O6(from_int)[nu_k], nu_st]];
                        s = $O5(add)[s, k];
                    }
                }
                for ($T10 k_1 = $L7(0), k_1_end = i; k_1 < k_1_end; k_1++) {
                    s = $O9(xor)[s, $O8(to:uchar)[k_1]];
                }
                nu_st_out(out, out__d0, i, s, NU_C$Q1, $Q1u, nu_err);
            }
        "#]],
    );
}

#[test]
fn casts_narrow_arithmetic_and_integer_methods() {
    check(
        nuda_transforms::entry::nuwork::template(quote!(64; nfor!(i in n {
            let x = f[i] as i32;
            let y = (x as u8) * 3;
            let z = !y ^ y.rotate_left(3);
            out[i] = (z as i32).abs().min(100) + x % 7;
        }))),
        expect![[r#"
            $E20 nu_ld_f($P20(f), nu_idx nu_i0, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < f__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, f__d0, 0, 0);
                    $E20 nu_zero = {0};
                    return nu_zero;
                }
                return $D20(f)[nu_i0];
            }
            void nu_st_out($P21(out), nu_idx nu_i0, $E21 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < out__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, out__d0, 0, 0);
                    return;
                }
                $D21(out)[nu_i0] = nu_v;
            }
            kernel void NU_BOUNDS(64) nuwork(global uint* restrict nu_err, $T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $P20(f), $P21(out)) {
                nu_idx nu_g0 = get_global_id(0);
                if (nu_g0 >= nu_n0) return;
                $T1 i = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                $T3 x = $O2(to:int)[nu_ld_f(f, f__d0, i, NU_C$Q0, $Q0u, nu_err)];
                $T7 y = $O6(mul)[($O4(to:uchar)[x]), $L5(3)];
                $T12 z = $O11(xor)[$O8(not)[y], rotate(($T9)(y), ($T9)($L10(3)))];
                nu_st_out(out, out__d0, i, $O19(add)[$F15(min)($O14(abs)[($O13(to:int)[z])], $L16(100)), $O18(rem)[x, $L17(7), NU_C$Q1, $Q1u]], NU_C$Q2, $Q2u, nu_err);
            }
        "#]],
    );
}

#[test]
fn images_and_shadowed_keyword_names() {
    check(
        nuda_transforms::entry::nuwork::template(quote!(8, 8; nfor!((y, x) in (h, w) {
            let float = src.read(x - 1, y) + src.read(x + 1, y);
            let float = float * 0.5;
            dst.write(x, y, float);
        }))),
        expect![[r#"
            kernel void NU_BOUNDS(64) nuwork(global uint* restrict nu_err, $T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $T3 nu_s1, $T3 nu_st1, nu_idx nu_n1, $P13(src), $P14(dst)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T1 y = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                $T3 x = $O3(add)[nu_s1, $O3(from_int)[nu_g1]];
                $T9 v_float = $O8(add)[nu_read$C13(src, (int)($O5(sub)[x, $L4(1)]), (int)(y)), nu_read$C13(src, (int)($O7(add)[x, $L6(1)]), (int)(y))];
                $T12 v_float_1 = $O11(mul)[v_float, $L10(0.5)];
                nu_write$C14(dst, dst__d0, dst__d1, (int)(x), (int)(y), v_float_1, NU_C$Q0, $Q0u, nu_err);
            }
        "#]],
    );
}

#[test]
fn nukernel_with_barrier_and_return() {
    check(
        nuda_transforms::entry::nukernel::template(quote!(
            fn reverse(
                out: &mut NuArray1<i32>,
                a: &NuArray1<i32>,
                tmp: &mut NuArray1<i32>,
                n: usize,
            ) {
                // Every work-item reaches the barrier (`#[nukernel]` refuses an early
                // `return` before it); the return comes after.
                let g = global_id(0);
                if g < n {
                    tmp[g] = a[g];
                }
                barrier();
                if g >= n {
                    return;
                }
                out[g] = tmp[n - 1 - g];
            }
        )),
        expect![[r#"
            $E10 nu_ld_a($P10(a), nu_idx nu_i0, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, a__d0, 0, 0);
                    $E10 nu_zero = {0};
                    return nu_zero;
                }
                return $D10(a)[nu_i0];
            }
            void nu_st_tmp($P11(tmp), nu_idx nu_i0, $E11 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < tmp__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, tmp__d0, 0, 0);
                    return;
                }
                $D11(tmp)[nu_i0] = nu_v;
            }
            $E11 nu_ld_tmp($P11(tmp), nu_idx nu_i0, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < tmp__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, tmp__d0, 0, 0);
                    $E11 nu_zero = {0};
                    return nu_zero;
                }
                return $D11(tmp)[nu_i0];
            }
            void nu_st_out($P9(out), nu_idx nu_i0, $E9 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < out__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, out__d0, 0, 0);
                    return;
                }
                $D9(out)[nu_i0] = nu_v;
            }
            kernel void reverse(global uint* restrict nu_err, $P9(out), $P10(a), $P11(tmp), $P12(n)) {
                $T1 g = nu_global_id((nu_idx)($L0(0)));
                if (g < n) {
                    nu_st_tmp(tmp, tmp__d0, g, nu_ld_a(a, a__d0, g, NU_C$Q0, $Q0u, nu_err), NU_C$Q1, $Q1u, nu_err);
                }
                barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
                if (g >= n) {
                    return;
                }
                nu_st_out(out, out__d0, g, nu_ld_tmp(tmp, tmp__d0, $O7(sub)[$O6(sub)[n, $L5(1)], g], NU_C$Q2, $Q2u, nu_err), NU_C$Q3, $Q3u, nu_err);
            }
        "#]],
    );
}

#[test]
fn nucode_with_early_return_and_calls() {
    check(
        nuda_transforms::entry::nucode::template(quote!(
            fn smooth(x: f32) -> f32 {
                if x < 0.0 {
                    return 0.0;
                }
                let t = clamp01(x);
                t * t * (3.0 - 2.0 * t)
            }
        )),
        expect![[r#"
            float $S0(global uint* nu_err, float x) {
                if (x < $L0(0.0)) {
                    return $L1(0.0);
                }
                $T3 t = $X0(nu_err, x);
                return $O9(mul)[$O4(mul)[t, t], ($O8(sub)[$L5(3.0), $O7(mul)[$L6(2.0), t]])];
            }
        "#]],
    );
}

#[test]
fn nuwork_dmine_sgemm_has_four_accumulators_and_remainder_kernels() {
    check(
        nuda_transforms::entry::nuwork::template(
            quote!(16, 16; annot!(dmine(2, 2); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            }))),
        ),
        expect![[r#"
            $E28 nu_ld_a($P28(a), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0 && nu_i1 < a__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, a__d0, a__d1, 0);
                    $E28 nu_zero = {0};
                    return nu_zero;
                }
                return $D28(a)[(nu_i0) * a__d1 + nu_i1];
            }
            $E29 nu_ld_b($P29(b), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < b__d0 && nu_i1 < b__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, b__d0, b__d1, 0);
                    $E29 nu_zero = {0};
                    return nu_zero;
                }
                return $D29(b)[(nu_i0) * b__d1 + nu_i1];
            }
            void nu_st_c($P30(c), nu_idx nu_i0, nu_idx nu_i1, $E30 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < c__d0 && nu_i1 < c__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, c__d0, c__d1, 0);
                    return;
                }
                $D30(c)[(nu_i0) * c__d1 + nu_i1] = nu_v;
            }
            kernel void NU_BOUNDS(256) nuwork_0(global uint* restrict nu_err, $T21 nu_s0, $T21 nu_st0, nu_idx nu_n0, $T22 nu_s1, $T22 nu_st1, nu_idx nu_n1, $P27(n), $P28(a), $P29(b), $P30(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T21 i_t = $O21(add)[nu_s0, $O21(mul)[$O21(from_int)[nu_g0], $Z0(nu_idx:2)]];
                $T22 j_t = $O22(add)[nu_s1, $O22(mul)[$O22(from_int)[nu_g1], $Z0(nu_idx:2)]];
                $T1 i_0_0 = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                $T1 i_0_1 = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                $T1 i_1_0 = $O1(add)[$L0(0), $O1(from_int)[$O18(add)[i_t, $Z0(nu_idx:1)]]];
                $T1 i_1_1 = $O1(add)[$L0(0), $O1(from_int)[$O19(add)[i_t, $Z0(nu_idx:1)]]];
                $T3 j_0_0 = $O3(add)[$L2(0), $O3(from_int)[j_t]];
                $T3 j_0_1 = $O3(add)[$L2(0), $O3(from_int)[$O17(add)[j_t, $Z0(nu_idx:1)]]];
                $T3 j_1_0 = $O3(add)[$L2(0), $O3(from_int)[j_t]];
                $T3 j_1_1 = $O3(add)[$L2(0), $O3(from_int)[$O20(add)[j_t, $Z0(nu_idx:1)]]];
                $T4 s_0_0 = $Z0(float:0.0);
                $T4 s_0_1 = $Z0(float:0.0);
                $T4 s_1_0 = $Z0(float:0.0);
                $T4 s_1_1 = $Z0(float:0.0);
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s_0_0 = $O10(add)[s_0_0, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i_0_0, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j_0_0, NU_C$Q1, $Q1u, nu_err)]];
                    s_0_1 = $O10(add)[s_0_1, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i_0_1, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j_0_1, NU_C$Q1, $Q1u, nu_err)]];
                    s_1_0 = $O10(add)[s_1_0, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i_1_0, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j_1_0, NU_C$Q1, $Q1u, nu_err)]];
                    s_1_1 = $O10(add)[s_1_1, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i_1_1, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j_1_1, NU_C$Q1, $Q1u, nu_err)]];
                }
                nu_st_c(c, c__d0, c__d1, i_0_0, j_0_0, s_0_0, NU_C$Q2, $Q2u, nu_err);
                nu_st_c(c, c__d0, c__d1, i_0_1, j_0_1, s_0_1, NU_C$Q2, $Q2u, nu_err);
                nu_st_c(c, c__d0, c__d1, i_1_0, j_1_0, s_1_0, NU_C$Q2, $Q2u, nu_err);
                nu_st_c(c, c__d0, c__d1, i_1_1, j_1_1, s_1_1, NU_C$Q2, $Q2u, nu_err);
            }

            kernel void NU_BOUNDS(256) nuwork_1(global uint* restrict nu_err, $T23 nu_s0, $T23 nu_st0, nu_idx nu_n0, $T24 nu_s1, $T24 nu_st1, nu_idx nu_n1, $P27(n), $P28(a), $P29(b), $P30(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T23 i_t = $O23(add)[nu_s0, $O23(from_int)[nu_g0]];
                $T24 j_t = $O24(add)[nu_s1, $O24(from_int)[nu_g1]];
                $T1 i = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                $T3 j = $O3(add)[$L2(0), $O3(from_int)[j_t]];
                $T4 s = $Z0(float:0.0);
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s = $O10(add)[s, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j, NU_C$Q1, $Q1u, nu_err)]];
                }
                nu_st_c(c, c__d0, c__d1, i, j, s, NU_C$Q2, $Q2u, nu_err);
            }

            kernel void NU_BOUNDS(256) nuwork_2(global uint* restrict nu_err, $T25 nu_s0, $T25 nu_st0, nu_idx nu_n0, $T26 nu_s1, $T26 nu_st1, nu_idx nu_n1, $P27(n), $P28(a), $P29(b), $P30(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T25 i_t = $O25(add)[nu_s0, $O25(from_int)[nu_g0]];
                $T26 j_t = $O26(add)[nu_s1, $O26(from_int)[nu_g1]];
                $T1 i = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                $T3 j = $O3(add)[$L2(0), $O3(from_int)[j_t]];
                $T4 s = $Z0(float:0.0);
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s = $O10(add)[s, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j, NU_C$Q1, $Q1u, nu_err)]];
                }
                nu_st_c(c, c__d0, c__d1, i, j, s, NU_C$Q2, $Q2u, nu_err);
            }
        "#]],
    );
}

#[test]
fn nuwork_reductions() {
    check(
        nuda_transforms::entry::nuwork::template(quote!(256; nfor!(i in n {
            dot += a[i] * b[i];
            if a[i] > 0.5 { count += 1; continue; }
            hi = hi.max(a[i]);
        }))),
        expect![[r#"
            $E13 nu_ld_a($P13(a), nu_idx nu_i0, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, a__d0, 0, 0);
                    $E13 nu_zero = {0};
                    return nu_zero;
                }
                return $D13(a)[nu_i0];
            }
            $E14 nu_ld_b($P14(b), nu_idx nu_i0, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < b__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, b__d0, 0, 0);
                    $E14 nu_zero = {0};
                    return nu_zero;
                }
                return $D14(b)[nu_i0];
            }
            kernel void NU_WARPS NU_BOUNDS(256) nuwork(global uint* restrict nu_err, $T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $P13(a), $P14(b), $T15 v_dot, local $T15* restrict nu_rl0, global $T15* restrict nu_rp0, nu_idx nu_rp0__d0, $T16 count, local $T16* restrict nu_rl1, global $T16* restrict nu_rp1, nu_idx nu_rp1__d0, $T17 hi, local $T17* restrict nu_rl2, global $T17* restrict nu_rp2, nu_idx nu_rp2__d0) {
            #if NU_CPU
                $T15 nu_a0[16];
                for (uint nu_k = 0; nu_k < 16; nu_k++) nu_a0[nu_k] = v_dot;
                $T16 nu_a1[16];
                for (uint nu_k = 0; nu_k < 16; nu_k++) nu_a1[nu_k] = count;
                $T17 nu_a2[16];
                for (uint nu_k = 0; nu_k < 16; nu_k++) nu_a2[nu_k] = hi;
                nu_idx nu_c0 = nu_n0 / (nu_idx)get_global_size(0) + (nu_n0 % (nu_idx)get_global_size(0) != 0);
                nu_idx nu_lo0 = (nu_idx)min((ulong)get_global_id(0) * nu_c0, (ulong)nu_n0), nu_hi0 = nu_lo0 + min(nu_c0, nu_n0 - nu_lo0);
                nu_idx nu_b0 = nu_lo0;
                for (; nu_hi0 - nu_b0 >= 16; nu_b0 += 16) for (uint nu_k = 0; nu_k < 16; nu_k++) {
                    nu_idx nu_g0 = nu_b0 + nu_k;
                    $T1 i = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                    nu_a0[nu_k] = $O15(add)[nu_a0[nu_k], (($T15)($O4(mul)[nu_ld_a(a, a__d0, i, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, i, NU_C$Q1, $Q1u, nu_err)]))];
                    if (nu_ld_a(a, a__d0, i, NU_C$Q0, $Q0u, nu_err) > $L7(0.5)) {
                        nu_a1[nu_k] = $O16(add)[nu_a1[nu_k], (($T16)($L8(1)))];
                        continue;
                    }
                    nu_a2[nu_k] = $F17(max)(nu_a2[nu_k], (($T17)(nu_ld_a(a, a__d0, i, NU_C$Q0, $Q0u, nu_err))));
                }
                for (nu_idx nu_g0 = nu_b0; nu_g0 < nu_hi0; nu_g0++) {
                    $T1 i_1 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                    nu_a0[0] = $O15(add)[nu_a0[0], (($T15)($O4(mul)[nu_ld_a(a, a__d0, i_1, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, i_1, NU_C$Q1, $Q1u, nu_err)]))];
                    if (nu_ld_a(a, a__d0, i_1, NU_C$Q0, $Q0u, nu_err) > $L7(0.5)) {
                        nu_a1[0] = $O16(add)[nu_a1[0], (($T16)($L8(1)))];
                        continue;
                    }
                    nu_a2[0] = $F17(max)(nu_a2[0], (($T17)(nu_ld_a(a, a__d0, i_1, NU_C$Q0, $Q0u, nu_err))));
                }
                for (uint nu_k = 0; nu_k < 16; nu_k++) v_dot = $O15(add)[v_dot, nu_a0[nu_k]];
                for (uint nu_k = 0; nu_k < 16; nu_k++) count = $O16(add)[count, nu_a1[nu_k]];
                for (uint nu_k = 0; nu_k < 16; nu_k++) hi = $F17(max)(hi, nu_a2[nu_k]);
            #else
                {
                    nu_idx nu_left0 = nu_n0 > get_global_id(0) ? nu_n0 - (nu_idx)get_global_id(0) : 0;
                    for (; nu_left0 / 4 >= (nu_idx)get_global_size(0); ) {
                        NU_UNROLL
                        for (uint nu_u0 = 0; nu_u0 < 4; nu_u0++) {
                            nu_idx nu_g0 = nu_n0 - nu_left0;
                            nu_left0 -= (nu_idx)get_global_size(0);
                            $T1 i_2 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                            v_dot = $O15(add)[v_dot, (($T15)($O4(mul)[nu_ld_a(a, a__d0, i_2, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, i_2, NU_C$Q1, $Q1u, nu_err)]))];
                            if (nu_ld_a(a, a__d0, i_2, NU_C$Q0, $Q0u, nu_err) > $L7(0.5)) {
                                count = $O16(add)[count, (($T16)($L8(1)))];
                                continue;
                            }
                            hi = $F17(max)(hi, (($T17)(nu_ld_a(a, a__d0, i_2, NU_C$Q0, $Q0u, nu_err))));
                        }
                    }
                    for (; nu_left0 != 0; ) {
                        nu_idx nu_g0 = nu_n0 - nu_left0;
                        nu_left0 = nu_left0 > (nu_idx)get_global_size(0) ? nu_left0 - (nu_idx)get_global_size(0) : 0;
                        $T1 i_3 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                        v_dot = $O15(add)[v_dot, (($T15)($O4(mul)[nu_ld_a(a, a__d0, i_3, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, i_3, NU_C$Q1, $Q1u, nu_err)]))];
                        if (nu_ld_a(a, a__d0, i_3, NU_C$Q0, $Q0u, nu_err) > $L7(0.5)) {
                            count = $O16(add)[count, (($T16)($L8(1)))];
                            continue;
                        }
                        hi = $F17(max)(hi, (($T17)(nu_ld_a(a, a__d0, i_3, NU_C$Q0, $Q0u, nu_err))));
                    }
                }
            #endif
                nu_idx nu_lid = (nu_idx)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
                nu_idx nu_lsz = (nu_idx)(get_local_size(0) * get_local_size(1) * get_local_size(2));
                nu_rl0[nu_lid] = v_dot;
                nu_rl1[nu_lid] = count;
                nu_rl2[nu_lid] = hi;
                barrier(CLK_LOCAL_MEM_FENCE);
                nu_idx nu_h = 1;
                while (2 * nu_h < nu_lsz) nu_h *= 2;
            #if NU_SHFL
                if (nu_lsz >= 64 && NU_WARPED) {
                    for (; nu_h >= 32; nu_h /= 2) {
                        if (nu_lid < nu_h && nu_lid + nu_h < nu_lsz) {
                            nu_rl0[nu_lid] = $O15(add)[nu_rl0[nu_lid], nu_rl0[nu_lid + nu_h]];
                            nu_rl1[nu_lid] = $O16(add)[nu_rl1[nu_lid], nu_rl1[nu_lid + nu_h]];
                            nu_rl2[nu_lid] = $F17(max)(nu_rl2[nu_lid], nu_rl2[nu_lid + nu_h]);
                        }
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                    if (nu_lid < 32) {
                        $T15 nu_w0 = nu_rl0[nu_lid];
                        $T16 nu_w1 = nu_rl1[nu_lid];
                        $T17 nu_w2 = nu_rl2[nu_lid];
                        for (; nu_h > 0; nu_h /= 2) {
                            $T15 nu_o0 = nu_shfl_down(nu_w0, (uint)nu_h);
                            $T16 nu_o1 = nu_shfl_down(nu_w1, (uint)nu_h);
                            $T17 nu_o2 = nu_shfl_down(nu_w2, (uint)nu_h);
                            if (nu_lid < nu_h) {
                                nu_w0 = $O15(add)[nu_w0, nu_o0];
                                nu_w1 = $O16(add)[nu_w1, nu_o1];
                                nu_w2 = $F17(max)(nu_w2, nu_o2);
                            }
                        }
                        if (nu_lid == 0) nu_rl0[0] = nu_w0;
                        if (nu_lid == 0) nu_rl1[0] = nu_w1;
                        if (nu_lid == 0) nu_rl2[0] = nu_w2;
                    }
                } else
            #endif
                {
                    for (; nu_h > 0; nu_h /= 2) {
                        if (nu_lid < nu_h && nu_lid + nu_h < nu_lsz) {
                            nu_rl0[nu_lid] = $O15(add)[nu_rl0[nu_lid], nu_rl0[nu_lid + nu_h]];
                            nu_rl1[nu_lid] = $O16(add)[nu_rl1[nu_lid], nu_rl1[nu_lid + nu_h]];
                            nu_rl2[nu_lid] = $F17(max)(nu_rl2[nu_lid], nu_rl2[nu_lid + nu_h]);
                        }
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                }
                if (nu_lid == 0) {
                    nu_idx nu_grp = (nu_idx)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2)));
                    nu_rp0[nu_grp] = nu_rl0[0];
                    nu_rp1[nu_grp] = nu_rl1[0];
                    nu_rp2[nu_grp] = nu_rl2[0];
                }
            }
        "#]],
    );
}

#[test]
#[allow(clippy::too_many_lines)] // the lines are the snapshot: both kernels, every branch
fn nuwork_scans() {
    check(
        nuda_transforms::entry::nuwork::template(quote!(64; nfor!(i in n {
            excl[i] = run;
            if a[i] > 2 { run += a[i]; }
            total += 1;
        }))),
        expect![[r#"
            $E11 nu_ld_a($P11(a), nu_idx nu_i0, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, a__d0, 0, 0);
                    $E11 nu_zero = {0};
                    return nu_zero;
                }
                return $D11(a)[nu_i0];
            }
            void nu_st_excl($P10(excl), nu_idx nu_i0, $E10 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < excl__d0)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, 0, 0, excl__d0, 0, 0);
                    return;
                }
                $D10(excl)[nu_i0] = nu_v;
            }
            kernel void NU_WARPS NU_BOUNDS_WARPS(64, 48) nuwork(global uint* restrict nu_err, $T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $P10(excl), $P11(a), global uint* nu_sa0, nu_idx nu_sa0__d0, global uint* nu_si0, nu_idx nu_si0__d0, $T12 nu_id0, $T12 nu_s00, local $T12* restrict nu_sl0, global uint* nu_tf, nu_idx nu_tf__d0, ulong nu_T, uint nu_ev, local uint* restrict nu_tl, $T13 total, local $T13* restrict nu_rl1, global $T13* restrict nu_rp1, nu_idx nu_rp1__d0) {
                typedef nu_idx nu_it;
                nu_it nu_N = (nu_it)nu_n0;
                nu_it nu_L = get_local_size(0), nu_li = get_local_id(0), nu_TT = (nu_it)nu_T;
                nu_it nu_P = 1, nu_k = 0;
                while (nu_P < nu_TT) nu_P *= 2;
                nu_P += nu_P / 32;
                if (nu_li == 0) nu_tl[0] = atomic_inc(&nu_tf[0]);
                barrier(CLK_LOCAL_MEM_FENCE);
                nu_k = nu_tl[0];
                barrier(CLK_LOCAL_MEM_FENCE);
            #if NU_CPU
                {
                    nu_it nu_lo = nu_k * nu_TT, nu_hi = nu_lo + min(nu_TT, nu_N - nu_lo), nu_cnt = nu_hi - nu_lo;
                    {
                    nu_it nu_sub = (nu_hi - nu_lo) / nu_L + ((nu_hi - nu_lo) % nu_L != 0);
                    nu_it nu_a = (nu_it)min((ulong)nu_lo + (ulong)nu_li * nu_sub, (ulong)nu_hi), nu_b = nu_a + min(nu_sub, nu_hi - nu_a);
                    {
                    $T12 run = nu_id0;
                    for (nu_it nu_t = nu_a; nu_t < nu_b; nu_t++) {
                        nu_idx nu_g0 = (nu_idx)nu_t;
                        do {
                            $T1 i = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                            if (nu_ld_a(a, a__d0, i, NU_C$Q0, $Q0u, nu_err) > $L4(2)) {
                                run = $O12(add)[run, (($T12)(nu_ld_a(a, a__d0, i, NU_C$Q0, $Q0u, nu_err)))];
                            }
                        } while (0);
                    }
                    nu_sl0[nu_li] = run;
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                    if (nu_li == 0) {
                        $T12 nu_run0 = nu_id0;
                        for (nu_it nu_k = 0; nu_k < nu_L; nu_k++) {
                            $T12 nu_x0 = nu_sl0[nu_k]; nu_sl0[nu_k] = nu_run0; nu_run0 = $O12(add)[nu_run0, nu_x0];
                        }
                        volatile global uint* nu_fl = (volatile global uint*)nu_tf + 1;
                        $T12 nu_px0 = nu_s00;
                        { union { $T12 v; ulong w; } nu_u; nu_u.w = 0; nu_u.v = nu_run0; atomic_xchg(&nu_sa0[2 * nu_k], (uint)nu_u.w); atomic_xchg(&nu_sa0[2 * nu_k + 1], (uint)(nu_u.w >> 32)); }
                        if (nu_k > 0) {
                            mem_fence(CLK_GLOBAL_MEM_FENCE);
                            atomic_xchg(&nu_fl[nu_k], 1u);
                            nu_it nu_j = nu_k - 1;
                            for (;;) {
                                uint nu_f = atomic_or(&nu_fl[nu_j], 0u);
                                if (nu_f == 2u) break;
                                if (nu_f == 1u) nu_j--;
                            }
                            mem_fence(CLK_GLOBAL_MEM_FENCE);
                            union { $T12 v; ulong w; } nu_unu_si0; nu_unu_si0.w = (ulong)nu_poll(&nu_si0[2 * (nu_j)]) | ((ulong)nu_poll(&nu_si0[2 * (nu_j) + 1]) << 32); nu_px0 = nu_unu_si0.v;
                            for (nu_it nu_i = nu_j + 1; nu_i < nu_k; nu_i++) {
                                union { $T12 v; ulong w; } nu_unu_sa0; nu_unu_sa0.w = (ulong)nu_poll(&nu_sa0[2 * (nu_i)]) | ((ulong)nu_poll(&nu_sa0[2 * (nu_i) + 1]) << 32); $T12 nu_y0 = nu_unu_sa0.v;
                                nu_px0 = $O12(add)[nu_px0, nu_y0];
                            }
                        }
                        { union { $T12 v; ulong w; } nu_u; nu_u.w = 0; nu_u.v = $O12(add)[nu_px0, nu_run0]; atomic_xchg(&nu_si0[2 * nu_k], (uint)nu_u.w); atomic_xchg(&nu_si0[2 * nu_k + 1], (uint)(nu_u.w >> 32)); }
                        mem_fence(CLK_GLOBAL_MEM_FENCE);
                        if (nu_k % nu_ev == 0) atomic_xchg(&nu_fl[nu_k], 2u);
                        nu_sl0[nu_L] = nu_px0;
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
                    {
                    $T12 run = $O12(add)[nu_sl0[nu_L], nu_sl0[nu_li]];
                    for (nu_it nu_t = nu_a; nu_t < nu_b; nu_t++) {
                        nu_idx nu_g0 = (nu_idx)nu_t;
                        do {
                            $T1 i_1 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                            nu_st_excl(excl, excl__d0, i_1, run, NU_C$Q1, $Q1u, nu_err);
                            if (nu_ld_a(a, a__d0, i_1, NU_C$Q0, $Q0u, nu_err) > $L4(2)) {
                                run = $O12(add)[run, (($T12)(nu_ld_a(a, a__d0, i_1, NU_C$Q0, $Q0u, nu_err)))];
                            }
                            total = $O13(add)[total, (($T13)($L8(1)))];
                        } while (0);
                    }
                    }
                    }
            #else
                while ((ulong)nu_k * nu_TT < (ulong)nu_N) {
                    nu_it nu_lo = nu_k * nu_TT, nu_hi = nu_lo + min(nu_TT, nu_N - nu_lo), nu_cnt = nu_hi - nu_lo;
                    uint nu_nx = 0;
                    if (nu_li == 0) nu_nx = atomic_inc(&nu_tf[0]);
            #if NU_PRED_ROWS
                    for (nu_it nu_eb = nu_li; nu_eb < nu_cnt; nu_eb += 4 * nu_L) {
                        $T12 nu_q0[4];
                        NU_UNROLL
                        for (uint nu_u = 0; nu_u < 4; nu_u++) {
                            nu_it nu_e = nu_eb + nu_u * nu_L;
                            if (nu_e < nu_cnt) {
                                nu_it nu_t = nu_lo + nu_e;
                                $T12 run = nu_id0;
                                nu_idx nu_g0 = (nu_idx)nu_t;
                                do {
                                    $T1 i_2 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                                    if (nu_ld_a(a, a__d0, i_2, NU_C$Q0, $Q0u, nu_err) > $L4(2)) {
                                        run = $O12(add)[run, (($T12)(nu_ld_a(a, a__d0, i_2, NU_C$Q0, $Q0u, nu_err)))];
                                    }
                                } while (0);
                                nu_q0[nu_u] = run;
                            }
                        }
                        NU_UNROLL
                        for (uint nu_u = 0; nu_u < 4; nu_u++) {
                            nu_it nu_e = nu_eb + nu_u * nu_L;
                            if (nu_e < nu_cnt) {
                                nu_sl0[(nu_e) + (nu_e) / 32] = nu_q0[nu_u];
                            }
                        }
                    }
            #else
                    {
                        nu_it nu_full = nu_cnt - nu_cnt % (4 * nu_L);
                        for (nu_it nu_eb = nu_li; nu_eb < nu_full; nu_eb += 4 * nu_L) {
                            $T12 nu_q0[4];
                            NU_UNROLL
                            for (uint nu_u = 0; nu_u < 4; nu_u++) {
                                nu_it nu_e = nu_eb + nu_u * nu_L;
                                nu_it nu_t = nu_lo + nu_e;
                                $T12 run = nu_id0;
                                nu_idx nu_g0 = (nu_idx)nu_t;
                                do {
                                    $T1 i_3 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                                    if (nu_ld_a(a, a__d0, i_3, NU_C$Q0, $Q0u, nu_err) > $L4(2)) {
                                        run = $O12(add)[run, (($T12)(nu_ld_a(a, a__d0, i_3, NU_C$Q0, $Q0u, nu_err)))];
                                    }
                                } while (0);
                                nu_q0[nu_u] = run;
                            }
                            NU_UNROLL
                            for (uint nu_u = 0; nu_u < 4; nu_u++) {
                                nu_it nu_e = nu_eb + nu_u * nu_L;
                                if (1) {
                                    nu_sl0[(nu_e) + (nu_e) / 32] = nu_q0[nu_u];
                                }
                            }
                        }
                        for (nu_it nu_e = nu_full + nu_li; nu_e < nu_cnt; nu_e += nu_L) {
                            nu_it nu_t = nu_lo + nu_e;
                            const uint nu_u = 0;
                            $T12 nu_q0[1];
                            $T12 run = nu_id0;
                            nu_idx nu_g0 = (nu_idx)nu_t;
                            do {
                                $T1 i_4 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                                if (nu_ld_a(a, a__d0, i_4, NU_C$Q0, $Q0u, nu_err) > $L4(2)) {
                                    run = $O12(add)[run, (($T12)(nu_ld_a(a, a__d0, i_4, NU_C$Q0, $Q0u, nu_err)))];
                                }
                            } while (0);
                            nu_q0[nu_u] = run;
                            nu_sl0[(nu_e) + (nu_e) / 32] = nu_q0[nu_u];
                        }
                    }
            #endif
                    $T12 nu_tot0;
                    barrier(CLK_LOCAL_MEM_FENCE);
                    {
                    nu_it nu_ln = nu_li % 32, nu_wp = nu_li / 32, nu_W = (nu_L + 31) / 32;
                    nu_it nu_last = min((nu_it)31, nu_L - 1 - nu_wp * 32);
            #if NU_SHFL
                    int nu_sh = nu_L % 32 == 0 && NU_WARPED;
            #endif
                    nu_it nu_K = (nu_cnt + nu_L - 1) / nu_L, nu_a = min(nu_li * nu_K, nu_cnt), nu_b = min(nu_a + nu_K, nu_cnt), nu_wt = nu_P + 1;
                    $T12 nu_v0 = nu_id0, nu_y0;
                    for (nu_it nu_i = nu_a; nu_i < nu_b; nu_i++) {
                        nu_v0 = $O12(add)[nu_v0, nu_sl0[(nu_i) + (nu_i) / 32]];
                    }
                    for (uint nu_d = 1; nu_d < 32; nu_d *= 2) {
            #if NU_SHFL
                        if (nu_sh) {
                            nu_y0 = nu_shfl_up(nu_v0, nu_d);
                        } else
            #endif
                        {
                            nu_sl0[nu_P + 33 + nu_li] = nu_v0;
                            barrier(CLK_LOCAL_MEM_FENCE);
                            nu_y0 = nu_ln >= nu_d ? nu_sl0[nu_P + 33 + nu_li - nu_d] : nu_v0;
                            barrier(CLK_LOCAL_MEM_FENCE);
                        }
                        if (nu_ln >= nu_d) nu_v0 = $O12(add)[nu_y0, nu_v0];
                    }
                    if (nu_ln == nu_last) nu_sl0[nu_wt + nu_wp] = nu_v0;
            #if NU_SHFL
                    if (nu_sh) {
                        nu_y0 = nu_shfl_up(nu_v0, 1u);
                    } else
            #endif
                    {
                        nu_sl0[nu_P + 33 + nu_li] = nu_v0;
                        barrier(CLK_LOCAL_MEM_FENCE);
                        nu_y0 = nu_ln >= 1u ? nu_sl0[nu_P + 33 + nu_li - 1u] : nu_v0;
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                    $T12 nu_vx0 = nu_ln == 0 ? nu_id0 : nu_y0;
                    barrier(CLK_LOCAL_MEM_FENCE);
                    $T12 nu_u0 = nu_ln < nu_W ? nu_sl0[nu_wt + nu_ln] : nu_id0;
                    for (uint nu_d = 1; nu_d < 32; nu_d *= 2) {
            #if NU_SHFL
                        if (nu_sh) {
                            nu_y0 = nu_shfl_up(nu_u0, nu_d);
                        } else
            #endif
                        {
                            nu_sl0[nu_P + 33 + nu_li] = nu_u0;
                            barrier(CLK_LOCAL_MEM_FENCE);
                            nu_y0 = nu_ln >= nu_d ? nu_sl0[nu_P + 33 + nu_li - nu_d] : nu_u0;
                            barrier(CLK_LOCAL_MEM_FENCE);
                        }
                        if (nu_ln >= nu_d) nu_u0 = $O12(add)[nu_y0, nu_u0];
                    }
            #if NU_SHFL
                    if (nu_sh) {
                        nu_y0 = nu_shfl_up(nu_u0, 1u);
                    } else
            #endif
                    {
                        nu_sl0[nu_P + 33 + nu_li] = nu_u0;
                        barrier(CLK_LOCAL_MEM_FENCE);
                        nu_y0 = nu_ln >= 1u ? nu_sl0[nu_P + 33 + nu_li - 1u] : nu_u0;
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                    $T12 nu_ux0 = nu_ln == 0 ? nu_id0 : nu_y0;
                    $T12 nu_pre0;
            #if NU_SHFL
                    if (nu_sh) {
                        nu_pre0 = nu_shfl_idx(nu_ux0, (uint)(nu_wp));
                    } else
            #endif
                    {
                        nu_sl0[nu_P + 33 + nu_li] = nu_ux0;
                        barrier(CLK_LOCAL_MEM_FENCE);
                        nu_pre0 = nu_sl0[nu_P + 33 + nu_wp];
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                    $T12 nu_row0;
            #if NU_SHFL
                    if (nu_sh) {
                        nu_row0 = nu_shfl_idx(nu_u0, (uint)(nu_W - 1));
                    } else
            #endif
                    {
                        nu_sl0[nu_P + 33 + nu_li] = nu_u0;
                        barrier(CLK_LOCAL_MEM_FENCE);
                        nu_row0 = nu_sl0[nu_P + 33 + nu_W - 1];
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                    $T12 nu_p0 = $O12(add)[nu_pre0, nu_vx0];
                    for (nu_it nu_i = nu_a; nu_i < nu_b; nu_i++) {
                        { $T12 nu_x0 = nu_sl0[(nu_i) + (nu_i) / 32]; nu_sl0[(nu_i) + (nu_i) / 32] = nu_p0; nu_p0 = $O12(add)[nu_p0, nu_x0]; }
                    }
                    nu_tot0 = nu_row0;
                    }
            #if NU_PACKED
                    if ((sizeof($T12) <= 4) & (($T12)0.5f == ($T12)0)) {
                        volatile global ulong* nu_pw = (volatile global ulong*)nu_si0;
                        $T12 nu_px0 = nu_id0;
                        if (nu_li == 0) {
                            uint nu_ab; { union { $T12 v; uint w; } nu_b; nu_b.w = 0u; nu_b.v = nu_tot0; nu_ab = nu_b.w; }
                            nu_sa0[2 * nu_k] = nu_ab; nu_sa0[2 * nu_k + 1] = 0u;
                            if (nu_k > 0) nu_pub64(&nu_pw[nu_k], (ulong)nu_ab << 32 | 1u);
                        }
                        uint nu_sb; { union { $T12 v; uint w; } nu_b; nu_b.w = 0u; nu_b.v = nu_s00; nu_sb = nu_b.w; }
                        ulong nu_ws = (ulong)nu_sb << 32 | 2u;
                        nu_it nu_lw = nu_L, nu_j = nu_k;
                        for (;;) {
                            ulong nu_w = 0;
                            if (nu_li == 0) nu_tl[1] = 2 * nu_lw;
                            barrier(CLK_LOCAL_MEM_FENCE);
                            if (nu_li < nu_lw) {
                                nu_w = nu_li < nu_j ? nu_poll64(&nu_pw[nu_j - 1 - nu_li]) : nu_ws;
                                uint nu_f = (uint)nu_w;
                                if (nu_f != 1u) atomic_min(&nu_tl[1], (uint)(2 * nu_li) + (nu_f == 0u));
                            }
                            barrier(CLK_LOCAL_MEM_FENCE);
                            uint nu_m = nu_tl[1];
                            barrier(CLK_LOCAL_MEM_FENCE);
                            nu_it nu_c = nu_m / 2 + (nu_m % 2 == 0 && nu_m < 2 * nu_lw);
                            $T12 nu_v0;
                            { union { $T12 v; uint w; } nu_b; nu_b.w = (uint)(nu_w >> 32); nu_v0 = nu_b.v; }
                            if (nu_c == 1) {
                                if (nu_li == 0) nu_px0 = $O12(add)[nu_px0, nu_v0];
                            } else if (nu_c > 1) {
                                if (nu_li < nu_c) nu_sl0[nu_P + 33 + nu_li] = nu_v0;
                                barrier(CLK_LOCAL_MEM_FENCE);
                                nu_it nu_h = 1;
                                while (2 * nu_h < nu_c) nu_h *= 2;
                                for (; nu_h > 0; nu_h /= 2) {
                                    if (nu_li < nu_h && nu_li + nu_h < nu_c) {
                                        nu_sl0[nu_P + 33 + nu_li] = $O12(add)[nu_sl0[nu_P + 33 + nu_li], nu_sl0[nu_P + 33 + nu_li + nu_h]];
                                    }
                                    barrier(CLK_LOCAL_MEM_FENCE);
                                }
                                if (nu_li == 0) nu_px0 = $O12(add)[nu_px0, nu_sl0[nu_P + 33]];
                            }
                            nu_j -= nu_m / 2;
                            if (nu_m % 2 == 0 && nu_m < 2 * nu_lw) break;
                        }
                        if (nu_li == 0) {
                            uint nu_ib; { union { $T12 v; uint w; } nu_b; nu_b.w = 0u; nu_b.v = $O12(add)[nu_px0, nu_tot0]; nu_ib = nu_b.w; }
                            if (nu_k % nu_ev == 0) nu_pub64(&nu_pw[nu_k], (ulong)nu_ib << 32 | 2u);
                            nu_sl0[nu_P] = nu_px0;
                        }
                    } else
            #endif
                    {
                        volatile global uint* nu_fl = (volatile global uint*)nu_tf + 1;
                        $T12 nu_px0 = nu_s00;
                        if (nu_li == 0) {
                            { union { $T12 v; ulong w; } nu_u; nu_u.w = 0; nu_u.v = nu_tot0; atomic_xchg(&nu_sa0[2 * nu_k], (uint)nu_u.w); atomic_xchg(&nu_sa0[2 * nu_k + 1], (uint)(nu_u.w >> 32)); }
                            if (nu_k > 0) nu_flag_rel(&nu_fl[nu_k], 1u);
                        }
                        nu_it nu_lw = nu_L, nu_j = nu_k;
                        for (;;) {
                            if (nu_li == 0) nu_tl[1] = 2 * nu_lw;
                            barrier(CLK_LOCAL_MEM_FENCE);
                            if (nu_li < nu_lw) {
                                uint nu_f = nu_li < nu_j ? nu_poll_acq(&nu_fl[nu_j - 1 - nu_li]) : 2u;
                                if (nu_f != 1u) atomic_min(&nu_tl[1], (uint)(2 * nu_li) + (nu_f == 0u));
                            }
                            barrier(CLK_LOCAL_MEM_FENCE);
                            uint nu_m = nu_tl[1];
                            barrier(CLK_LOCAL_MEM_FENCE);
                            nu_j -= nu_m / 2;
                            if (nu_m % 2 == 0 && nu_m < 2 * nu_lw) break;
                        }
                        if (nu_li == 0 && nu_j > 0) {
                            union { $T12 v; ulong w; } nu_unu_si0; nu_unu_si0.w = (ulong)nu_poll(&nu_si0[2 * (nu_j - 1)]) | ((ulong)nu_poll(&nu_si0[2 * (nu_j - 1) + 1]) << 32); nu_px0 = nu_unu_si0.v;
                        }
                        if ((($T12)0.5f == ($T12)0)) {
                            nu_it nu_c = min(nu_lw, nu_k - nu_j);
                            if (nu_c > 0) {
                                if (nu_li < nu_c) {
                                    union { $T12 v; ulong w; } nu_unu_sa0; nu_unu_sa0.w = (ulong)nu_poll(&nu_sa0[2 * (nu_j + nu_li)]) | ((ulong)nu_poll(&nu_sa0[2 * (nu_j + nu_li) + 1]) << 32); $T12 nu_wq0 = nu_unu_sa0.v;
                                    for (nu_it nu_i = nu_j + nu_li + nu_lw; nu_i < nu_k; nu_i += nu_lw) {
                                        union { $T12 v; ulong w; } nu_unu_sa0; nu_unu_sa0.w = (ulong)nu_poll(&nu_sa0[2 * (nu_i)]) | ((ulong)nu_poll(&nu_sa0[2 * (nu_i) + 1]) << 32); $T12 nu_y0 = nu_unu_sa0.v; nu_wq0 = $O12(add)[nu_wq0, nu_y0];
                                    }
                                    nu_sl0[nu_P + 33 + nu_li] = nu_wq0;
                                }
                                barrier(CLK_LOCAL_MEM_FENCE);
                                nu_it nu_h = 1;
                                while (2 * nu_h < nu_c) nu_h *= 2;
                                for (; nu_h > 0; nu_h /= 2) {
                                    if (nu_li < nu_h && nu_li + nu_h < nu_c) {
                                        nu_sl0[nu_P + 33 + nu_li] = $O12(add)[nu_sl0[nu_P + 33 + nu_li], nu_sl0[nu_P + 33 + nu_li + nu_h]];
                                    }
                                    barrier(CLK_LOCAL_MEM_FENCE);
                                }
                                if (nu_li == 0) {
                                    nu_px0 = $O12(add)[nu_px0, nu_sl0[nu_P + 33]];
                                }
                            }
                        } else {
                            for (nu_it nu_wb = nu_j; nu_wb < nu_k; nu_wb += nu_lw) {
                                nu_it nu_wn = min(nu_lw, nu_k - nu_wb);
                                if (nu_li < nu_wn) {
                                    union { $T12 v; ulong w; } nu_unu_sa0; nu_unu_sa0.w = (ulong)nu_poll(&nu_sa0[2 * (nu_wb + nu_li)]) | ((ulong)nu_poll(&nu_sa0[2 * (nu_wb + nu_li) + 1]) << 32); $T12 nu_y0 = nu_unu_sa0.v;
                                    nu_sl0[nu_P + 33 + nu_li] = nu_y0;
                                }
                                barrier(CLK_LOCAL_MEM_FENCE);
                                if (nu_li == 0) for (nu_it nu_i = 0; nu_i < nu_wn; nu_i++) {
                                    nu_px0 = $O12(add)[nu_px0, nu_sl0[nu_P + 33 + nu_i]];
                                }
                                barrier(CLK_LOCAL_MEM_FENCE);
                            }
                        }
                        if (nu_li == 0) {
                            { union { $T12 v; ulong w; } nu_u; nu_u.w = 0; nu_u.v = $O12(add)[nu_px0, nu_tot0]; atomic_xchg(&nu_si0[2 * nu_k], (uint)nu_u.w); atomic_xchg(&nu_si0[2 * nu_k + 1], (uint)(nu_u.w >> 32)); }
                            nu_sl0[nu_P] = nu_px0;
                            if (nu_k % nu_ev == 0) nu_flag_rel(&nu_fl[nu_k], 2u);
                        }
                    }
                    barrier(CLK_LOCAL_MEM_FENCE);
            #if NU_PRED_ROWS
                    for (nu_it nu_eb = nu_li; nu_eb < nu_cnt; nu_eb += 4 * nu_L) {
                        NU_UNROLL
                        for (uint nu_u = 0; nu_u < 4; nu_u++) {
                            nu_it nu_e = nu_eb + nu_u * nu_L;
                            if (nu_e < nu_cnt) {
                                nu_it nu_t = nu_lo + nu_e;
                                $T12 run = $O12(add)[nu_sl0[nu_P], nu_sl0[(nu_e) + (nu_e) / 32]];
                                nu_idx nu_g0 = (nu_idx)nu_t;
                                do {
                                    $T1 i_5 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                                    nu_st_excl(excl, excl__d0, i_5, run, NU_C$Q1, $Q1u, nu_err);
                                    if (nu_ld_a(a, a__d0, i_5, NU_C$Q0, $Q0u, nu_err) > $L4(2)) {
                                        run = $O12(add)[run, (($T12)(nu_ld_a(a, a__d0, i_5, NU_C$Q0, $Q0u, nu_err)))];
                                    }
                                    total = $O13(add)[total, (($T13)($L8(1)))];
                                } while (0);
                            }
                        }
                    }
            #else
                    {
                        nu_it nu_full = nu_cnt - nu_cnt % (4 * nu_L);
                        for (nu_it nu_eb = nu_li; nu_eb < nu_full; nu_eb += 4 * nu_L) {
                            NU_UNROLL
                            for (uint nu_u = 0; nu_u < 4; nu_u++) {
                                nu_it nu_e = nu_eb + nu_u * nu_L;
                                nu_it nu_t = nu_lo + nu_e;
                                $T12 run = $O12(add)[nu_sl0[nu_P], nu_sl0[(nu_e) + (nu_e) / 32]];
                                nu_idx nu_g0 = (nu_idx)nu_t;
                                do {
                                    $T1 i_6 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                                    nu_st_excl(excl, excl__d0, i_6, run, NU_C$Q1, $Q1u, nu_err);
                                    if (nu_ld_a(a, a__d0, i_6, NU_C$Q0, $Q0u, nu_err) > $L4(2)) {
                                        run = $O12(add)[run, (($T12)(nu_ld_a(a, a__d0, i_6, NU_C$Q0, $Q0u, nu_err)))];
                                    }
                                    total = $O13(add)[total, (($T13)($L8(1)))];
                                } while (0);
                            }
                        }
                        for (nu_it nu_e = nu_full + nu_li; nu_e < nu_cnt; nu_e += nu_L) {
                            nu_it nu_t = nu_lo + nu_e;
                            $T12 run = $O12(add)[nu_sl0[nu_P], nu_sl0[(nu_e) + (nu_e) / 32]];
                            nu_idx nu_g0 = (nu_idx)nu_t;
                            do {
                                $T1 i_7 = $O1(add)[nu_s0, $O1(from_int)[nu_g0]];
                                nu_st_excl(excl, excl__d0, i_7, run, NU_C$Q1, $Q1u, nu_err);
                                if (nu_ld_a(a, a__d0, i_7, NU_C$Q0, $Q0u, nu_err) > $L4(2)) {
                                    run = $O12(add)[run, (($T12)(nu_ld_a(a, a__d0, i_7, NU_C$Q0, $Q0u, nu_err)))];
                                }
                                total = $O13(add)[total, (($T13)($L8(1)))];
                            } while (0);
                        }
                    }
            #endif
                    if (nu_li == 0) nu_tl[0] = nu_nx;
                    barrier(CLK_LOCAL_MEM_FENCE);
                    nu_k = nu_tl[0];
                    barrier(CLK_LOCAL_MEM_FENCE);
            #endif
                }
                nu_idx nu_lid = (nu_idx)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
                nu_idx nu_lsz = (nu_idx)(get_local_size(0) * get_local_size(1) * get_local_size(2));
                nu_rl1[nu_lid] = total;
                barrier(CLK_LOCAL_MEM_FENCE);
                nu_idx nu_h = 1;
                while (2 * nu_h < nu_lsz) nu_h *= 2;
            #if NU_SHFL
                if (nu_lsz >= 64 && NU_WARPED) {
                    for (; nu_h >= 32; nu_h /= 2) {
                        if (nu_lid < nu_h && nu_lid + nu_h < nu_lsz) {
                            nu_rl1[nu_lid] = $O13(add)[nu_rl1[nu_lid], nu_rl1[nu_lid + nu_h]];
                        }
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                    if (nu_lid < 32) {
                        $T13 nu_w1 = nu_rl1[nu_lid];
                        for (; nu_h > 0; nu_h /= 2) {
                            $T13 nu_o1 = nu_shfl_down(nu_w1, (uint)nu_h);
                            if (nu_lid < nu_h) {
                                nu_w1 = $O13(add)[nu_w1, nu_o1];
                            }
                        }
                        if (nu_lid == 0) nu_rl1[0] = nu_w1;
                    }
                } else
            #endif
                {
                    for (; nu_h > 0; nu_h /= 2) {
                        if (nu_lid < nu_h && nu_lid + nu_h < nu_lsz) {
                            nu_rl1[nu_lid] = $O13(add)[nu_rl1[nu_lid], nu_rl1[nu_lid + nu_h]];
                        }
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                }
                if (nu_lid == 0) {
                    nu_idx nu_grp = (nu_idx)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2)));
                    nu_rp1[nu_grp] = nu_rl1[0];
                }
            }
        "#]],
    );
}

#[test]
fn vectorised_sgemm() {
    check(
        nuda_transforms::entry::nuwork::template(
            quote!(16, 16; annot!(vector(4); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            }))),
        ),
        expect![[r#"
            $E21 nu_ld_a($P21(a), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0 && nu_i1 < a__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, a__d0, a__d1, 0);
                    $E21 nu_zero = {0};
                    return nu_zero;
                }
                return $D21(a)[(nu_i0) * a__d1 + nu_i1];
            }
            $E22 nu_ld_b($P22(b), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < b__d0 && nu_i1 < b__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, b__d0, b__d1, 0);
                    $E22 nu_zero = {0};
                    return nu_zero;
                }
                return $D22(b)[(nu_i0) * b__d1 + nu_i1];
            }
            $E224 nu_vld4_b_2($P22(b), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (!nu_c || (nu_i0 < b__d0 && nu_i1 < b__d1 && b__d1 - nu_i1 >= 4)) {
                    return vload4(0, &$D22(b)[(nu_i0) * b__d1 + nu_i1]);
                }
                return ($E224)(nu_ld_b(b, b__d0, b__d1, nu_i0, nu_i1, nu_c, nu_s, nu_err), nu_ld_b(b, b__d0, b__d1, nu_i0, nu_i1 + 1, nu_c, nu_s, nu_err), nu_ld_b(b, b__d0, b__d1, nu_i0, nu_i1 + 2, nu_c, nu_s, nu_err), nu_ld_b(b, b__d0, b__d1, nu_i0, nu_i1 + 3, nu_c, nu_s, nu_err));
            }
            void nu_st_c($P23(c), nu_idx nu_i0, nu_idx nu_i1, $E23 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < c__d0 && nu_i1 < c__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, c__d0, c__d1, 0);
                    return;
                }
                $D23(c)[(nu_i0) * c__d1 + nu_i1] = nu_v;
            }
            void nu_vst4_c_2($P23(c), nu_idx nu_i0, nu_idx nu_i1, $E234 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (!nu_c || (nu_i0 < c__d0 && nu_i1 < c__d1 && c__d1 - nu_i1 >= 4)) {
                    vstore4(nu_v, 0, &$D23(c)[(nu_i0) * c__d1 + nu_i1]);
                    return;
                }
                nu_st_c(c, c__d0, c__d1, nu_i0, nu_i1, nu_v.s0, nu_c, nu_s, nu_err);
                nu_st_c(c, c__d0, c__d1, nu_i0, nu_i1 + 1, nu_v.s1, nu_c, nu_s, nu_err);
                nu_st_c(c, c__d0, c__d1, nu_i0, nu_i1 + 2, nu_v.s2, nu_c, nu_s, nu_err);
                nu_st_c(c, c__d0, c__d1, nu_i0, nu_i1 + 3, nu_v.s3, nu_c, nu_s, nu_err);
            }
            kernel void NU_BOUNDS(256) nuwork_0(global uint* restrict nu_err, $T14 nu_s0, $T14 nu_st0, nu_idx nu_n0, $T15 nu_s1, $T15 nu_st1, nu_idx nu_n1, $P20(n), $P21(a), $P22(b), $P23(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T14 i_t = $O14(add)[nu_s0, $O14(from_int)[nu_g0]];
                $T15 j_tile = $O15(add)[nu_s1, $O15(mul)[$O15(from_int)[nu_g1], $Z0(nu_idx:4)]];
                {
                    $T17 j_e = $Z0(nu_idx:0);
                    $T1 i = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                    $T3 j = $O3(add)[$L2(0), $O3(from_int)[$O16(add)[j_tile, j_e]]];
                    $T44 s = (($T44)($Z0(float:0.0)));
                    for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                        s = $O10(add)[s, $O9(mul)[(($T94)(nu_ld_a(a, a__d0, a__d1, k, i, NU_C$Q0, $Q0u, nu_err))), nu_vld4_b_2(b, b__d0, b__d1, k, j, NU_C$Q1, $Q1u, nu_err)]];
                    }
                    nu_vst4_c_2(c, c__d0, c__d1, i, j, s, NU_C$Q2, $Q2u, nu_err);
                }
            }

            kernel void NU_BOUNDS(256) nuwork_1(global uint* restrict nu_err, $T18 nu_s0, $T18 nu_st0, nu_idx nu_n0, $T19 nu_s1, $T19 nu_st1, nu_idx nu_n1, $P20(n), $P21(a), $P22(b), $P23(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T18 i_t = $O18(add)[nu_s0, $O18(from_int)[nu_g0]];
                $T19 j_t = $O19(add)[nu_s1, $O19(from_int)[nu_g1]];
                $T1 i = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                $T3 j = $O3(add)[$L2(0), $O3(from_int)[j_t]];
                $T4 s = $Z0(float:0.0);
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s = $O10(add)[s, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i, NU_C$Q0, $Q0u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j, NU_C$Q1, $Q1u, nu_err)]];
                }
                nu_st_c(c, c__d0, c__d1, i, j, s, NU_C$Q2, $Q2u, nu_err);
            }
        "#]],
    );
}

#[test]
#[allow(clippy::too_many_lines)] // one snapshot: the staged kernel and its remainders
fn staged_sgemm() {
    check(
        nuda_transforms::entry::nuwork::template(
            quote!(16, 16; annot!(tilem(16, 16), stage(a, b, k: 16); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            }))),
        ),
        expect![[r#"
            $E29 nu_lds_a(local $E29* nu_t, nu_idx nu_l, $P29(a), nu_idx nu_i0, nu_idx nu_i1, nu_idx nu_e0, nu_idx nu_e1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0 && nu_i1 < a__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, a__d0, a__d1, 0);
                    $E29 nu_zero = {0};
                    return nu_zero;
                }
                if (nu_i0 == nu_e0 && nu_i1 == nu_e1) return nu_t[nu_l];
                return $D29(a)[(nu_i0) * a__d1 + nu_i1];
            }
            $E30 nu_lds_b(local $E30* nu_t, nu_idx nu_l, $P30(b), nu_idx nu_i0, nu_idx nu_i1, nu_idx nu_e0, nu_idx nu_e1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < b__d0 && nu_i1 < b__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, b__d0, b__d1, 0);
                    $E30 nu_zero = {0};
                    return nu_zero;
                }
                if (nu_i0 == nu_e0 && nu_i1 == nu_e1) return nu_t[nu_l];
                return $D30(b)[(nu_i0) * b__d1 + nu_i1];
            }
            $E29 nu_ld_a($P29(a), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0 && nu_i1 < a__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, a__d0, a__d1, 0);
                    $E29 nu_zero = {0};
                    return nu_zero;
                }
                return $D29(a)[(nu_i0) * a__d1 + nu_i1];
            }
            $E30 nu_ld_b($P30(b), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < b__d0 && nu_i1 < b__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, b__d0, b__d1, 0);
                    $E30 nu_zero = {0};
                    return nu_zero;
                }
                return $D30(b)[(nu_i0) * b__d1 + nu_i1];
            }
            void nu_st_c($P31(c), nu_idx nu_i0, nu_idx nu_i1, $E31 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < c__d0 && nu_i1 < c__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, c__d0, c__d1, 0);
                    return;
                }
                $D31(c)[(nu_i0) * c__d1 + nu_i1] = nu_v;
            }
            kernel void NU_GROUP(16, 16, 1) nuwork_0(global uint* restrict nu_err, $T18 nu_s0, $T18 nu_st0, nu_idx nu_n0, $T19 nu_s1, $T19 nu_st1, nu_idx nu_n1, $P28(n), $P29(a), $P30(b), $P31(c)) {
                nu_idx nu_g0 = get_group_id(0);
                nu_idx nu_g1 = get_group_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T18 i_tile = $O18(add)[nu_s0, $O18(mul)[$O18(from_int)[nu_g0], nu_st0]];
                $T19 j_tile = $O19(add)[nu_s1, $O19(mul)[$O19(from_int)[nu_g1], nu_st1]];
                local $E29 nu_stage_a[256];
                nu_idx nu_stage_a_o0 = 0, nu_stage_a_o1 = 0;
                local $E30 nu_stage_b[256];
                nu_idx nu_stage_b_o0 = 0, nu_stage_b_o1 = 0;
                $T20 i_e = $O20(from_int)[get_local_id(0)];
                $T22 j_e = $O22(from_int)[get_local_id(1)];
                nu_idx nu_lid = get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2));
                $T1 i = $O1(add)[$L0(0), $O1(from_int)[$O21(add)[i_tile, i_e]]];
                $T3 j = $O3(add)[$L2(0), $O3(from_int)[$O23(add)[j_tile, j_e]]];
                $T4 s = $Z0(float:0.0);
                {
                    $T6 nu_ka = $L5(0), nu_ks = $O6(from_int)[1];
                    nu_idx nu_kn = $O6(trips)[$L5(0), n, $O6(from_int)[1], 0, NU_C$Q0, $Q0u];
                    for (nu_idx nu_kt = 0; nu_kt + 16 <= nu_kn; nu_kt += 16) {
                        barrier(CLK_LOCAL_MEM_FENCE);
                        {
                            $T6 nu_k0 = $O6(add)[nu_ka, $O6(mul)[$O6(from_int)[nu_kt], nu_ks]];
                            nu_stage_a_o0 = (nu_idx)(nu_k0);
                            nu_stage_a_o1 = (nu_idx)(i) - (nu_idx)(i_e);
                            NU_UNROLL
                            for (nu_idx nu_c = 0; nu_c < 1; nu_c++) {
                                nu_idx nu_f = nu_lid + nu_c * 256;
                                nu_idx nu_x0 = nu_stage_a_o0 + nu_f / 16 % 16;
                                nu_idx nu_x1 = nu_stage_a_o1 + nu_f / 1 % 16;
                                if (nu_x0 < a__d0 && nu_x1 < a__d1) nu_stage_a[nu_f] = $D29(a)[(nu_x0) * a__d1 + nu_x1];
                            }
                            nu_stage_b_o0 = (nu_idx)(nu_k0);
                            nu_stage_b_o1 = (nu_idx)(j) - (nu_idx)(j_e);
                            NU_UNROLL
                            for (nu_idx nu_c = 0; nu_c < 1; nu_c++) {
                                nu_idx nu_f = nu_lid + nu_c * 256;
                                nu_idx nu_x0 = nu_stage_b_o0 + nu_f / 16 % 16;
                                nu_idx nu_x1 = nu_stage_b_o1 + nu_f / 1 % 16;
                                if (nu_x0 < b__d0 && nu_x1 < b__d1) nu_stage_b[nu_f] = $D30(b)[(nu_x0) * b__d1 + nu_x1];
                            }
                        }
                        barrier(CLK_LOCAL_MEM_FENCE);
                        NU_UNROLL
                        for (nu_idx nu_ke = 0; nu_ke < 16; nu_ke++) {
                            $T6 k = $O6(add)[nu_ka, $O6(mul)[$O6(from_int)[nu_kt + nu_ke], nu_ks]];
                            s = $O10(add)[s, $O9(mul)[nu_lds_a(nu_stage_a + (nu_idx)(i_e), ((0) * 16 + nu_ke + 0) * 16 + 0, a, a__d0, a__d1, k, i, nu_stage_a_o0 + nu_ke + 0, nu_stage_a_o1 + (nu_idx)(i_e) + 0, NU_C$Q1, $Q1u, nu_err), nu_lds_b(nu_stage_b + (nu_idx)(j_e), ((0) * 16 + nu_ke + 0) * 16 + 0, b, b__d0, b__d1, k, j, nu_stage_b_o0 + nu_ke + 0, nu_stage_b_o1 + (nu_idx)(j_e) + 0, NU_C$Q2, $Q2u, nu_err)]];
                        }
                    }
                    for (nu_idx nu_kr = nu_kn / 16 * 16; nu_kr < nu_kn; nu_kr++) {
                        $T6 k_1 = $O6(add)[nu_ka, $O6(mul)[$O6(from_int)[nu_kr], nu_ks]];
                        s = $O10(add)[s, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k_1, i, NU_C$Q1, $Q1u, nu_err), nu_ld_b(b, b__d0, b__d1, k_1, j, NU_C$Q2, $Q2u, nu_err)]];
                    }
                }
                nu_st_c(c, c__d0, c__d1, i, j, s, NU_C$Q3, $Q3u, nu_err);
            }

            kernel void NU_BOUNDS(256) nuwork_1(global uint* restrict nu_err, $T24 nu_s0, $T24 nu_st0, nu_idx nu_n0, $T25 nu_s1, $T25 nu_st1, nu_idx nu_n1, $P28(n), $P29(a), $P30(b), $P31(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T24 i_t = $O24(add)[nu_s0, $O24(from_int)[nu_g0]];
                $T25 j_t = $O25(add)[nu_s1, $O25(from_int)[nu_g1]];
                $T1 i = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                $T3 j = $O3(add)[$L2(0), $O3(from_int)[j_t]];
                $T4 s = $Z0(float:0.0);
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s = $O10(add)[s, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i, NU_C$Q1, $Q1u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j, NU_C$Q2, $Q2u, nu_err)]];
                }
                nu_st_c(c, c__d0, c__d1, i, j, s, NU_C$Q3, $Q3u, nu_err);
            }

            kernel void NU_BOUNDS(256) nuwork_2(global uint* restrict nu_err, $T26 nu_s0, $T26 nu_st0, nu_idx nu_n0, $T27 nu_s1, $T27 nu_st1, nu_idx nu_n1, $P28(n), $P29(a), $P30(b), $P31(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T26 i_t = $O26(add)[nu_s0, $O26(from_int)[nu_g0]];
                $T27 j_t = $O27(add)[nu_s1, $O27(from_int)[nu_g1]];
                $T1 i = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                $T3 j = $O3(add)[$L2(0), $O3(from_int)[j_t]];
                $T4 s = $Z0(float:0.0);
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s = $O10(add)[s, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i, NU_C$Q1, $Q1u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j, NU_C$Q2, $Q2u, nu_err)]];
                }
                nu_st_c(c, c__d0, c__d1, i, j, s, NU_C$Q3, $Q3u, nu_err);
            }
        "#]],
    );
}

#[test]
#[allow(clippy::too_many_lines)] // one snapshot: the staged vector kernel and its remainders
fn staged_vector_sgemm() {
    check(
        nuda_transforms::entry::nuwork::template(
            quote!(16, 16; annot!(tilem(64, 64), stage(a, b, k: 16), dmine(4, 1), vector(4); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            }))),
        ),
        expect![[r#"
            $E40 nu_lds_a(local $E40* nu_t, nu_idx nu_l, $P40(a), nu_idx nu_i0, nu_idx nu_i1, nu_idx nu_e0, nu_idx nu_e1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0 && nu_i1 < a__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, a__d0, a__d1, 0);
                    $E40 nu_zero = {0};
                    return nu_zero;
                }
                if (nu_i0 == nu_e0 && nu_i1 == nu_e1) return nu_t[nu_l];
                return $D40(a)[(nu_i0) * a__d1 + nu_i1];
            }
            $E41 nu_ld_b($P41(b), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < b__d0 && nu_i1 < b__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, b__d0, b__d1, 0);
                    $E41 nu_zero = {0};
                    return nu_zero;
                }
                return $D41(b)[(nu_i0) * b__d1 + nu_i1];
            }
            $E414 nu_vld4_b_2($P41(b), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (!nu_c || (nu_i0 < b__d0 && nu_i1 < b__d1 && b__d1 - nu_i1 >= 4)) {
                    return vload4(0, &$D41(b)[(nu_i0) * b__d1 + nu_i1]);
                }
                return ($E414)(nu_ld_b(b, b__d0, b__d1, nu_i0, nu_i1, nu_c, nu_s, nu_err), nu_ld_b(b, b__d0, b__d1, nu_i0, nu_i1 + 1, nu_c, nu_s, nu_err), nu_ld_b(b, b__d0, b__d1, nu_i0, nu_i1 + 2, nu_c, nu_s, nu_err), nu_ld_b(b, b__d0, b__d1, nu_i0, nu_i1 + 3, nu_c, nu_s, nu_err));
            }
            $E414 nu_vlds4_b_2_1(local $E41* nu_t, nu_idx nu_l, $P41(b), nu_idx nu_i0, nu_idx nu_i1, nu_idx nu_e0, nu_idx nu_e1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_i0 == nu_e0 && nu_i1 == nu_e1 && (!nu_c || (nu_i0 < b__d0 && nu_i1 < b__d1 && b__d1 - nu_i1 >= 4))) {
                    return vload4(0, nu_t + nu_l);
                }
                return nu_vld4_b_2(b, b__d0, b__d1, nu_i0, nu_i1, nu_c, nu_s, nu_err);
            }
            $E40 nu_ld_a($P40(a), nu_idx nu_i0, nu_idx nu_i1, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < a__d0 && nu_i1 < a__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, a__d0, a__d1, 0);
                    $E40 nu_zero = {0};
                    return nu_zero;
                }
                return $D40(a)[(nu_i0) * a__d1 + nu_i1];
            }
            void nu_st_c($P42(c), nu_idx nu_i0, nu_idx nu_i1, $E42 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (nu_c && !(nu_i0 < c__d0 && nu_i1 < c__d1)) {
                    nu_fault(nu_err, nu_s, 0u, nu_i0, nu_i1, 0, c__d0, c__d1, 0);
                    return;
                }
                $D42(c)[(nu_i0) * c__d1 + nu_i1] = nu_v;
            }
            void nu_vst4_c_2($P42(c), nu_idx nu_i0, nu_idx nu_i1, $E424 nu_v, int nu_c, uint nu_s, global uint* nu_err) {
                if (!nu_c || (nu_i0 < c__d0 && nu_i1 < c__d1 && c__d1 - nu_i1 >= 4)) {
                    vstore4(nu_v, 0, &$D42(c)[(nu_i0) * c__d1 + nu_i1]);
                    return;
                }
                nu_st_c(c, c__d0, c__d1, nu_i0, nu_i1, nu_v.s0, nu_c, nu_s, nu_err);
                nu_st_c(c, c__d0, c__d1, nu_i0, nu_i1 + 1, nu_v.s1, nu_c, nu_s, nu_err);
                nu_st_c(c, c__d0, c__d1, nu_i0, nu_i1 + 2, nu_v.s2, nu_c, nu_s, nu_err);
                nu_st_c(c, c__d0, c__d1, nu_i0, nu_i1 + 3, nu_v.s3, nu_c, nu_s, nu_err);
            }
            kernel void NU_GROUP(16, 16, 1) nuwork_0(global uint* restrict nu_err, $T21 nu_s0, $T21 nu_st0, nu_idx nu_n0, $T22 nu_s1, $T22 nu_st1, nu_idx nu_n1, $P39(n), $P40(a), $P41(b), $P42(c)) {
                nu_idx nu_g0 = get_group_id(0);
                nu_idx nu_g1 = get_group_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T21 i_tile = $O21(add)[nu_s0, $O21(mul)[$O21(from_int)[nu_g0], nu_st0]];
                $T22 j_tile = $O22(add)[nu_s1, $O22(mul)[$O22(from_int)[nu_g1], nu_st1]];
                local $E40 nu_stage_a[1024];
                nu_idx nu_stage_a_o0 = 0, nu_stage_a_o1 = 0;
                local $E41 nu_stage_b[1024];
                nu_idx nu_stage_b_o0 = 0, nu_stage_b_o1 = 0;
                $T30 i_e_t = $O30(from_int)[get_local_id(0) * 4];
                $T33 j_e_t_v = $O33(from_int)[get_local_id(1) * 4];
                nu_idx nu_lid = get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2));
                {
                    $T34 j_e_t_l = $Z0(nu_idx:0);
                    $T23 i_e_0_0 = $O23(add)[$Z0(nu_idx:0), $O23(from_int)[i_e_t]];
                    $T23 i_e_1_0 = $O23(add)[$Z0(nu_idx:0), $O23(from_int)[$O27(add)[i_e_t, $Z0(nu_idx:1)]]];
                    $T23 i_e_2_0 = $O23(add)[$Z0(nu_idx:0), $O23(from_int)[$O28(add)[i_e_t, $Z0(nu_idx:2)]]];
                    $T23 i_e_3_0 = $O23(add)[$Z0(nu_idx:0), $O23(from_int)[$O29(add)[i_e_t, $Z0(nu_idx:3)]]];
                    $T25 j_e_0_0 = $O25(add)[$Z0(nu_idx:0), $O25(from_int)[$O32(add)[j_e_t_v, j_e_t_l]]];
                    $T25 j_e_1_0 = $O25(add)[$Z0(nu_idx:0), $O25(from_int)[$O32(add)[j_e_t_v, j_e_t_l]]];
                    $T25 j_e_2_0 = $O25(add)[$Z0(nu_idx:0), $O25(from_int)[$O32(add)[j_e_t_v, j_e_t_l]]];
                    $T25 j_e_3_0 = $O25(add)[$Z0(nu_idx:0), $O25(from_int)[$O32(add)[j_e_t_v, j_e_t_l]]];
                    $T1 i_0_0 = $O1(add)[$L0(0), $O1(from_int)[$O24(add)[i_tile, i_e_0_0]]];
                    $T1 i_1_0 = $O1(add)[$L0(0), $O1(from_int)[$O24(add)[i_tile, i_e_1_0]]];
                    $T1 i_2_0 = $O1(add)[$L0(0), $O1(from_int)[$O24(add)[i_tile, i_e_2_0]]];
                    $T1 i_3_0 = $O1(add)[$L0(0), $O1(from_int)[$O24(add)[i_tile, i_e_3_0]]];
                    $T3 j_0_0 = $O3(add)[$L2(0), $O3(from_int)[$O26(add)[j_tile, j_e_0_0]]];
                    $T3 j_1_0 = $O3(add)[$L2(0), $O3(from_int)[$O26(add)[j_tile, j_e_1_0]]];
                    $T3 j_2_0 = $O3(add)[$L2(0), $O3(from_int)[$O26(add)[j_tile, j_e_2_0]]];
                    $T3 j_3_0 = $O3(add)[$L2(0), $O3(from_int)[$O26(add)[j_tile, j_e_3_0]]];
                    $T44 s_0_0 = (($T44)($Z0(float:0.0)));
                    $T44 s_1_0 = (($T44)($Z0(float:0.0)));
                    $T44 s_2_0 = (($T44)($Z0(float:0.0)));
                    $T44 s_3_0 = (($T44)($Z0(float:0.0)));
                    {
                        $T6 nu_ka = $L5(0), nu_ks = $O6(from_int)[1];
                        nu_idx nu_kn = $O6(trips)[$L5(0), n, $O6(from_int)[1], 0, NU_C$Q0, $Q0u];
                        for (nu_idx nu_kt = 0; nu_kt + 16 <= nu_kn; nu_kt += 16) {
                            barrier(CLK_LOCAL_MEM_FENCE);
                            {
                                $T6 nu_k0 = $O6(add)[nu_ka, $O6(mul)[$O6(from_int)[nu_kt], nu_ks]];
                                nu_stage_a_o0 = (nu_idx)(nu_k0);
                                nu_stage_a_o1 = (nu_idx)(i_0_0) - (nu_idx)(i_e_t);
                                NU_UNROLL
                                for (nu_idx nu_c = 0; nu_c < 1; nu_c++) {
                                    nu_idx nu_f = (nu_lid + nu_c * 256) * 4;
                                    nu_idx nu_x0 = nu_stage_a_o0 + nu_f / 64 % 16;
                                    nu_idx nu_x1 = nu_stage_a_o1 + nu_f / 1 % 64;
                                    if (nu_x0 < a__d0 && nu_x1 < a__d1 && 3 < a__d1 - nu_x1) NU_COPY4(&nu_stage_a[nu_f], &$D40(a)[(nu_x0) * a__d1 + nu_x1]);
                                    else for (nu_idx nu_e = 0; nu_e < 4; nu_e++) if (nu_x0 < a__d0 && nu_x1 < a__d1 && nu_e < a__d1 - nu_x1) nu_stage_a[nu_f + nu_e] = $D40(a)[(nu_x0) * a__d1 + nu_x1 + nu_e];
                                }
                                nu_stage_b_o0 = (nu_idx)(nu_k0);
                                nu_stage_b_o1 = (nu_idx)(j_0_0) - (nu_idx)(j_e_t_v);
                                NU_UNROLL
                                for (nu_idx nu_c = 0; nu_c < 1; nu_c++) {
                                    nu_idx nu_f = (nu_lid + nu_c * 256) * 4;
                                    nu_idx nu_x0 = nu_stage_b_o0 + nu_f / 64 % 16;
                                    nu_idx nu_x1 = nu_stage_b_o1 + nu_f / 1 % 64;
                                    if (nu_x0 < b__d0 && nu_x1 < b__d1 && 3 < b__d1 - nu_x1) NU_COPY4(&nu_stage_b[nu_f], &$D41(b)[(nu_x0) * b__d1 + nu_x1]);
                                    else for (nu_idx nu_e = 0; nu_e < 4; nu_e++) if (nu_x0 < b__d0 && nu_x1 < b__d1 && nu_e < b__d1 - nu_x1) nu_stage_b[nu_f + nu_e] = $D41(b)[(nu_x0) * b__d1 + nu_x1 + nu_e];
                                }
                            }
                            barrier(CLK_LOCAL_MEM_FENCE);
                            NU_UNROLL
                            for (nu_idx nu_ke = 0; nu_ke < 16; nu_ke++) {
                                $T6 k = $O6(add)[nu_ka, $O6(mul)[$O6(from_int)[nu_kt + nu_ke], nu_ks]];
                                s_0_0 = $O10(add)[s_0_0, $O9(mul)[(($T94)(nu_lds_a(nu_stage_a + (nu_idx)(i_e_t), ((0) * 16 + nu_ke + 0) * 64 + 0, a, a__d0, a__d1, k, i_0_0, nu_stage_a_o0 + nu_ke + 0, nu_stage_a_o1 + (nu_idx)(i_e_t) + 0, NU_C$Q1, $Q1u, nu_err))), nu_vlds4_b_2_1(nu_stage_b + (nu_idx)(j_e_t_v), ((0) * 16 + nu_ke + 0) * 64 + 0, b, b__d0, b__d1, k, j_0_0, nu_stage_b_o0 + nu_ke + 0, nu_stage_b_o1 + (nu_idx)(j_e_t_v) + 0, NU_C$Q2, $Q2u, nu_err)]];
                                s_1_0 = $O10(add)[s_1_0, $O9(mul)[(($T94)(nu_lds_a(nu_stage_a + (nu_idx)(i_e_t), ((0) * 16 + nu_ke + 0) * 64 + 1, a, a__d0, a__d1, k, i_1_0, nu_stage_a_o0 + nu_ke + 0, nu_stage_a_o1 + (nu_idx)(i_e_t) + 1, NU_C$Q1, $Q1u, nu_err))), nu_vlds4_b_2_1(nu_stage_b + (nu_idx)(j_e_t_v), ((0) * 16 + nu_ke + 0) * 64 + 0, b, b__d0, b__d1, k, j_1_0, nu_stage_b_o0 + nu_ke + 0, nu_stage_b_o1 + (nu_idx)(j_e_t_v) + 0, NU_C$Q2, $Q2u, nu_err)]];
                                s_2_0 = $O10(add)[s_2_0, $O9(mul)[(($T94)(nu_lds_a(nu_stage_a + (nu_idx)(i_e_t), ((0) * 16 + nu_ke + 0) * 64 + 2, a, a__d0, a__d1, k, i_2_0, nu_stage_a_o0 + nu_ke + 0, nu_stage_a_o1 + (nu_idx)(i_e_t) + 2, NU_C$Q1, $Q1u, nu_err))), nu_vlds4_b_2_1(nu_stage_b + (nu_idx)(j_e_t_v), ((0) * 16 + nu_ke + 0) * 64 + 0, b, b__d0, b__d1, k, j_2_0, nu_stage_b_o0 + nu_ke + 0, nu_stage_b_o1 + (nu_idx)(j_e_t_v) + 0, NU_C$Q2, $Q2u, nu_err)]];
                                s_3_0 = $O10(add)[s_3_0, $O9(mul)[(($T94)(nu_lds_a(nu_stage_a + (nu_idx)(i_e_t), ((0) * 16 + nu_ke + 0) * 64 + 3, a, a__d0, a__d1, k, i_3_0, nu_stage_a_o0 + nu_ke + 0, nu_stage_a_o1 + (nu_idx)(i_e_t) + 3, NU_C$Q1, $Q1u, nu_err))), nu_vlds4_b_2_1(nu_stage_b + (nu_idx)(j_e_t_v), ((0) * 16 + nu_ke + 0) * 64 + 0, b, b__d0, b__d1, k, j_3_0, nu_stage_b_o0 + nu_ke + 0, nu_stage_b_o1 + (nu_idx)(j_e_t_v) + 0, NU_C$Q2, $Q2u, nu_err)]];
                            }
                        }
                        for (nu_idx nu_kr = nu_kn / 16 * 16; nu_kr < nu_kn; nu_kr++) {
                            $T6 k_1 = $O6(add)[nu_ka, $O6(mul)[$O6(from_int)[nu_kr], nu_ks]];
                            s_0_0 = $O10(add)[s_0_0, $O9(mul)[(($T94)(nu_ld_a(a, a__d0, a__d1, k_1, i_0_0, NU_C$Q1, $Q1u, nu_err))), nu_vld4_b_2(b, b__d0, b__d1, k_1, j_0_0, NU_C$Q2, $Q2u, nu_err)]];
                            s_1_0 = $O10(add)[s_1_0, $O9(mul)[(($T94)(nu_ld_a(a, a__d0, a__d1, k_1, i_1_0, NU_C$Q1, $Q1u, nu_err))), nu_vld4_b_2(b, b__d0, b__d1, k_1, j_1_0, NU_C$Q2, $Q2u, nu_err)]];
                            s_2_0 = $O10(add)[s_2_0, $O9(mul)[(($T94)(nu_ld_a(a, a__d0, a__d1, k_1, i_2_0, NU_C$Q1, $Q1u, nu_err))), nu_vld4_b_2(b, b__d0, b__d1, k_1, j_2_0, NU_C$Q2, $Q2u, nu_err)]];
                            s_3_0 = $O10(add)[s_3_0, $O9(mul)[(($T94)(nu_ld_a(a, a__d0, a__d1, k_1, i_3_0, NU_C$Q1, $Q1u, nu_err))), nu_vld4_b_2(b, b__d0, b__d1, k_1, j_3_0, NU_C$Q2, $Q2u, nu_err)]];
                        }
                    }
                    nu_vst4_c_2(c, c__d0, c__d1, i_0_0, j_0_0, s_0_0, NU_C$Q3, $Q3u, nu_err);
                    nu_vst4_c_2(c, c__d0, c__d1, i_1_0, j_1_0, s_1_0, NU_C$Q3, $Q3u, nu_err);
                    nu_vst4_c_2(c, c__d0, c__d1, i_2_0, j_2_0, s_2_0, NU_C$Q3, $Q3u, nu_err);
                    nu_vst4_c_2(c, c__d0, c__d1, i_3_0, j_3_0, s_3_0, NU_C$Q3, $Q3u, nu_err);
                }
            }

            kernel void NU_BOUNDS(256) nuwork_1(global uint* restrict nu_err, $T35 nu_s0, $T35 nu_st0, nu_idx nu_n0, $T36 nu_s1, $T36 nu_st1, nu_idx nu_n1, $P39(n), $P40(a), $P41(b), $P42(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T35 i_t = $O35(add)[nu_s0, $O35(from_int)[nu_g0]];
                $T36 j_t = $O36(add)[nu_s1, $O36(from_int)[nu_g1]];
                $T1 i = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                $T3 j = $O3(add)[$L2(0), $O3(from_int)[j_t]];
                $T4 s = $Z0(float:0.0);
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s = $O10(add)[s, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i, NU_C$Q1, $Q1u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j, NU_C$Q2, $Q2u, nu_err)]];
                }
                nu_st_c(c, c__d0, c__d1, i, j, s, NU_C$Q3, $Q3u, nu_err);
            }

            kernel void NU_BOUNDS(256) nuwork_2(global uint* restrict nu_err, $T37 nu_s0, $T37 nu_st0, nu_idx nu_n0, $T38 nu_s1, $T38 nu_st1, nu_idx nu_n1, $P39(n), $P40(a), $P41(b), $P42(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T37 i_t = $O37(add)[nu_s0, $O37(from_int)[nu_g0]];
                $T38 j_t = $O38(add)[nu_s1, $O38(from_int)[nu_g1]];
                $T1 i = $O1(add)[$L0(0), $O1(from_int)[i_t]];
                $T3 j = $O3(add)[$L2(0), $O3(from_int)[j_t]];
                $T4 s = $Z0(float:0.0);
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s = $O10(add)[s, $O9(mul)[nu_ld_a(a, a__d0, a__d1, k, i, NU_C$Q1, $Q1u, nu_err), nu_ld_b(b, b__d0, b__d1, k, j, NU_C$Q2, $Q2u, nu_err)]];
                }
                nu_st_c(c, c__d0, c__d1, i, j, s, NU_C$Q3, $Q3u, nu_err);
            }
        "#]],
    );
}
