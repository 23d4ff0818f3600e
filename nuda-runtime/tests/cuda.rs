//! The CUDA backend where no GPU is: NVRTC's compile check (`NUDA_CUDA_CHECK`) on a kernel it
//! rejects and on one it accepts, a malformed architecture list, and `NUDA_ENGINE=cuda` with
//! no CUDA driver. NVRTC comes from pip's `nvidia-cuda-nvrtc-cu12`, which `scripts/test`
//! installs; without it these tests skip, unless `NUDA_REQUIRE_NVRTC=1` makes that a failure.
//! Each runs in a child process, since the environment is read once.

mod common;

use common::{child, is_child, opencl, probe};
use nuda_runtime::{devices, Error, KernelSource, Launch, NuArray1};

// SAFETY: the source does not compile, so no kernel of it ever runs.
static BROKEN: KernelSource = unsafe {
    KernelSource::new(
        "kernel void broken_for_nvrtc(global float* a, nu_idx n) {
         a[get_global_id(0)] = undeclared_name * 2.0f;
     }",
    )
};

// SAFETY: the one access is guarded by the dim `n`.
static SCALE: KernelSource = unsafe {
    KernelSource::new(
        "kernel void scale(global float* a, nu_idx n, float v) {
         nu_idx i = get_global_id(0);
         if (i < n) a[i] = a[i] * v;
     }",
    )
};

/// Whether NVRTC can be found, as the check mode looks for it (a child reports).
fn nvrtc_here() -> bool {
    let out = child("child_nvrtc_probe", &[("NUDA_CUDA_CHECK", "sm_90")]);
    let found = probe(&out, "nvrtc") == "yes";
    if !found {
        assert!(
            std::env::var("NUDA_REQUIRE_NVRTC").as_deref() != Ok("1"),
            "NUDA_REQUIRE_NVRTC=1 but NVRTC was not found: {}",
            probe(&out, "why")
        );
        eprintln!("skipped: no NVRTC (pip install nvidia-cuda-nvrtc-cu12)");
    }
    found
}

/// Launches `SCALE` on the OpenCL device under this child's `NUDA_CUDA_CHECK`.
#[test]
fn child_nvrtc_probe() {
    if !is_child() {
        return;
    }
    let Some(dev) = opencl() else {
        println!("PROBE nvrtc=no\nPROBE why=no OpenCL device to launch on");
        return;
    };
    let mut a = NuArray1::<f32>::from_fn(8, |i| i as f32);
    let r = Launch::new(&SCALE, "scale")
        .on(&dev)
        .global([8])
        .array_mut(&mut a)
        .arg(2.0f32)
        .run();
    match r {
        Ok(_) => println!("PROBE nvrtc=yes\nPROBE value={}", a.to_vec()[3]),
        Err(e) => println!(
            "PROBE nvrtc=no\nPROBE why={}",
            e.to_string().replace('\n', " ")
        ),
    }
}

