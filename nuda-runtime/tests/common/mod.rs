//! Helpers shared by the runtime's integration tests: finding the OpenCL and native devices,
//! and re-running this test binary as a child process with a different environment.

#![allow(dead_code)]

use nuda_runtime::{device, devices, Device, DeviceKind};
use std::process::{Command, Output};

/// The first OpenCL device. Without one the test is skipped, unless `NUDA_REQUIRE_OPENCL=1`
/// (set by `scripts/test`) makes that a failure.
pub fn opencl() -> Option<Device> {
    let found = devices().into_iter().find(|d| d.kind != DeviceKind::Native);
    match found {
        Some(info) => Some(device(info.index).expect("listed device")),
        None if std::env::var("NUDA_REQUIRE_OPENCL").as_deref() == Ok("1") => {
            panic!(
                "NUDA_REQUIRE_OPENCL=1 but nuda found no OpenCL device: {:?}",
                devices()
            )
        }
        None => {
            eprintln!("skipped: no OpenCL device (install pocl-opencl-icd)");
            None
        }
    }
}

/// The native engine's device.
pub fn native() -> Device {
    let info = devices().into_iter().find(|d| d.kind == DeviceKind::Native);
    device(
        info.expect("the native engine is listed under NUDA_ENGINE=auto")
            .index,
    )
    .unwrap()
}

/// Whether this process is a child started by `child`.
pub fn is_child() -> bool {
    std::env::var_os("NUDA_TEST_CHILD").is_some()
}

/// Runs the single test `name` of this test binary in a new process with `env` set.
pub fn child(name: &str, env: &[(&str, &str)]) -> Output {
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = Command::new(exe);
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("NUDA_TEST_CHILD", "1");
    for var in [
        "NUDA_ENGINE",
        "NUDA_DEVICE",
        "NUDA_CACHE",
        "NUDA_CACHE_DIR",
        "NUDA_DUMP",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("child test process");
    assert!(out.status.success(), "child {name} failed:\n{}", text(&out));
    out
}

/// A child's stdout and stderr.
pub fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

/// The value printed by a child as `PROBE key=value`.
pub fn probe(out: &Output, key: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let prefix = format!("PROBE {key}=");
    // The test harness may print the test's name on the same line first.
    let line = stdout
        .lines()
        .find_map(|l| l.split_once(&prefix).map(|(_, v)| v.to_string()));
    line.unwrap_or_else(|| panic!("child printed no {key}:\n{}", text(out)))
}

/// Asserts two float slices agree to a relative tolerance.
pub fn assert_close(got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let scale = w.abs().max(1.0);
        assert!(
            (g - w).abs() <= tol * scale,
            "element {i}: got {g}, want {w}"
        );
    }
}
