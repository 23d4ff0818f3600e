//! The native form of `vector(w)` nests: lanes side by side where the body allows, the plain
//! lane loop where it does not.

use quote::quote;

fn native(body: proc_macro2::TokenStream) -> String {
    crate::entry::nuwork::expand(body)
        .expect("the nuwork! compiles")
        .to_string()
}

/// nbody's shape: varying locals become arrays, the uniform loads of the inner loop are
/// read once per iteration, before the lanes.
#[test]
fn an_nbody_nest_runs_its_lanes_side_by_side() {
    let code = native(quote!(64; annot!(vector(16); nfor!(i in n {
        let xi = px[i];
        let mut ax = 0.0f32;
        nfor!(j in n {
            let dx = px[j] - xi;
            ax += dx * m[j];
        });
        vx[i] = ax;
    }))));
    assert!(
        code.contains(":: core :: array :: from_fn :: < _ , 16usize , _ >"),
        "{code}"
    );
    assert!(
        code.contains("let __nuda_h0 ="),
        "no uniform load lifted: {code}"
    );
    assert!(code.contains("ax [__nuda_l] ="), "{code}");
}

/// A varying `let` without a value is outside the turned form: the nest keeps its lane loop.
#[test]
fn a_let_without_a_value_keeps_the_plain_lane_loop() {
    let code = native(quote!(64; annot!(vector(4); nfor!(i in n {
        let t: f32;
        t = a[i];
        b[i] = t * 2.0;
    }))));
    assert!(!code.contains("from_fn"), "{code}");
    assert!(!code.contains("[__nuda_l]"), "{code}");
}

/// Nothing is lifted out of a branch, where a load could fault that the plain loop never
/// runs: the condition is read once for all lanes, `c[0]` stays behind it.
#[test]
fn nothing_is_lifted_out_of_a_branch() {
    let code = native(quote!(64; annot!(vector(4); nfor!(i in n {
        let v = a[i] * if k > 0 { c[0] } else { 1.0f32 };
        b[i] = v;
    }))));
    assert!(code.contains("from_fn"), "{code}");
    assert!(code.contains("let __nuda_h0 = (k > "), "{code}");
    assert!(
        !code.contains("let __nuda_h1"),
        "lifted out of a branch: {code}"
    );
}

/// sgemm's shape: the column `j` steps by one per lane, so it stays a scalar (lane 0's
/// value) and each lane reads `offset(j, l, 1)`, which LLVM turns into whole-vector loads of
/// `b` and stores of `c`. A widening cast keeps a value affine for OpenCL C but not here,
/// where it must hold exactly: `w` becomes an array.
#[test]
fn an_affine_local_stays_a_scalar_and_a_cast_of_it_does_not() {
    let code = native(
        quote!(16, 16; annot!(dmine(8, 1), vector(8); nfor!((i, j) in (n, n) {
            let w = j as usize;
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)] + b[(k, w)]; });
            c[(i, j)] = s;
        }))),
    );
    assert!(
        code.contains("let j_t = { let __nuda_l = 0usize ;"),
        "{code}"
    );
    assert!(
        code.contains(":: nuda :: __private :: offset (j_0_0 , __nuda_l , 1)"),
        "{code}"
    );
    assert!(!code.contains("j_0_0 [__nuda_l]"), "{code}");
    assert!(
        code.contains("let w_0_0 = :: core :: array :: from_fn"),
        "{code}"
    );
}

/// The guard of issue 52's native sgemm: the chunk closure and each element's closure go
/// through `inlined` marked `#[inline(always)]`, so that LLVM copies them into every path of
/// `wide::run` and compiles each for its vector unit. Left out of line, sgemm's
/// `dmine(8, 1), vector(16)` ran in SSE2 code at 0.4x its AVX-512 speed.
#[test]
fn the_native_closures_are_inlined_into_the_wide_paths() {
    let code = native(
        quote!(16, 16; annot!(dmine(8, 1), vector(16); nfor!((i, j) in (n, n) {
            let mut s = 0.0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        }))),
    );
    let marked = ":: nuda :: __private :: inlined (# [inline (always)] |";
    let body = format!("let __nuda_body = {marked}");
    assert!(code.contains(&body), "{code}");
    let element = format!("{marked}| {{");
    assert!(code.contains(&element), "{code}");
}

/// A histogram's native segments count into a copy of the bins (`NativeCopy`), flushed once
/// per segment: the bins stop bouncing between cores on every element. `sub` composes into
/// an add, and an atomic whose value is used keeps the array.
#[test]
fn a_native_histogram_counts_into_a_copy() {
    let code = native(quote!(256; nfor!(i in n { hist.atomic_sub((v[i] % 256) as usize, 1u32); })));
    let copy = ":: nuda :: __private :: NativeCopy :: new (& hist , :: nuda :: AtomicOp :: Add , __nuda_hi - __nuda_lo)";
    assert!(code.contains(copy), "{code}");
    assert!(code.contains("let hist = __nuda_pc0 . view ()"), "{code}");
    assert!(
        code.contains(":: core :: mem :: drop (__nuda_pc0)"),
        "{code}"
    );
    let used = native(quote!(256; nfor!(i in n { o[i] = hist.atomic_add(v[i] as usize, 1u32); })));
    assert!(!used.contains("NativeCopy"), "{used}");
}

