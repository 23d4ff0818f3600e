//! Every error path of the runtime, each checked for its variant and for a message that says
//! what to do. Environment errors run in child processes, since the environment is read once.

mod common;

use common::{child, is_child, opencl, probe};
use nuda_runtime::{Error, IndexType, KernelSource, Launch, NuArray1, NuArray2};

// SAFETY: the source does not compile, so no kernel of it ever runs.
static BROKEN: KernelSource = unsafe {
    KernelSource::new(
        "kernel void broken(global float* a, nu_idx n) {
         a[get_global_id(0)] = undeclared_name * 2.0f;
     }",
    )
};

#[test]
fn build_failure_carries_the_log_and_the_numbered_source() {
    let Some(dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::new(4);
    let e = Launch::new(&BROKEN, "broken")
        .on(&dev)
        .global([4])
        .array_mut(&mut a)
        .run()
        .unwrap_err();
    let Error::Build {
        compiler,
        log,
        numbered_source,
        ..
    } = &e
    else {
        panic!("not a build error: {e}")
    };
    assert!(log.contains("undeclared_name"), "log: {log}");
    assert!(
        numbered_source.contains("| typedef uint nu_idx;"),
        "{numbered_source}"
    );
    // Under NUDA_CUDA_CHECK, NVRTC sees the program first, in the CUDA dialect.
    let head = match compiler {
        nuda_runtime::Compiler::Nvrtc => "| extern \"C\" __global__ void broken",
        _ => "| kernel void broken",
    };
    assert!(numbered_source.contains(head), "{numbered_source}");
    let msg = e.to_string();
    assert!(
        msg.contains("--- build log ---") && msg.contains("--- source ---"),
        "{msg}"
    );
}

// SAFETY: the one access is guarded by the dim `n`.
static ADD: KernelSource = unsafe {
    KernelSource::new(
        "kernel void add(global float* a, nu_idx n, float v) {
         nu_idx i = get_global_id(0);
         if (i < n) a[i] += v;
     }",
    )
};

#[test]
fn wrong_argument_count_is_a_launch_error() {
    let Some(dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::new(4);
    let e = Launch::new(&ADD, "add")
        .on(&dev)
        .global([4])
        .array_mut(&mut a)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::Launch { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("declares 3 parameters but the launch passes 2"),
        "{e}"
    );
}

#[test]
fn wrong_argument_size_is_a_launch_error() {
    let Some(dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::new(4);
    let e = Launch::new(&ADD, "add")
        .on(&dev)
        .global([4])
        .array_mut(&mut a)
        .arg(1.0f64)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::Launch { .. }), "{e}");
    assert!(e.to_string().contains("parameter 2"), "{e}");
}

#[test]
fn unknown_kernel_name_lists_the_kernels() {
    let Some(dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::new(4);
    let e = Launch::new(&ADD, "sub")
        .on(&dev)
        .global([4])
        .array_mut(&mut a)
        .arg(1.0f32)
        .run()
        .unwrap_err();
    assert!(e.to_string().contains("its kernels are: add"), "{e}");
}

#[test]
fn oversized_work_groups_are_dims_errors() {
    let Some(dev) = opencl() else { return };
    let mut a = NuArray1::<f32>::new(4);
    let too_big = dev.info().max_work_group_size + 1;
    let e = Launch::new(&ADD, "add")
        .on(&dev)
        .global([4])
        .local([too_big])
        .array_mut(&mut a)
        .arg(1.0f32)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::DimsMismatch { .. }), "{e}");
    let e = Launch::new(&ADD, "add")
        .on(&dev)
        .global([4, 4])
        .local([2])
        .array_mut(&mut a)
        .arg(1.0f32)
        .run()
        .unwrap_err();
    assert!(
        e.to_string().contains("one local size per global size"),
        "{e}"
    );
    // Sizes whose arithmetic would overflow (a product of huge local sizes, a global size
    // rounded up past usize::MAX) or whose work-groups PoCL could not number in 32 bits (it
    // aborts the process): errors, not panics or aborts.
    let huge: [([usize; 2], Option<[usize; 2]>); 4] = [
        ([4, 4], Some([1 << 40, 1 << 40])),
        ([usize::MAX, 1], Some([2, 1])),
        ([usize::MAX, 1], Some([3, 1])),
        ([1 << 33, 1], None),
    ];
    for (global, local) in huge {
        let mut l = Launch::new(&ADD, "add").on(&dev).global(global);
        if let Some(local) = local {
            l = l.local(local);
        }
        let e = l.array_mut(&mut a).arg(1.0f32).run().unwrap_err();
        assert!(matches!(e, Error::DimsMismatch { .. }), "{e}");
    }
}

#[test]
fn arrays_beyond_the_device_allocation_limit_are_out_of_resources() {
    let Some(dev) = opencl() else { return };
    // Never touched on the host, so only the device allocation is attempted.
    let mut a = NuArray1::<f32>::new((dev.info().max_alloc / 4 + 1) as usize);
    let e = Launch::new(&ADD, "add")
        .on(&dev)
        .global([4])
        .array_mut(&mut a)
        .arg(1.0f32)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::OutOfResources { .. }), "{e}");
    assert!(e.to_string().contains("use smaller arrays"), "{e}");
}

// SAFETY: its one launch asks for more local memory than the device has, so it never runs.
static LOCAL: KernelSource =
    unsafe { KernelSource::new("kernel void uses_local(local float* t) { t[0] = 1.0f; }") };

