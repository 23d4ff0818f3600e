//! What the macros hand to the OpenCL compiler, read back through `NUDA_DUMP`: f32 programs
//! contain no `double` and enable no fp64, index arithmetic is 32-bit when the launch-time proof shows every
//! `usize` value fits (and 64-bit, saying why, when one may not), the checks the proof rules
//! out are compiled out, and the text is the embedded template with only types filled in.

use nuda::prelude::*;
use std::process::Command;

fn is_child() -> bool {
    std::env::var_os("NUDA_TEST_CHILD").is_some()
}

/// Run in a child with `NUDA_DUMP` set: one f32 kernel, one f64 kernel.
#[test]
fn child_dump_kernels() {
    if !is_child() {
        return;
    }
    let n = 64usize;
    let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let mut b = NuArray1::<f32>::new(n);
    nuwork!(16; nfor!(i in n {
        let x = a[i] * 0.5 + 1.0;
        let y = x.sqrt().max(2.0) / 3.0;
        let k = (y * 10.0) as i32;
        b[i] = if k > 3 { y } else { -y } + (i as f32).floor();
    }))
    .unwrap();
    let mut c = NuArray1::<f64>::new(n);
    nuwork!(16; nfor!(i in n { c[i] = (i as f64).sqrt() * 0.5; })).unwrap();
    let m = 9usize;
    let (x, y) = (NuArray2::<f32>::new((m, m)), NuArray2::<f32>::new((m, m)));
    let mut z = NuArray2::<f32>::new((m, m));
    nuwork!(4, 4; annot!(dmine(2, 2); nfor!((i, j) in (m, m) {
        let mut s = 0.0f32;
        nfor!(k in m { s += x[(k, i)] * y[(k, j)]; });
        z[(i, j)] = s;
    })))
    .unwrap();
    // A read of an array the kernel updates atomically (a lock-free maximum, whose plain
    // read is only a guess: the dependence test refuses it without `#[independent]`).
    let mut top = NuArray1::<f32>::new(4);
    nuwork!(#[independent] 16; nfor!(i in n {
        let seen = top[3];
        if a[i] > seen {
            top.atomic_max(3, a[i]);
        }
    }))
    .unwrap();
    let big = 5_000_000_000usize;
    let mut h = NuArray1::<u32>::new(n);
    // Iterations may store to one element (the dependence test cannot tell): the user's word.
    nuwork!(#[independent] 16; nfor!(i in n { h[(i * big) % n] = i as u32; })).unwrap();
    // A named constant's trip count, under `inline` (issue 27, item 5).
    let mut t = NuArray1::<u32>::new(n);
    nuwork!(16; nfor!(i in n {
        let mut s = 0u32;
        annot!(inline; nfor!(q in TILE { s += (i * q) as u32 * SEVEN; }));
        t[i] = s;
    }))
    .unwrap();
    assert_eq!(t[3], 7 * 3 * (0..TILE as u32).sum::<u32>());
    // A filter: its pushes' slots are a u32 counter's values.
    let mut kept = NuVec::<f32>::new();
    nuwork!(16; nfor!(i in n { if a[i] > 7.25 { kept.push(a[i]); } })).unwrap();
    assert_eq!(kept.len(), n - 8);
}

/// Constants the last kernel of `child_dump_kernels` names.
const TILE: usize = 5;
const SEVEN: u32 = 7;

/// The programs a child dumps, in a directory of their own (`tag` keeps tests apart).
fn dumped(tag: &str) -> Vec<String> {
    dumped_as(tag, "cl", &[])
}

/// The files of extension `ext` a child dumps with `env` set besides `NUDA_DUMP`.
fn dumped_as(tag: &str, ext: &str, env: &[(&str, &str)]) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("nuda-gen-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["child_dump_kernels", "--exact", "--nocapture"])
        .env("NUDA_TEST_CHILD", "1")
        .env("NUDA_DUMP", &dir)
        .env("NUDA_ENGINE", "opencl")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One kind of file: with NUDA_CUDA_CHECK set, CUDA C and PTX are dumped beside the C.
    let mut texts: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    // The f32 kernel first (CUDA C's header names `double` before the kernel).
    texts.sort_by_key(|t| {
        t.find("/* nuwork! at")
            .map_or(t.as_str(), |k| &t[k..])
            .contains("double")
    });
    texts
}

