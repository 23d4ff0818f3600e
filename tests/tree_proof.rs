//! The launch-time proof follows a tree reduction's steps (issue 52): a halving `s` stays
//! between its start and zero, and `global_id(0)` is the group's first id plus `local_id(0)`,
//! so under `if l < s` the reads `part[l + s]` and `scratch[g + s]` are proved in range and
//! their checks compiled out. Under `if l <= s` they can leave the group, and stay checked.
//! Read back through `NUDA_DUMP` on OpenCL, and run on every engine against plain Rust.

use nuda::prelude::*;
mod common;

const GROUP: usize = 64;

#[nukernel]
fn local_tree(sums: &mut NuArray1<i32>, a: &NuArray1<i32>) {
    let part = nulocal!(i32, GROUP);
    let l = local_id(0);
    part[l] = a[global_id(0)];
    barrier();
    let mut s = GROUP / 2;
    while s > 0 {
        if l < s {
            let v = part[l + s]; // local tree read
            part[l] += v;
        }
        barrier();
        s /= 2;
    }
    if l == 0 {
        sums[group_id(0)] = part[0];
    }
}

#[nukernel]
fn global_tree(sums: &mut NuArray1<i32>, a: &NuArray1<i32>, scratch: &mut NuArray1<i32>) {
    let g = global_id(0);
    let l = local_id(0);
    scratch[g] = a[g];
    barrier();
    let mut s = local_size(0) / 2;
    while s > 0 {
        if l < s {
            let v = scratch[g + s]; // global tree read
            scratch[g] += v;
        }
        barrier();
        s /= 2;
    }
    if l == 0 {
        sums[group_id(0)] = scratch[g];
    }
}

/// One step too far: `l <= s` reaches the next group (and, in the last, past the array).
#[nukernel]
fn reaching(out: &mut NuArray1<i32>, scratch: &NuArray1<i32>) {
    let g = global_id(0);
    let l = local_id(0);
    let mut s = local_size(0) / 2;
    while s > 0 {
        if l <= s {
            out[g] += scratch[g + s]; // reaching read
        }
        s /= 2;
    }
}

/// The sums of `a`'s groups of `GROUP`, in plain Rust.
fn want(a: &NuArray1<i32>) -> Vec<i32> {
    a.as_slice()
        .chunks(GROUP)
        .map(|c| c.iter().fold(0i32, |s, v| s.wrapping_add(*v)))
        .collect()
}

fn run_all(dev: usize) -> nuda::Result<()> {
    let n = 16 * GROUP;
    let a = NuArray1::<i32>::from_fn(n, |i| (i as i32).wrapping_mul(7919) % 1000 - 500);
    let mut sums = NuArray1::<i32>::new(n / GROUP);
    nucall!(dev, [n], [GROUP]; local_tree(&mut sums, &a))?;
    assert_eq!(sums.as_slice(), want(&a), "local tree on device {dev}");
    let mut scratch = NuArray1::<i32>::new(n);
    let mut sums = NuArray1::<i32>::new(n / GROUP);
    nucall!(dev, [n], [GROUP]; global_tree(&mut sums, &a, &mut scratch))?;
    assert_eq!(sums.as_slice(), want(&a), "global tree on device {dev}");
    let mut out = NuArray1::<i32>::new(n);
    let e = nucall!(dev, [n], [GROUP]; reaching(&mut out, &a)).unwrap_err();
    assert!(e.to_string().contains("out of bounds for `scratch`"), "{e}");
    Ok(())
}

/// Every engine sums the groups as plain Rust does, and the reaching read faults.
#[test]
fn trees_agree_with_plain_rust_and_one_step_too_far_faults() -> nuda::Result<()> {
    for d in nuda::devices() {
        run_all(d.index)?;
    }
    Ok(())
}

/// Run in a child with `NUDA_DUMP` set, on OpenCL.
#[test]
fn child_dump_trees() {
    if std::env::var_os("NUDA_TEST_CHILD").is_none() {
        return;
    }
    let dev = nuda::current_device().expect("a device").index();
    run_all(dev).expect("the trees run");
}

/// The `#define` line of the check of the read marked `marker` in this file.
fn define_of(texts: &[String], what: &str, marker: &str) -> String {
    let src = include_str!("tree_proof.rs");
    let line = 1 + src
        .lines()
        .position(|l| l.contains(marker) && !l.contains("fn define_of"))
        .expect("the marker");
    let at = format!("Read `{what}` at tests/tree_proof.rs:{line}:");
    let found = texts
        .iter()
        .flat_map(|t| t.lines())
        .find(|l| l.contains(&at));
    found.expect(&at).to_string()
}

#[test]
fn the_tree_reads_are_proved_and_the_reaching_one_is_checked() {
    if !common::have_opencl() {
        return;
    }
    let (passed, text, dir) = common::dumping_child("child_dump_trees", "tree-proof", &[]);
    assert!(passed, "{text}");
    let texts = common::dumped_files(&dir, ".cl");
    for (what, marker) in [
        ("part", "// local tree read"),
        ("scratch", "// global tree read"),
    ] {
        let d = define_of(&texts, what, marker);
        assert!(
            d.contains(" 0 /*") && d.contains("proved safe at launch"),
            "{d}"
        );
    }
    let d = define_of(&texts, "scratch", "// reaching read");
    assert!(d.contains(" 1 /*") && !d.contains("proved safe"), "{d}");
    let _ = std::fs::remove_dir_all(&dir);
}