#[test]
fn too_much_local_memory_is_out_of_resources() {
    let Some(dev) = opencl() else { return };
    let floats = (dev.info().local_memory / 4 + 1) as usize;
    let e = Launch::new(&LOCAL, "uses_local")
        .on(&dev)
        .global([1])
        .local_array::<f32>(floats)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::OutOfResources { .. }), "{e}");
}

// SAFETY: its one launch needs more constant memory than the device has, so it never runs.
static CONST: KernelSource = unsafe {
    KernelSource::new(
    "kernel void sum_const(global float* out, nu_idx n, constant float* c, nu_idx m) { out[0] = c[0]; }",
)
};

#[test]
fn constant_arrays_beyond_constant_memory_are_out_of_resources() {
    let Some(dev) = opencl() else { return };
    let mut out = NuArray1::<f32>::new(1);
    let c = NuArray1::<f32>::new((dev.info().constant_memory / 4 + 1) as usize);
    let e = Launch::new(&CONST, "sum_const")
        .on(&dev)
        .global([1])
        .array_mut(&mut out)
        .constant(&c)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::OutOfResources { .. }), "{e}");
}

#[test]
fn forcing_32_bit_indices_on_a_huge_array_is_a_dims_error() {
    let Some(dev) = opencl() else { return };
    let mut a = NuArray2::<u8>::new((1 << 16, 1 << 16));
    let e = Launch::new(&ADD, "add")
        .on(&dev)
        .index_type(IndexType::U32)
        .global([4])
        .array_mut(&mut a)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::DimsMismatch { .. }), "{e}");
}

#[test]
fn bad_device_indices_are_selection_errors() {
    let n = nuda_runtime::devices().len();
    let e = nuda_runtime::set_device(n).unwrap_err();
    assert!(matches!(e, Error::BadSelection { .. }), "{e}");
    assert!(nuda_runtime::with_device(n + 3, || ()).is_err());
}

/// Run by the tests below in a child process: reports what `init` and a launch say.
#[test]
fn child_report_init() {
    if !is_child() {
        return;
    }
    match nuda_runtime::init() {
        Ok(()) => println!(
            "PROBE init=ok {}",
            nuda_runtime::current_device().unwrap().label()
        ),
        Err(e) => println!("PROBE init=err {e:?} | {e}"),
    }
    let mut a = NuArray1::<f32>::new(4);
    let r = Launch::new(&ADD, "add")
        .global([4])
        .array_mut(&mut a)
        .arg(1.0f32)
        .run();
    println!(
        "PROBE launch={}",
        r.map_or_else(|e| format!("err {e}"), |_| "ok".into())
    );
}

fn init_result(env: &[(&str, &str)]) -> (String, String) {
    let out = child("child_report_init", env);
    (probe(&out, "init"), probe(&out, "launch"))
}

#[test]
fn malformed_nuda_engine_is_an_error_everywhere() {
    let (init, launch) = init_result(&[("NUDA_ENGINE", "metal")]);
    assert!(
        init.starts_with("err BadSelection") && init.contains("auto, cuda, hip, opencl, native"),
        "{init}"
    );
    assert!(
        launch.contains("NUDA_ENGINE"),
        "a launch reports it too: {launch}"
    );
}

#[test]
fn malformed_nuda_device_values_are_errors() {
    for bad in ["-1", "3x", "99"] {
        let (init, _) = init_result(&[("NUDA_DEVICE", bad)]);
        assert!(
            init.starts_with("err BadSelection") && init.contains("NUDA_DEVICE"),
            "{bad}: {init}"
        );
    }
    let (init, _) = init_result(&[("NUDA_DEVICE", "no-such-device-name")]);
    assert!(init.contains("no device name contains it"), "{init}");
}

#[test]
fn nuda_device_and_engine_select_devices() {
    let (init, launch) = init_result(&[("NUDA_ENGINE", "native")]);
    assert!(init.starts_with("ok device 0 (native engine"), "{init}");
    assert!(
        launch.contains("native engine"),
        "an OpenCL C kernel cannot run there: {launch}"
    );
    let (init, _) = init_result(&[("NUDA_DEVICE", "NATIVE")]);
    assert!(init.contains("(native engine"), "{init}");
    if opencl().is_some() {
        let (init, launch) = init_result(&[("NUDA_ENGINE", "opencl"), ("NUDA_DEVICE", "0")]);
        assert!(
            init.starts_with("ok device 0") && launch == "ok",
            "{init} {launch}"
        );
    }
}

#[test]
fn opencl_engine_without_a_platform_is_no_device() {
    // An empty vendor directory and an empty list of extra drivers hide every installed OpenCL
    // driver from the ICD loader (the GPU machine names its drivers in OCL_ICD_FILENAMES).
    let empty = std::env::temp_dir().join(format!("nuda-no-icd-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let dir = empty.to_str().unwrap();
    let hidden = [("OCL_ICD_VENDORS", dir), ("OCL_ICD_FILENAMES", "")];
    let (init, _) = init_result(&[("NUDA_ENGINE", "opencl"), hidden[0], hidden[1]]);
    assert!(
        init.starts_with("err NoDevice") && init.contains("pocl-opencl-icd"),
        "{init}"
    );
    let out = child("child_report_init", &hidden);
    assert!(
        probe(&out, "init").contains("native engine"),
        "auto falls back to native"
    );
    assert!(
        common::text(&out).contains("running on the native engine"),
        "with one line on stderr"
    );
}

#[test]
fn malformed_nuda_cache_is_an_error() {
    let (init, _) = init_result(&[("NUDA_CACHE", "sometimes")]);
    assert!(
        init.starts_with("err BadConfig") && init.contains("NUDA_CACHE"),
        "{init}"
    );
}