fn kernel_part(text: &str) -> &str {
    &text[text
        .find("/* nuwork! at")
        .expect("the kernel follows the prelude")..]
}

/// Whether an OpenCL device exists (an error where one is required).
fn have_opencl() -> bool {
    if nuda::devices().iter().all(|d| d.kind == DeviceKind::Native) {
        assert!(
            std::env::var("NUDA_REQUIRE_OPENCL").as_deref() != Ok("1"),
            "no OpenCL device"
        );
        return false;
    }
    true
}

/// The dumped program that contains `needle`.
fn find(texts: &[String], needle: &str) -> String {
    texts
        .iter()
        .find(|t| t.contains(needle))
        .expect(needle)
        .clone()
}

#[test]
fn the_dump_says_which_checks_and_which_index_width_and_why() {
    if !have_opencl() {
        return;
    }
    let texts = dumped("proof");
    let f32_text = find(&texts, "floor(");
    assert!(
        f32_text.contains("usize is 32-bit here: every usize value provably stays below 2^32"),
        "the dump says why:\n{f32_text}"
    );
    assert!(
        f32_text.contains("#define NU_C0 0 /* Read `a`")
            && f32_text.contains(": proved safe at launch"),
        "the proof compiles the checks out:\n{f32_text}"
    );
    let wide = find(&texts, "nu_rem_nu_idx(");
    assert!(
        wide.contains("typedef ulong nu_idx;")
            && wide.contains("usize is 64-bit here: a captured usize or isize is 5000000000"),
        "i * 5e9 needs 64 bits, and the dump says where:\n{wide}"
    );
    assert!(
        wide.contains("Write `h` at") && wide.contains("proved safe at launch"),
        "`x % n` is below n: the write needs no check"
    );
}

#[test]
fn f32_kernels_have_no_double_and_32_bit_indices() {
    if !have_opencl() {
        return;
    }
    let texts = dumped("types");
    assert_eq!(texts.len(), 7, "seven programs dumped");
    let find = |needle: &str| find(&texts, needle);
    let f32_text = find("floor(");
    let f32_kernel = kernel_part(&f32_text);
    assert!(
        !f32_kernel.contains("double"),
        "an f32 kernel must not mention double:\n{f32_kernel}"
    );
    assert!(
        f32_kernel.contains("0.5f") && f32_kernel.contains("1.0f"),
        "literals are float:\n{f32_kernel}"
    );
    assert!(
        f32_text.contains("typedef uint nu_idx;"),
        "32-bit index type when sizes fit"
    );
    // The whole program, prelude included: a device without fp64 builds it.
    assert!(
        !f32_text.contains("double") && !f32_text.contains("cl_khr_fp64"),
        "an f32 program must not mention double nor enable fp64:\n{f32_text}"
    );
    assert!(
        f32_text.contains("nu_idx nu_global_id(") || f32_text.contains("get_global_id"),
        "the prelude keeps what the kernel uses"
    );

    for wide in ["ulong", "size_t", "long "] {
        assert!(
            !f32_kernel.contains(wide),
            "no 64-bit index math ({wide}):\n{f32_kernel}"
        );
    }
    let f64_text = find("global double*");
    assert!(
        kernel_part(&f64_text).contains("double"),
        "the user wrote f64"
    );
    assert!(
        f64_text.contains("#pragma OPENCL EXTENSION cl_khr_fp64 : enable"),
        "an f64 program enables fp64"
    );
    let dmine = find("nuwork_0");
    for acc in ["s_0_0", "s_0_1", "s_1_0", "s_1_1"] {
        assert!(
            dmine.contains(&format!("float {acc} = 0.0f;")),
            "dmine(2, 2) shows four accumulators:\n{dmine}"
        );
    }
    assert!(
        dmine.contains(" nuwork_1(") && dmine.contains(" nuwork_2("),
        "and two remainder kernels"
    );
}

/// A filter's pushes index in 32 bits when the sizes fit: the slot `counter as usize` is a
/// `u32` counter's value (it read as unknown, and made every filter's `usize` 64-bit).
#[test]
fn filters_index_in_32_bits() {
    if !have_opencl() {
        return;
    }
    let texts = dumped("filter");
    let filter = find(&texts, "7.25f");
    assert!(
        filter.contains("typedef uint nu_idx;")
            && filter.contains("every usize value provably stays below 2^32"),
        "a filter of 64 elements indexes in 32 bits:\n{filter}"
    );
}