/// A `#[nukernel]`'s native body is marked for the wide paths too, and its sub-histogram
/// merge counts into per-worker copies (`NativeCopies`), flushed after the launch.
#[test]
fn a_nukernel_merge_counts_into_copies_per_worker() {
    let item = quote!(
        fn sub(hist: &mut NuArray1<u32>, v: &NuArray1<u32>) {
            let part = nulocal!(u32, 256);
            let l = local_id(0);
            part[l] = 0;
            barrier();
            part.atomic_add((v[global_id(0)] % 256) as usize, 1u32);
            barrier();
            hist.atomic_add(l, part[l]);
        }
    );
    let code = crate::entry::nukernel::expand(quote!(), item)
        .expect("the kernel compiles")
        .to_string();
    let body = "let __nuda_body = :: nuda :: __private :: inlined (# [inline (always)] |";
    assert!(code.contains(body), "{code}");
    let copies =
        ":: nuda :: __private :: NativeCopies :: new (& hist , :: nuda :: AtomicOp :: Add)";
    assert!(code.contains(copies), "{code}");
    assert!(
        code.contains("let hist = unsafe { __nuda_pk0 . view_plain () } ;"),
        "{code}"
    );
    assert!(code.contains("__nuda_pk0 . flush () ;"), "{code}");
}

/// A split `#[nukernel]` walks its work-items as a plain range of indexes (an iterator that
/// carried a whole work-item and a 1-D flag kept LLVM from vectorising the loops), views its
/// `nulocal!` arrays with plain loads and stores, and copies its other captured parameters
/// into locals, so that their pointers and lengths stay in registers.
#[test]
fn a_split_nukernel_walks_plain_ranges_over_plain_local_views() {
    let item = quote!(
        fn zero(out: &mut NuArray1<u32>, v: &NuArray1<u32>) {
            let part = nulocal!(u32, 64);
            let l = local_id(0);
            part[l] = v[global_id(0)];
            barrier();
            out[global_id(0)] = part[63 - l];
        }
    );
    let code = crate::entry::nukernel::expand(quote!(), item)
        .expect("the kernel compiles")
        .to_string();
    let walk = "'__nuda_item : for __nuda_k in __nuda_g . walk () { let __nuda_w = & __nuda_g . item (__nuda_k) ;";
    assert!(code.contains(walk), "{code}");
    assert!(
        code.contains("let part = unsafe { part . view_plain (__nuda_w) } ;"),
        "{code}"
    );
    for p in ["out", "v"] {
        let hoist = format!("let {p} = :: nuda :: __private :: hoist (& {p}) ;");
        assert!(code.contains(&hoist), "{p} not hoisted: {code}");
    }
}

/// `stage` on the native engine packs each staged array's box per tile, blocked by the
/// `dmine` rows and the `vector` lanes, and the loop over `k` walks the panels: one walk per
/// shape of read (eight rows of `a`, the lanes of `b`, whose eight reads share one), read at
/// the loop's own count, beside the loop as written.
#[test]
fn a_staged_gemm_packs_panels_and_walks_them() {
    let code = native(
        quote!(16, 16; annot!(tilem(128, 128), stage(a, b, k: 8), dmine(8, 1), vector(8);
        nfor!((i, j) in (n, n) {
            let mut s = 0f32;
            nfor!(k in n { s += a[(k, i)] * b[(k, j)]; });
            c[(i, j)] = s;
        }))),
    );
    assert!(
        code.contains(". pack :: < _ , 1usize , 8usize > (& a"),
        "{code}"
    );
    assert!(
        code.contains(". pack :: < _ , 1usize , 8usize > (& b"),
        "{code}"
    );
    assert!(
        code.contains("let __nuda_w8 = __nuda_pk1 . walk (& b"),
        "{code}"
    );
    assert!(code.contains("Lanes :: < 8usize >"), "{code}");
    assert!(
        !code.contains("let __nuda_w9 ="),
        "a walk per read, not per shape: {code}"
    );
    assert!(
        code.contains("__nuda_w8 . run_unchecked (__nuda_kc)"),
        "{code}"
    );
    assert!(
        code.contains("__nuda_w3 . at_unchecked (__nuda_kc)"),
        "{code}"
    );
    assert!(
        code.contains("for k in __nuda_kr"),
        "no loop as written: {code}"
    );
}

/// A read whose name the loop binds again cannot be walked from its two ends: that loop
/// runs as written. Without a staged loop nothing is packed.
#[test]
fn a_loop_that_rebinds_a_read_name_runs_as_written() {
    let code = native(quote!(8; annot!(tilem(8), stage(a, k: 8); nfor!(i in n {
        let mut s = 0.0f32;
        for k in 0..n {
            let i = i + 1;
            s += a[(k, i)];
        }
        out[i] = s;
    }))));
    assert!(code.contains(". pack ::"), "{code}");
    assert!(!code.contains(". walk ("), "{code}");
    let code = native(
        quote!(8, 8; annot!(tilem(8, 8), stage(a); nfor!((y, x) in (h, w) {
            out[(y, x)] = a[(y, x)] + a[(y + 1, x + 1)];
        }))),
    );
    assert!(!code.contains(". pack ::"), "{code}");
}
