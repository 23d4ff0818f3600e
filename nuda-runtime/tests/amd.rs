//! AMD's compilers where no AMD GPU is: hiprtc's compile check (`NUDA_HIP_CHECK`) and
//! clang's for `amdgcn-amd-amdhsa` (`NUDA_AMDGCN_CHECK`) on a kernel they reject and on one
//! they accept, an architecture that crashes hiprtc, malformed lists, and `NUDA_ENGINE=hip`
//! with no AMD GPU. The compilers come from Debian's `libamdhip64-5`, `clang-15`, `lld-15`
//! and `rocm-device-libs`, which `scripts/test` installs; without them these tests skip,
//! unless `NUDA_REQUIRE_AMD=1` makes that a failure. Each runs in a child process, since the
//! environment is read once.

mod common;

use common::{child, is_child, opencl, probe};
use nuda_runtime::{devices, Error, KernelSource, Launch, NuArray1};

// SAFETY: the source does not compile, so no kernel of it ever runs.
static BROKEN: KernelSource = unsafe {
    KernelSource::new(
        "kernel void broken_for_amd(global float* a, nu_idx n) {
         a[get_global_id(0)] = undeclared_name * 2.0f;
     }",
    )
};

// SAFETY: the one access is guarded by the dim `n`; the local buffer is the launch's.
static SCALE: KernelSource = unsafe {
    KernelSource::new(
        "__kernel __attribute__((reqd_work_group_size(8, 1, 1))) void scale(__global float* a, nu_idx n, float v, __local float* t) {
         nu_idx i = get_global_id(0);
         if (i < n) { t[get_local_id(0)] = a[i]; a[i] = t[get_local_id(0)] * v; }
     }",
    )
};

/// Whether the AMD compilers are here; `NUDA_REQUIRE_AMD=1` makes their absence a failure.
fn amd_here(var: &str, arch: &str) -> bool {
    let out = child("child_scale", &[(var, arch)]);
    let found = scaled(&out);
    if !found {
        assert!(
            std::env::var("NUDA_REQUIRE_AMD").as_deref() != Ok("1"),
            "NUDA_REQUIRE_AMD=1 but {var} did not pass: {}",
            probe(&out, "why")
        );
        eprintln!("skipped: {var} did not pass ({})", probe(&out, "why"));
    }
    found
}

/// Whether the child's launch of `SCALE` passed and scaled.
fn scaled(out: &std::process::Output) -> bool {
    String::from_utf8_lossy(&out.stdout).contains("PROBE value=6")
}

/// Launches `SCALE` on the OpenCL device under this child's checks.
#[test]
fn child_scale() {
    if !is_child() {
        return;
    }
    let Some(dev) = opencl() else {
        println!("PROBE why=no OpenCL device to launch on");
        return;
    };
    let mut a = NuArray1::<f32>::from_fn(8, |i| i as f32);
    let run = |a: &mut NuArray1<f32>| {
        Launch::new(&SCALE, "scale")
            .on(&dev)
            .global([8])
            .local([8])
            .array_mut(a)
            .arg(2.0f32)
            .local_array::<f32>(8)
            .run()
    };
    match run(&mut a) {
        Ok(_) => println!("PROBE value={}", a.to_vec()[3]),
        Err(e) => println!("PROBE why={}", e.to_string().replace('\n', " ")),
    }
    // The process lives on after a failed check, and so do its arrays and devices.
    let again = run(&mut a).map_or_else(
        |e| format!("err {}", e.to_string().replace('\n', " ")),
        |_| "ok".into(),
    );
    println!("PROBE again={again}\nPROBE alive={}", a.to_vec().len());
}

