//! AMD's HIP compiler on every program, with no AMD GPU (layer 1, the HIP backend):
//! `NUDA_HIP_CHECK=gfx90a,gfx1030` compiles each source-form program the process launches,
//! on any device, in the HIP dialect with hiprtc for each architecture listed, before the
//! launch. An error fails the launch with hiprtc's log; so does a crash of hiprtc (ROCm
//! 5.2's knows gfx908, gfx90a and gfx1030, and aborts on gfx940 and newer), which runs in a
//! child process so that the next launch still works. With `NUDA_DUMP=<dir>` the HIP C++
//! (`.hip`) and the code object's ISA (`.hip.s`, headed by each kernel's VGPRs, SGPRs,
//! spills, LDS bytes and waves per SIMD) go there too.

use super::{dialect, hiprtc};
use crate::backend::c::amdgpu;
use crate::backend::c::disk_cache::DiskCache;
use crate::backend::c::passed::{once_per_process, Passed, Seen};
use crate::backend::c::prelude::Prelude;
use crate::backend::{IndexType, KernelSource};
use crate::error::{number_lines, Compiler, Error, Result};
use std::sync::OnceLock;

/// Compiles `source` with hiprtc for every architecture `NUDA_HIP_CHECK` lists, once per
/// process; `kernel` names the launch in messages.
pub(crate) fn check(source: &KernelSource, index: IndexType, kernel: &str) -> Result<()> {
    static SEEN: OnceLock<Seen> = OnceLock::new();
    let archs = &crate::config::config().hip_check;
    once_per_process(&SEEN, archs, (source, index), |arch| {
        check_one(source, index, kernel, arch)
    })
}

/// The whole program in HIP C++: nuda's prelude (its HIP parts) and the source.
pub(crate) fn hip_text(source: &KernelSource, index: IndexType) -> String {
    let prelude = Prelude {
        index,
        images: true,
        cpu: false,
        dialect: &dialect::HIP_CXX,
        warps: None,
        rows: None,
    };
    let (text, _fp64) = prelude.for_source(source.source);
    dialect::translate(&text, source.source).text
}

/// hiprtc's options for `arch`: no `a * b + c` is fused, as Rust never does (clang fuses
/// by default on AMD GPUs).
pub(crate) fn options(arch: &str) -> Vec<String> {
    vec![
        format!("--offload-arch={arch}"),
        "-O3".into(),
        "-std=c++17".into(),
        "-ffp-contract=off".into(),
    ]
}

/// One architecture: a code object, or hiprtc's log or crash as the launch's error.
fn check_one(source: &KernelSource, index: IndexType, kernel: &str, arch: &str) -> Result<()> {
    let label = source.faults.as_ref().map_or(kernel, |f| f.label);
    let text = hip_text(source, index);
    let device = format!("no device (NUDA_HIP_CHECK, {arch})");
    let options = options(arch);
    let passed = hiprtc::version()
        .ok()
        .and_then(|v| Passed::new("hiprtc-checks", &v, &text, &options));
    if Passed::skips_amd(&passed) {
        return Ok(());
    }
    let log = match hiprtc::compile(&text, label, &options) {
        Ok(c) if c.log.contains("warning:") => c.log,
        Ok(c) => {
            let origin = source.faults.as_ref().map(|f| f.origin);
            if let Ok(tools) = amdgpu::tools() {
                amdgpu::collect(tools, "hiprtc", arch, (&c.code, &|| None));
            }
            dump(&text, (label, origin), arch, &c.code);
            if let Some(p) = &passed {
                p.record();
            }
            return Ok(());
        }
        Err(hiprtc::Failure::Rejected(log)) => log,
        Err(hiprtc::Failure::Crashed(why)) => crashed(&why, label, arch),
        Err(hiprtc::Failure::Missing(why)) => {
            return Err(Error::Launch {
                kernel: kernel.into(),
                device,
                reason: format!("NUDA_HIP_CHECK is set, but {why}"),
            })
        }
    };
    Err(Error::Build {
        compiler: Compiler::Hiprtc,
        program: label.into(),
        device,
        log,
        numbered_source: number_lines(&text),
        generated_from: source.faults.as_ref().map(|f| f.origin),
    })
}

/// A crash's message, with what to do where the architecture is one ROCm 5.2 does not know.
fn crashed(why: &str, label: &str, arch: &str) -> String {
    let known = ["gfx908", "gfx90a", "gfx1030"];
    let hint = match known.contains(&arch) {
        true => "",
        false => {
            "; the hiprtc of ROCm 5.2 knows gfx908, gfx90a and gfx1030 and aborts on gfx940 \
             and newer: choose another architecture in NUDA_HIP_CHECK, or a newer ROCm"
        }
    };
    format!("{why} compiling `{label}` for {arch}{hint}")
}

/// Writes the HIP C++ and the code object's ISA, headed by each kernel's resources, to
/// `NUDA_DUMP`, if set.
fn dump(text: &str, (label, origin): (&str, Option<&str>), arch: &str, code: &[u8]) {
    let Some(dir) = crate::config::config().dump.as_ref() else {
        return;
    };
    let digest = &DiskCache::key_of_text(text)[..12];
    let mut files = vec![(format!("{label}-{digest}.hip"), text.to_string())];
    let isa = amdgpu::tools().and_then(|t| amdgpu::dump_text(t, arch, origin, (code, &|| None)));
    match isa {
        Ok(isa) => files.push((format!("{label}-{digest}-{arch}.hip.s"), isa)),
        Err(why) => eprintln!("nuda: NUDA_DUMP: no AMD ISA for {label}: {why}"),
    }
    for (name, body) in files {
        let path = dir.join(name);
        let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, body));
        if let Err(e) = written {
            eprintln!("nuda: NUDA_DUMP: cannot write {}: {e}", path.display());
        }
    }
}
