//! Helpers for the macro tests: the devices to run on (the first OpenCL device, then the
//! native engine), and running a computation on each and comparing it with a reference.

#![allow(dead_code)]

use nuda::{DeviceInfo, DeviceKind};
use std::fmt::Debug;

/// The first OpenCL device (required when `NUDA_REQUIRE_OPENCL=1`) and the native engine.
pub fn engines() -> Vec<DeviceInfo> {
    let all = nuda::devices();
    let mut out: Vec<DeviceInfo> = all
        .iter()
        .filter(|d| d.kind != DeviceKind::Native)
        .take(1)
        .cloned()
        .collect();
    if out.is_empty() {
        if std::env::var("NUDA_REQUIRE_OPENCL").as_deref() == Ok("1") {
            panic!("NUDA_REQUIRE_OPENCL=1 but no OpenCL device was found: {all:?}");
        }
        eprintln!("no OpenCL device: testing the native engine only");
    }
    out.extend(all.into_iter().filter(|d| d.kind == DeviceKind::Native));
    out
}

/// `full`, or `small` under `NUDA_TEST_SMALL=1` (`scripts/oclgrind`: a simulator runs a few
/// microseconds per work-item, so it checks the same shapes at smaller sizes).
pub fn sizes<T: Clone>(full: &[T], small: &[T]) -> Vec<T> {
    match std::env::var("NUDA_TEST_SMALL").as_deref() {
        Ok("1") => small.to_vec(),
        _ => full.to_vec(),
    }
}

/// Runs `f` on every engine with that device current, and checks it returns `want`.
pub fn check<R: PartialEq + Debug>(want: R, f: impl Fn() -> nuda::Result<R>) {
    for d in engines() {
        let got = nuda::with_device(d.index, &f)
            .unwrap()
            .unwrap_or_else(|e| panic!("{}: {e}", d.name));
        assert_eq!(got, want, "on {}", d.name);
    }
}

/// Like `check`, for floats compared with a relative tolerance.
pub fn check_close(want: &[f32], tol: f32, f: impl Fn() -> nuda::Result<Vec<f32>>) {
    for d in engines() {
        let got = nuda::with_device(d.index, &f)
            .unwrap()
            .unwrap_or_else(|e| panic!("{}: {e}", d.name));
        assert_eq!(got.len(), want.len(), "on {}", d.name);
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            let ok = (g - w).abs() <= tol * w.abs().max(1.0) || (g.is_nan() && w.is_nan());
            assert!(ok, "on {}: element {k}: got {g}, want {w}", d.name);
        }
    }
}

/// The elements of a 1-D array.
pub fn vec_of<T: nuda::Value>(a: &nuda::NuArray1<T>) -> Vec<T> {
    a.to_vec()
}

/// `unwrap` for setup steps, with nuda's message.
pub trait OrPanic<T> {
    /// The value, or a panic with the error.
    fn _or_panic(self) -> T;
}

impl<T> OrPanic<T> for nuda::Result<T> {
    fn _or_panic(self) -> T {
        self.unwrap_or_else(|e| panic!("{e}"))
    }
}

/// Runs test `name` of this binary again in a child process that sees two PoCL CPU devices
/// (`POCL_DEVICES="pthread pthread"`), and returns `true` in that child, where the test body
/// should run. In the parent it checks the child passed and returns `false`.
pub fn in_two_device_child(name: &str) -> bool {
    if std::env::var_os("NUDA_TEST_CHILD").is_some() {
        let opencl = nuda::devices()
            .iter()
            .filter(|d| d.kind != DeviceKind::Native)
            .count();
        // POCL_DEVICES makes two devices of one on PoCL alone: on another OpenCL platform
        // (scripts/intel-opencl's) one device is no failure; none at all is.
        let pocl = nuda::devices()
            .iter()
            .any(|d| d.platform.contains("Portable Computing Language"));
        let required = std::env::var("NUDA_REQUIRE_OPENCL").as_deref() == Ok("1");
        if opencl < 2 && required && (pocl || opencl == 0) {
            panic!(
                "NUDA_REQUIRE_OPENCL=1 but POCL_DEVICES gave {opencl} OpenCL devices: {:?}",
                nuda::devices()
            );
        }
        if opencl < 2 {
            eprintln!("skipped: fewer than two OpenCL devices (POCL_DEVICES needs PoCL)");
        }
        return opencl >= 2;
    }
    let env = [
        ("NUDA_TEST_CHILD", "1"),
        ("POCL_DEVICES", "pthread pthread"),
    ];
    child(name, &env, &["NUDA_DEVICE", "NUDA_ENGINE"]);
    false
}

/// Runs test `name` of this binary in a child process with `env` set and `remove` unset,
/// checks it passed, and returns its output.
pub fn child(name: &str, env: &[(&str, &str)], remove: &[&str]) -> String {
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = std::process::Command::new(exe);
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"]);
    for k in remove {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("child test process");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child {name} failed:\n{text}");
    assert!(
        text.contains("1 passed"),
        "child {name} ran no test:\n{text}"
    );
    text
}

/// Whether an OpenCL device exists; under `NUDA_REQUIRE_OPENCL=1` its absence fails.
pub fn have_opencl() -> bool {
    if nuda::devices().iter().all(|d| d.kind == DeviceKind::Native) {
        let required = std::env::var("NUDA_REQUIRE_OPENCL").as_deref() == Ok("1");
        assert!(!required, "no OpenCL device");
        return false;
    }
    true
}

/// Runs test `name` of this binary in a child on OpenCL with `NUDA_DUMP` set to a fresh
/// folder (`tag` keeps tests apart) and a fresh program cache (a compile check remembered as
/// passed would dump nothing), and `env` besides: whether it passed, its output, the folder.
pub fn dumping_child(
    name: &str,
    tag: &str,
    env: &[(&str, &str)],
) -> (bool, String, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("nuda-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = std::process::Command::new(std::env::current_exe().expect("test binary path"))
        .args([name, "--exact", "--nocapture"])
        .env("NUDA_TEST_CHILD", "1")
        .env("NUDA_DUMP", &dir)
        .env("NUDA_ENGINE", "opencl")
        .env("NUDA_CACHE_DIR", dir.join("cache"))
        .envs(env.iter().copied())
        .output()
        .expect("child test process");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success() && text.contains("1 passed"), text, dir)
}

/// The texts of the files in `dir` whose names end in `ext`.
pub fn dumped_files(dir: &std::path::Path, ext: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("the dump folder")
        .map(|e| e.expect("a dump entry").path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .map(|p| std::fs::read_to_string(p).expect("a dumped file"))
        .collect()
}

/// The fault of a kernel error: array, index, dims and `file:line:column`.
pub fn bounds(e: &nuda::Error) -> (String, Vec<String>, Vec<u64>, String) {
    match e {
        nuda::Error::Kernel {
            fault: nuda::KernelFault::OutOfBounds(b),
            location,
            ..
        } => (
            b.array.clone(),
            b.index.clone(),
            b.dims.clone(),
            location.clone(),
        ),
        other => panic!("not an out-of-bounds error: {other}"),
    }
}