#[test]
fn child_broken() {
    if !is_child() {
        return;
    }
    let Some(dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::new(4);
    let e = Launch::new(&BROKEN, "broken_for_amd")
        .on(&dev)
        .global([4])
        .array_mut(&mut a)
        .run()
        .unwrap_err();
    if let Error::Build {
        compiler,
        program,
        log,
        ..
    } = &e
    {
        println!("PROBE compiler={compiler}\nPROBE program={program}");
        println!("PROBE log={}", log.replace('\n', " "));
    }
    println!(
        "PROBE message={}",
        e.to_string().lines().next().unwrap_or("")
    );
}

#[test]
fn hiprtc_compiles_a_hand_written_kernel_for_two_architectures() {
    if opencl().is_none() {
        return;
    }
    amd_here("NUDA_HIP_CHECK", "gfx90a,gfx1030");
}

#[test]
fn clang_compiles_a_hand_written_kernel_for_amdgcn() {
    if opencl().is_none() {
        return;
    }
    amd_here("NUDA_AMDGCN_CHECK", "gfx90a,gfx940");
}

#[test]
fn a_kernel_hiprtc_rejects_is_an_error_naming_it_with_hiprtcs_log() {
    if opencl().is_none() || !amd_here("NUDA_HIP_CHECK", "gfx90a") {
        return;
    }
    // Only this compiler: scripts/test turns NVRTC's and clang's checks on too.
    let only = [
        ("NUDA_HIP_CHECK", "gfx90a"),
        ("NUDA_CUDA_CHECK", ""),
        ("NUDA_AMDGCN_CHECK", ""),
    ];
    let out = child("child_broken", &only);
    assert_eq!(probe(&out, "compiler"), "hiprtc");
    assert_eq!(probe(&out, "program"), "broken_for_amd");
    let log = probe(&out, "log");
    assert!(log.contains("undeclared_name"), "{log}");
    let message = probe(&out, "message");
    assert!(
        message.starts_with(
            "hiprtc build of `broken_for_amd` failed on no device (NUDA_HIP_CHECK, gfx90a)"
        ),
        "{message}"
    );
}

#[test]
fn a_kernel_clang_rejects_for_amdgcn_is_an_error_with_clangs_log() {
    if opencl().is_none() || !amd_here("NUDA_AMDGCN_CHECK", "gfx90a") {
        return;
    }
    let only = [
        ("NUDA_AMDGCN_CHECK", "gfx940"),
        ("NUDA_CUDA_CHECK", ""),
        ("NUDA_HIP_CHECK", ""),
    ];
    let out = child("child_broken", &only);
    assert_eq!(probe(&out, "compiler"), "clang (amdgcn)");
    let log = probe(&out, "log");
    assert!(log.contains("undeclared_name"), "{log}");
    let message = probe(&out, "message");
    assert!(message.contains("(NUDA_AMDGCN_CHECK, gfx940)"), "{message}");
}

#[test]
fn an_architecture_that_crashes_hiprtc_is_an_error_and_the_process_goes_on() {
    if opencl().is_none() || !amd_here("NUDA_HIP_CHECK", "gfx90a") {
        return;
    }
    let out = child("child_scale", &[("NUDA_HIP_CHECK", "gfx940")]);
    // A newer hiprtc may know gfx940; Debian's (ROCm 5.2) aborts on it.
    if scaled(&out) {
        return;
    }
    let why = probe(&out, "why");
    assert!(why.contains("hiprtc") && why.contains("gfx940"), "{why}");
    // A crash is tried once more before it is reported (a one-off crash passes then).
    assert!(why.contains("twice"), "{why}");
    assert!(
        probe(&out, "again").starts_with("err "),
        "{}",
        probe(&out, "again")
    );
    assert_eq!(probe(&out, "alive"), "8");
}

#[test]
fn malformed_amd_architecture_lists_are_errors() {
    if opencl().is_none() {
        return;
    }
    for var in ["NUDA_HIP_CHECK", "NUDA_AMDGCN_CHECK"] {
        let out = child("child_scale", &[(var, "gfx90a,sm_90")]);
        let why = probe(&out, "why");
        assert!(
            why.contains(var) && why.contains("`sm_90` is not an AMD GPU architecture"),
            "{why}"
        );
    }
}

#[test]
fn child_report_engine() {
    if !is_child() {
        return;
    }
    match nuda_runtime::init() {
        Ok(()) => println!("PROBE init=ok"),
        Err(e) => println!("PROBE init=err {}", e.to_string().replace('\n', " ")),
    }
    let backends: Vec<&str> = devices().iter().map(|d| d.backend).collect();
    println!("PROBE backends={}", backends.join(","));
}

#[test]
fn nuda_engine_hip_without_an_amd_gpu_is_an_error_naming_hip() {
    let out = child("child_report_engine", &[("NUDA_ENGINE", "hip")]);
    let init = probe(&out, "init");
    if init == "ok" {
        // An AMD GPU is here: only HIP's devices are listed.
        assert!(probe(&out, "backends").split(',').all(|b| b == "HIP"));
        return;
    }
    assert!(
        init.starts_with("err no device: NUDA_ENGINE=hip but no HIP device"),
        "{init}"
    );
    assert!(
        init.contains("libamdhip64") || init.contains("AMD GPU"),
        "says what is missing: {init}"
    );
    assert_eq!(probe(&out, "backends"), "");
}