/// A plain read of an element other work-items update atomically is a data race by
/// OpenCL's memory model (Oclgrind reported it): such reads are atomic loads.
#[test]
fn reads_of_atomically_updated_arrays_are_atomic_loads() {
    if !have_opencl() {
        return;
    }
    let texts = dumped("atomic");
    let text = find(&texts, "atomic_max");
    assert!(
        text.contains("return nu_atomic_load_float(&top["),
        "the read of `top` is an atomic load:\n{text}"
    );
    assert!(
        !text.contains("return top["),
        "no plain read of `top`:\n{text}"
    );
    assert!(
        !text.contains("uint seen = *q"),
        "the CAS loop reads no element plainly:\n{text}"
    );
}

/// A `nuwork!` capture named as a constant is its value in the program text, so the device
/// compiler sees the trip count of `annot!(inline; nfor!(q in TILE { .. }))`.
#[test]
fn named_constants_are_literals_in_the_program() {
    if !have_opencl() {
        return;
    }
    let texts = dumped("consts");
    let text = find(&texts, "SEVEN");
    let kernel = kernel_part(&text);
    assert!(kernel.contains("((nu_idx)(5UL))"), "{kernel}");
    assert!(kernel.contains("((uint)(7UL))"), "{kernel}");
    // The parameters stay (pushed as before); the body reads the literals.
    let entry = &kernel[kernel.find("kernel void").unwrap()..];
    let body = &entry[entry.find(") {").unwrap()..];
    assert!(!body.contains("TILE") && !body.contains("SEVEN"), "{body}");
}

/// Whether NVRTC is here (an error where `NUDA_REQUIRE_NVRTC=1` says it must be).
fn have_nvrtc(cu: &[String]) -> bool {
    if cu.is_empty() {
        assert!(
            std::env::var("NUDA_REQUIRE_NVRTC").as_deref() != Ok("1"),
            "NUDA_REQUIRE_NVRTC=1 but no CUDA C was dumped"
        );
        return false;
    }
    true
}

/// `NUDA_CUDA_CHECK` holds on every device: the native engine, which builds no source of
/// its own, has NVRTC compile the program the source-form engines would build.
#[test]
fn the_cuda_check_compiles_the_native_engines_launches_too() {
    let native = [("NUDA_CUDA_CHECK", "sm_90"), ("NUDA_ENGINE", "native")];
    let cu = dumped_as("cu-native", "cu", &native);
    if !have_nvrtc(&cu) {
        return;
    }
    assert_eq!(
        cu.len(),
        7,
        "seven programs in CUDA C, from the native engine's launches"
    );
    let ptx = dumped_as("ptx-native", "ptx", &native);
    assert!(ptx.len() == 7 && ptx.iter().all(|p| p.contains(".target sm_90")));
}

#[test]
fn the_cuda_dialect_keeps_f32_single_and_compiles_to_ptx() {
    if !have_opencl() {
        return;
    }
    let check = [("NUDA_CUDA_CHECK", "sm_90")];
    let cu = dumped_as("cu", "cu", &check);
    if !have_nvrtc(&cu) {
        return;
    }
    assert_eq!(cu.len(), 7, "seven programs in CUDA C");
    let kernels: Vec<&str> = cu.iter().map(|t| kernel_part(t)).collect();
    // Attributes may come between `void` and the name: the filter's `NU_WARPS` (a scan's
    // sub-group attribute, empty on CUDA) and the group's bound (`NU_BOUNDS..`).
    assert!(kernels.iter().all(|k| k
        .lines()
        .any(|l| { l.starts_with("extern \"C\" __global__ void ") && l.contains(" nuwork") })));
    // The one f64 kernel names `double`; the six f32 ones never do.
    let doubles = kernels.iter().filter(|k| k.contains("double")).count();
    assert_eq!(doubles, 1, "only the f64 kernel's CUDA C has double");
    let ptx = dumped_as("ptx", "ptx", &check);
    assert_eq!(ptx.len(), 7, "seven programs in PTX");
    assert!(ptx
        .iter()
        .all(|p| p.contains(".target sm_90") && p.contains(".entry nuwork")));
    // The f64 program computes in double; the six others never touch it.
    let doubles = ptx.iter().filter(|p| p.contains(".f64")).count();
    assert_eq!(
        doubles, 1,
        "only the f64 kernel's PTX has double arithmetic"
    );
}