#[test]
fn child_launch_broken() {
    if !is_child() {
        return;
    }
    let Some(dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::new(4);
    let e = Launch::new(&BROKEN, "broken_for_nvrtc")
        .on(&dev)
        .global([4])
        .array_mut(&mut a)
        .run()
        .unwrap_err();
    match &e {
        Error::Build {
            compiler,
            program,
            log,
            ..
        } => {
            println!("PROBE compiler={compiler}\nPROBE program={program}");
            println!("PROBE log={}", log.replace('\n', " "));
        }
        other => println!("PROBE compiler=none\nPROBE program=none\nPROBE log={other}"),
    }
    println!(
        "PROBE message={}",
        e.to_string().lines().next().unwrap_or("")
    );
}

#[test]
fn a_kernel_nvrtc_rejects_is_an_error_naming_it_with_nvrtcs_log() {
    if opencl().is_none() || !nvrtc_here() {
        return;
    }
    let out = child("child_launch_broken", &[("NUDA_CUDA_CHECK", "sm_80,sm_90")]);
    assert_eq!(probe(&out, "compiler"), "NVRTC");
    assert_eq!(probe(&out, "program"), "broken_for_nvrtc");
    let log = probe(&out, "log");
    assert!(
        log.contains("identifier \"undeclared_name\" is undefined"),
        "{log}"
    );
    let message = probe(&out, "message");
    assert!(
        message.starts_with(
            "NVRTC build of `broken_for_nvrtc` failed on no device (NUDA_CUDA_CHECK, sm_80)"
        ),
        "{message}"
    );
}

#[test]
fn a_kernel_nvrtc_accepts_runs_as_before() {
    if opencl().is_none() || !nvrtc_here() {
        return;
    }
    let out = child("child_nvrtc_probe", &[("NUDA_CUDA_CHECK", "sm_80,sm_90")]);
    assert_eq!(probe(&out, "value"), "6");
}

#[test]
fn a_malformed_architecture_list_is_an_error() {
    if opencl().is_none() {
        return;
    }
    let out = child("child_nvrtc_probe", &[("NUDA_CUDA_CHECK", "sm_90,hopper")]);
    let why = probe(&out, "why");
    assert!(
        why.contains("NUDA_CUDA_CHECK") && why.contains("`hopper` is not a CUDA architecture"),
        "{why}"
    );
}

#[test]
fn child_report_engine() {
    if !is_child() {
        return;
    }
    match nuda_runtime::init() {
        Ok(()) => println!("PROBE init=ok"),
        Err(e) => println!("PROBE init=err {e}"),
    }
    let backends: Vec<&str> = devices().iter().map(|d| d.backend).collect();
    println!("PROBE backends={}", backends.join(","));
}

/// Whether this machine has a CUDA driver at all, as the loader sees it.
fn cuda_driver_here() -> bool {
    ["libcuda.so.1", "libcuda.so"].iter().any(|name| {
        // SAFETY: loading NVIDIA's driver library runs only its initialisers.
        unsafe { libloading::Library::new(*name) }.is_ok()
    })
}

#[test]
fn nuda_engine_cuda_without_a_driver_is_a_clear_error() {
    let out = child("child_report_engine", &[("NUDA_ENGINE", "cuda")]);
    let init = probe(&out, "init");
    if cuda_driver_here() {
        assert_eq!(init, "ok", "a CUDA driver is here, so its GPUs are listed");
        assert!(probe(&out, "backends").split(',').all(|b| b == "CUDA"));
        return;
    }
    assert!(
        init.starts_with(
            "err no device: NUDA_ENGINE=cuda but no CUDA device was found (no CUDA driver"
        ),
        "{init}"
    );
    assert_eq!(probe(&out, "backends"), "");
}

#[test]
fn the_default_order_puts_cuda_first_and_skips_it_without_a_driver() {
    let out = child("child_report_engine", &[]);
    assert_eq!(probe(&out, "init"), "ok");
    let backends = probe(&out, "backends");
    let list: Vec<&str> = backends.split(',').collect();
    if !cuda_driver_here() {
        assert!(!list.contains(&"CUDA"), "{backends}");
    }
    // CUDA GPUs, then OpenCL devices, then the native engine.
    let rank = |b: &str| match b {
        "CUDA" => 0,
        "native" => 2,
        _ => 1,
    };
    assert!(
        list.windows(2).all(|w| rank(w[0]) <= rank(w[1])),
        "{backends}"
    );
    assert_eq!(list.last(), Some(&"native"), "{backends}");
}

#[test]
fn a_clean_check_is_remembered_per_architecture_in_the_cache() {
    if opencl().is_none() || !nvrtc_here() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("nuda-nvrtc-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let env = [
        ("NUDA_CUDA_CHECK", "sm_80,sm_90"),
        ("NUDA_CACHE_DIR", dir.to_str().unwrap()),
    ];
    assert_eq!(probe(&child("child_nvrtc_probe", &env), "value"), "6");
    let marks = std::fs::read_dir(dir.join("nvrtc-checks")).map_or(0, |r| r.count());
    assert_eq!(marks, 2, "one clean check per architecture");
    // The second process finds both and still runs the kernel.
    assert_eq!(probe(&child("child_nvrtc_probe", &env), "value"), "6");
    let _ = std::fs::remove_dir_all(&dir);
}
