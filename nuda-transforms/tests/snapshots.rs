//! Snapshots of the OpenCL C the macros generate for representative kernels, with template
//! placeholders shown as `$T3` (type of slot 3), `$L4(2.0)` (literal typed by slot 4),
//! `$P6(b)` (parameters of capture `b`) and so on. Update with `UPDATE_EXPECT=1`.

use expect_test::{expect, Expect};
use nuda_transforms::emit::template::render_for_test;
use quote::quote;

fn check(template: syn::Result<String>, want: Expect) {
    want.assert_eq(&render_for_test(&template.unwrap()));
}

#[test]
fn nuwork_array_by_2() {
    check(
        nuda_transforms::nuwork::template(quote!(1, 128; nfor!((i, j) in (n, n) {
            b[(i, j)] = 2.0 * a[(i, j)];
        }))),
        expect![[r#"
        kernel void nuwork($T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $T3 nu_s1, $T3 nu_st1, nu_idx nu_n1, $P6(b), $P7(a)) {
            nu_idx nu_g0 = get_global_id(0);
            nu_idx nu_g1 = get_global_id(1);
            if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
            $T1 i = nu_s0 + ($T1)nu_g0 * nu_st0;
            $T3 j = nu_s1 + ($T3)nu_g1 * nu_st1;
            b[(i) * b__d1 + (j)] = $F5(wrap)($L4(2.0) * a[(i) * a__d1 + (j)]);
        }
    "#]],
    );
}

#[test]
fn nuwork_sgemm_with_a_sequential_inner_loop() {
    check(
        nuda_transforms::nuwork::template(quote!(16, 16; nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        }))),
        expect![[r#"
        kernel void nuwork($T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $T3 nu_s1, $T3 nu_st1, nu_idx nu_n1, $P9(n), $P10(a), $P11(b), $P12(c)) {
            nu_idx nu_g0 = get_global_id(0);
            nu_idx nu_g1 = get_global_id(1);
            if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
            $T1 i = nu_s0 + ($T1)nu_g0 * nu_st0;
            $T3 j = nu_s1 + ($T3)nu_g1 * nu_st1;
            $T4 s = 0.0f;
            for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                s += $F7(wrap)(a[(k) * a__d1 + (i)] * b[(k) * b__d1 + (j)]);
            }
            c[(i) * c__d1 + (j)] = s;
        }
    "#]],
    );
}

#[test]
fn nuwork_three_loops_two_mapped() {
    check(
        nuda_transforms::nuwork::template(quote!(1, 64; nfor!((i, j, k) in (n, m, 1 <> p :/ 2) {
            c[(i, j)] += a[(i, k)];
        }))),
        expect![[r#"
        kernel void nuwork($T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $T3 nu_s1, $T3 nu_st1, nu_idx nu_n1, $P8(p), $P9(c), $P10(a)) {
            nu_idx nu_g0 = get_global_id(0);
            nu_idx nu_g1 = get_global_id(1);
            if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
            $T1 i = nu_s0 + ($T1)nu_g0 * nu_st0;
            $T3 j = nu_s1 + ($T3)nu_g1 * nu_st1;
            {
                $T6 nu_a = $L4(1), nu_b = p, nu_st = $L5(2);
                nu_idx nu_n = (nu_b >= nu_a ? (nu_idx)(nu_b - nu_a) / (nu_idx)nu_st + 1 : 0);
                for (nu_idx nu_k = 0; nu_k < nu_n; nu_k++) {
                    $T6 k = nu_a + ($T6)nu_k * nu_st;
                    c[(i) * c__d1 + (j)] += a[(i) * a__d1 + (k)];
                }
            }
        }
    "#]],
    );
}

#[test]
fn value_if_with_statements_is_hoisted() {
    check(
        nuda_transforms::nuwork::template(quote!(64; nfor!(i in n {
            let v = if i % 2 == 0 { let t = x[i] * 3.0; t + 1.0 } else if i % 3 == 0 { 2.0 } else { x[i] };
            let w = if v > 0.0 { v } else { -v };
            y[i] = v + w;
        }))),
        expect![[r#"
        kernel void nuwork($T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $P24(x), $P25(y)) {
            nu_idx nu_g0 = get_global_id(0);
            if (nu_g0 >= nu_n0) return;
            $T1 i = nu_s0 + ($T1)nu_g0 * nu_st0;
            $T16 nu_v;
            if (($F3(rem)(i, $L2(2)) == $L4(0))) {
                $T7 t = $F6(wrap)(x[(i)] * $L5(3.0));
                nu_v = $F9(wrap)(t + $L8(1.0));
            } else {
                nu_v = (($F11(rem)(i, $L10(3)) == $L12(0)) ? $L13(2.0) : (x[(i)]));
            }
            $T17 v = nu_v;
            $T22 w = ((v > $L18(0.0)) ? v : ($F19(wrap)(-v)));
            y[(i)] = $F23(wrap)(v + w);
        }
    "#]],
    );
}

#[test]
fn stepped_and_inclusive_for_loops_count_trips() {
    check(
        nuda_transforms::nuwork::template(quote!(64; nfor!(i in n {
            let mut s = 0u8;
            for k in (0..=250u8).step_by(10) { s = s.wrapping_add(k); }
            for k in 0..i { s ^= k as u8; }
            out[i] = s;
        }))),
        expect![[r#"
        kernel void nuwork($T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $P11(out)) {
            nu_idx nu_g0 = get_global_id(0);
            if (nu_g0 >= nu_n0) return;
            $T1 i = nu_s0 + ($T1)nu_g0 * nu_st0;
            $T2 s = ((uchar)0);
            {
                $T6 nu_a = $L3(0), nu_b = ((uchar)250), nu_st = $L4(10);
                nu_idx nu_n = (nu_b >= nu_a ? (nu_idx)(nu_b - nu_a) / (nu_idx)nu_st + 1 : 0);
                for (nu_idx nu_k = 0; nu_k < nu_n; nu_k++) {
                    $T6 k = nu_a + ($T6)nu_k * nu_st;
                    s = $F5(wrap)(s + k);
                }
            }
            for ($T10 k_1 = $L7(0), k_1_end = i; k_1 < k_1_end; k_1++) {
                s ^= $F8(to:uchar)(k_1);
            }
            out[(i)] = s;
        }
    "#]],
    );
}

#[test]
fn casts_narrow_arithmetic_and_integer_methods() {
    check(
        nuda_transforms::nuwork::template(quote!(64; nfor!(i in n {
            let x = f[i] as i32;
            let y = (x as u8) * 3;
            let z = !y ^ y.rotate_left(3);
            out[i] = (z as i32).abs().min(100) + x % 7;
        }))),
        expect![[r#"
        kernel void nuwork($T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $P20(f), $P21(out)) {
            nu_idx nu_g0 = get_global_id(0);
            if (nu_g0 >= nu_n0) return;
            $T1 i = nu_s0 + ($T1)nu_g0 * nu_st0;
            $T3 x = $F2(to:int)(f[(i)]);
            $T7 y = $F6(wrap)(($F4(to:uchar)(x)) * $L5(3));
            $T12 z = $F11(wrap)(($F8(not)y) ^ rotate(y, ($T9)($L10(3))));
            out[(i)] = $F19(wrap)($F15(min)($F14(abs)(($F13(to:int)(z))), $L16(100)) + $F18(rem)(x, $L17(7)));
        }
    "#]],
    );
}

#[test]
fn images_and_shadowed_keyword_names() {
    check(
        nuda_transforms::nuwork::template(quote!(8, 8; nfor!((y, x) in (h, w) {
            let float = src.read(x - 1, y) + src.read(x + 1, y);
            let float = float * 0.5;
            dst.write(x, y, float);
        }))),
        expect![[r#"
        kernel void nuwork($T1 nu_s0, $T1 nu_st0, nu_idx nu_n0, $T3 nu_s1, $T3 nu_st1, nu_idx nu_n1, $P13(src), $P14(dst)) {
            nu_idx nu_g0 = get_global_id(0);
            nu_idx nu_g1 = get_global_id(1);
            if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
            $T1 y = nu_s0 + ($T1)nu_g0 * nu_st0;
            $T3 x = nu_s1 + ($T3)nu_g1 * nu_st1;
            $T9 v_float = $F8(wrap)(nu_read$C13(src, (int)($F5(wrap)(x - $L4(1))), (int)(y)) + nu_read$C13(src, (int)($F7(wrap)(x + $L6(1))), (int)(y)));
            $T12 v_float_1 = $F11(wrap)(v_float * $L10(0.5));
            nu_write$C14(dst, (int)(x), (int)(y), v_float_1);
        }
    "#]],
    );
}

#[test]
fn nukernel_with_barrier_and_return() {
    check(
        nuda_transforms::nukernel::template(quote!(
            fn reverse(
                out: &mut NuArray1<i32>,
                a: &NuArray1<i32>,
                tmp: &mut NuArray1<i32>,
                n: usize,
            ) {
                let g = global_id(0);
                if g >= n {
                    return;
                }
                tmp[g] = a[g];
                barrier();
                out[g] = tmp[n - 1 - g];
            }
        )),
        expect![[r#"
        kernel void reverse($P6(out), $P7(a), $P8(tmp), $P9(n)) {
            $T1 g = ((nu_idx)get_global_id($L0(0)));
            if ((g >= n)) {
                return;
            }
            tmp[(g)] = a[(g)];
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            out[(g)] = tmp[($F5(wrap)($F4(wrap)(n - $L3(1)) - g))];
        }
    "#]],
    );
}

#[test]
fn nucode_with_early_return_and_calls() {
    check(
        nuda_transforms::nucode::template(quote!(
            fn smooth(x: f32) -> f32 {
                if x < 0.0 {
                    return 0.0;
                }
                let t = clamp01(x);
                t * t * (3.0 - 2.0 * t)
            }
        )),
        expect![[r#"
        float $S0(float x) {
            if ((x < $L0(0.0))) {
                return $L1(0.0);
            }
            $T3 t = $X0(x);
            return $F9(wrap)($F4(wrap)(t * t) * ($F8(wrap)($L5(3.0) - $F7(wrap)($L6(2.0) * t))));
        }
    "#]],
    );
}

#[test]
fn nuwork_dmine_sgemm_has_four_accumulators_and_remainder_kernels() {
    check(
        nuda_transforms::nuwork::template(
            quote!(16, 16; annot!(dmine(2, 2); nfor!((i, j) in (n, n) {
                let mut s = 0.0f32;
                nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
                c[(i, j)] = s;
            }))),
        ),
        expect![[r#"
            kernel void nuwork_0($T19 nu_s0, $T19 nu_st0, nu_idx nu_n0, $T20 nu_s1, $T20 nu_st1, nu_idx nu_n1, $P25(n), $P26(a), $P27(b), $P28(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T19 i_t = nu_s0 + ($T19)nu_g0 * nu_st0;
                $T20 j_t = nu_s1 + ($T20)nu_g1 * nu_st1;
                $T4 s_0_0 = 0.0f;
                $T4 s_0_1 = 0.0f;
                $T4 s_1_0 = 0.0f;
                $T4 s_1_1 = 0.0f;
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s_0_0 += $F7(wrap)(a[(k) * a__d1 + (($L0(0) + ($T1)(i_t)))] * b[(k) * b__d1 + (($L2(0) + ($T3)(j_t)))]);
                    s_0_1 += $F7(wrap)(a[(k) * a__d1 + (($L0(0) + ($T1)(i_t)))] * b[(k) * b__d1 + (($L2(0) + ($T3)($F15(wrap)(j_t + ((nu_idx)1)))))]);
                    s_1_0 += $F7(wrap)(a[(k) * a__d1 + (($L0(0) + ($T1)($F16(wrap)(i_t + ((nu_idx)1)))))] * b[(k) * b__d1 + (($L2(0) + ($T3)(j_t)))]);
                    s_1_1 += $F7(wrap)(a[(k) * a__d1 + (($L0(0) + ($T1)($F17(wrap)(i_t + ((nu_idx)1)))))] * b[(k) * b__d1 + (($L2(0) + ($T3)($F18(wrap)(j_t + ((nu_idx)1)))))]);
                }
                c[(($L0(0) + ($T1)(i_t))) * c__d1 + (($L2(0) + ($T3)(j_t)))] = s_0_0;
                c[(($L0(0) + ($T1)(i_t))) * c__d1 + (($L2(0) + ($T3)($F15(wrap)(j_t + ((nu_idx)1)))))] = s_0_1;
                c[(($L0(0) + ($T1)($F16(wrap)(i_t + ((nu_idx)1))))) * c__d1 + (($L2(0) + ($T3)(j_t)))] = s_1_0;
                c[(($L0(0) + ($T1)($F17(wrap)(i_t + ((nu_idx)1))))) * c__d1 + (($L2(0) + ($T3)($F18(wrap)(j_t + ((nu_idx)1)))))] = s_1_1;
            }

            kernel void nuwork_1($T21 nu_s0, $T21 nu_st0, nu_idx nu_n0, $T22 nu_s1, $T22 nu_st1, nu_idx nu_n1, $P25(n), $P26(a), $P27(b), $P28(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T21 i_t = nu_s0 + ($T21)nu_g0 * nu_st0;
                $T22 j_t = nu_s1 + ($T22)nu_g1 * nu_st1;
                $T4 s = 0.0f;
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s += $F7(wrap)(a[(k) * a__d1 + (($L0(0) + ($T1)(i_t)))] * b[(k) * b__d1 + (($L2(0) + ($T3)(j_t)))]);
                }
                c[(($L0(0) + ($T1)(i_t))) * c__d1 + (($L2(0) + ($T3)(j_t)))] = s;
            }

            kernel void nuwork_2($T23 nu_s0, $T23 nu_st0, nu_idx nu_n0, $T24 nu_s1, $T24 nu_st1, nu_idx nu_n1, $P25(n), $P26(a), $P27(b), $P28(c)) {
                nu_idx nu_g0 = get_global_id(0);
                nu_idx nu_g1 = get_global_id(1);
                if (nu_g0 >= nu_n0 || nu_g1 >= nu_n1) return;
                $T23 i_t = nu_s0 + ($T23)nu_g0 * nu_st0;
                $T24 j_t = nu_s1 + ($T24)nu_g1 * nu_st1;
                $T4 s = 0.0f;
                for ($T6 k = $L5(0), k_end = n; k < k_end; k++) {
                    s += $F7(wrap)(a[(k) * a__d1 + (($L0(0) + ($T1)(i_t)))] * b[(k) * b__d1 + (($L2(0) + ($T3)(j_t)))]);
                }
                c[(($L0(0) + ($T1)(i_t))) * c__d1 + (($L2(0) + ($T3)(j_t)))] = s;
            }
        "#]],
    );
}
