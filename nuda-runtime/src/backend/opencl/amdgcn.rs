//! ROCm's OpenCL compile on every program, with no AMD GPU (layer 1, the OpenCL backend):
//! `NUDA_AMDGCN_CHECK=gfx90a,gfx940` compiles each source-form program the process launches,
//! on any device, as ROCm's OpenCL runtime would: the program's OpenCL C for a GPU (nuda's
//! prelude with images), by clang for `amdgcn-amd-amdhsa` with ROCm's device libraries,
//! linked into a code object. An error fails the launch with clang's log (a warning too, under
//! `NUDA_CL_WERROR`, as for the OpenCL build). With `NUDA_DUMP=<dir>` the code object's ISA
//! (`.amdgcn.s`, headed by each kernel's VGPRs, SGPRs, spills, LDS bytes and waves per SIMD)
//! goes there too.

use crate::backend::c::amdgpu::{self, TempFile, Tools};
use crate::backend::c::dialect::OPENCL_C;
use crate::backend::c::disk_cache::DiskCache;
use crate::backend::c::passed::{once_per_process, Passed, Seen};
use crate::backend::c::prelude::Prelude;
use crate::backend::{IndexType, KernelSource};
use crate::error::{number_lines, Compiler, Error, Result};
use std::process::Command;
use std::sync::OnceLock;

/// Compiles `source` with clang for every architecture `NUDA_AMDGCN_CHECK` lists, once per
/// process; `kernel` names the launch in messages.
pub(crate) fn check(source: &KernelSource, index: IndexType, kernel: &str) -> Result<()> {
    static SEEN: OnceLock<Seen> = OnceLock::new();
    let archs = &crate::config::config().amdgcn_check;
    once_per_process(&SEEN, archs, (source, index), |arch| {
        check_one(source, index, kernel, arch)
    })
}

/// The program as ROCm's OpenCL compiles it for a GPU: the prelude for a GPU with images and
/// ROCm's warp shuffles (`subgroups.rs`), then the source.
pub(crate) fn gpu_text(source: &KernelSource, index: IndexType) -> String {
    let prelude = Prelude {
        index,
        images: true,
        cpu: false,
        dialect: &OPENCL_C,
        warps: Some(super::subgroups::AMDGCN),
        rows: None,
    };
    prelude.for_source(source.source).0 + &nuda_abi::dialect::to_opencl(source.source)
}

/// Whether GPUs of `arch` have image instructions: CDNA 3 (gfx94x, the MI300) has none, and
/// clang refuses image reads there ("requested image instruction is not supported").
pub(crate) fn has_images(arch: &str) -> bool {
    !arch.starts_with("gfx94")
}

/// clang's options for `arch`, as ROCm's OpenCL runtime passes them, plus nuda's own.
fn options(tools: &Tools, arch: &str, werror: bool) -> Vec<String> {
    let mut o = vec![
        "-x".into(),
        "cl".into(),
        "-cl-std=CL1.2".into(),
        "-Xclang".into(),
        "-finclude-default-header".into(),
        "-target".into(),
        "amdgcn-amd-amdhsa".into(),
        format!("-mcpu={arch}"),
        format!("--rocm-device-lib-path={}", tools.device_libs.display()),
        "-O3".into(),
    ];
    if werror {
        o.push("-Werror".into());
    }
    o
}

/// One architecture: clang's code object, or its log.
fn check_one(source: &KernelSource, index: IndexType, kernel: &str, arch: &str) -> Result<()> {
    let label = source.faults.as_ref().map_or(kernel, |f| f.label);
    let device = format!("no device (NUDA_AMDGCN_CHECK, {arch})");
    let tools = amdgpu::tools().map_err(|why| Error::Launch {
        kernel: kernel.into(),
        device: device.clone(),
        reason: format!("NUDA_AMDGCN_CHECK is set, but {why}"),
    })?;
    let text = gpu_text(source, index);
    if source.source.contains("image2d_t") && !has_images(arch) {
        // ROCm's OpenCL reports no image support there, so nuda refuses such a program on
        // that device before anything compiles it.
        return Ok(());
    }
    let options = options(tools, arch, crate::config::config().werror.clone()?);
    let passed = Passed::new("amdgcn-checks", &tools.version, &text, &options);
    if Passed::skips_amd(&passed) {
        return Ok(());
    }
    match compile(tools, &text, &options) {
        Ok(code) => {
            let origin = source.faults.as_ref().map(|f| f.origin);
            // The assembly again from clang where llvm-objdump fails (gfx940 on LLVM 15).
            let asm = || assembly(tools, &text, &options);
            amdgpu::collect(tools, "clang", arch, (&code, &asm));
            dump(tools, &text, (label, origin), arch, (&code, &asm));
            if let Some(p) = passed {
                p.record();
            }
            Ok(())
        }
        Err(log) => Err(Error::Build {
            compiler: Compiler::Clang,
            program: label.into(),
            device,
            log,
            numbered_source: number_lines(&text),
            generated_from: source.faults.as_ref().map(|f| f.origin),
        }),
    }
}

/// clang's code object for `text`, or its log (a warning is in the log only with `-Werror`).
fn compile(tools: &Tools, text: &str, options: &[String]) -> Result<Vec<u8>, String> {
    let (cl, co) = (TempFile::new(".cl"), TempFile::new(".co"));
    std::fs::write(&cl.0, text).map_err(|e| format!("cannot write {}: {e}", cl.0.display()))?;
    let out = Command::new(&tools.clang)
        .args(options)
        .arg("-o")
        .arg(&co.0)
        .arg(&cl.0)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tools.clang.display()))?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    match out.status.success() {
        true => {
            std::fs::read(&co.0).map_err(|e| format!("no code object ({e}); clang said: {log}"))
        }
        false => Err(log),
    }
}

/// clang's assembly for `text` (`-S`), or `None` if it fails.
fn assembly(tools: &Tools, text: &str, options: &[String]) -> Option<String> {
    let (cl, s) = (TempFile::new(".cl"), TempFile::new(".s"));
    std::fs::write(&cl.0, text).ok()?;
    let out = Command::new(&tools.clang)
        .args(options)
        .arg("-S")
        .arg("-o")
        .arg(&s.0)
        .arg(&cl.0)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| std::fs::read_to_string(&s.0).ok())?
}

/// Writes the code object's ISA, headed by the macro call it came from and each kernel's
/// resources, to `NUDA_DUMP`, if set.
fn dump(
    tools: &Tools,
    text: &str,
    (label, origin): (&str, Option<&str>),
    arch: &str,
    code: (&[u8], amdgpu::Assembly<'_>),
) {
    let Some(dir) = crate::config::config().dump.as_ref() else {
        return;
    };
    let digest = &DiskCache::key_of_text(text)[..12];
    let body = amdgpu::dump_text(tools, arch, origin, code);
    let path = dir.join(format!("{label}-{digest}-{arch}.amdgcn.s"));
    let written = body.and_then(|b| {
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&path, b))
            .map_err(|e| e.to_string())
    });
    if let Err(e) = written {
        eprintln!("nuda: NUDA_DUMP: cannot write {}: {e}", path.display());
    }
}
