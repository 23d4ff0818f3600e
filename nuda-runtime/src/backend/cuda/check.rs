//! NVIDIA's compiler on every program, with no GPU (layer 1, the CUDA backend):
//! `NUDA_CUDA_CHECK=sm_80,sm_90` compiles each source-form program the process launches, on
//! any device, in the CUDA dialect with NVRTC for each architecture listed, before the
//! launch. An error or a warning fails the launch with NVRTC's log. With `NUDA_DUMP=<dir>`
//! the CUDA C (`.cu`), the PTX (`.ptx`) and ptxas's report of each kernel's registers, spills
//! and shared memory (`.ptxas`) of each program go there too.

use super::{nvrtc, program};
use crate::backend::c::disk_cache::DiskCache;
use crate::backend::c::passed::{once_per_process, Passed, Seen};
use crate::backend::{IndexType, KernelSource};
use crate::error::{number_lines, Compiler, Error, Result};
use std::sync::OnceLock;

/// Compiles `source` with NVRTC for every architecture `NUDA_CUDA_CHECK` lists, once per
/// process; `kernel` names the launch in messages.
pub(crate) fn check(source: &KernelSource, index: IndexType, kernel: &str) -> Result<()> {
    static SEEN: OnceLock<Seen> = OnceLock::new();
    let archs = &crate::config::config().cuda_check;
    once_per_process(&SEEN, archs, (source, index), |arch| {
        check_one(source, index, kernel, arch)
    })
}

/// One architecture: CUBIN through ptxas (its errors too), and the PTX when dumping.
fn check_one(source: &KernelSource, index: IndexType, kernel: &str, arch: &str) -> Result<()> {
    let label = source.faults.as_ref().map_or(kernel, |f| f.label);
    let text = program::cuda_text(source, index).text;
    let device = format!("no device (NUDA_CUDA_CHECK, {arch})");
    // ptxas's resource report (registers, spills, shared memory) goes to the dump.
    let mut options = program::options(arch);
    options.push("--ptxas-options=-v".into());
    let passed = nvrtc::version()
        .ok()
        .and_then(|v| Passed::new("nvrtc-checks", &format!("nvrtc {v}"), &text, &options));
    if passed.as_ref().is_some_and(Passed::seen) {
        return Ok(());
    }
    let compiled = nvrtc::compile(&text, label, &options, true);
    let log = match compiled {
        Ok(c) if !has_warning(&c.log) => {
            dump(&text, label, arch, &c.log, Some(&c.image));
            if let Some(p) = &passed {
                p.record();
            }
            return Ok(());
        }
        Ok(c) => c.log,
        Err(nvrtc::Failure::Rejected(log)) => log,
        Err(nvrtc::Failure::Missing(why)) => {
            return Err(Error::Launch {
                kernel: kernel.into(),
                device,
                reason: format!("NUDA_CUDA_CHECK is set, but {why}"),
            })
        }
    };
    Err(Error::Build {
        compiler: Compiler::Nvrtc,
        program: label.into(),
        device,
        log,
        numbered_source: number_lines(&text),
        generated_from: source.faults.as_ref().map(|f| f.origin),
    })
}

/// Whether NVRTC's log holds a warning (ptxas's `info` lines are not).
fn has_warning(log: &str) -> bool {
    log.lines().any(|l| l.contains("warning"))
}

/// Writes the CUDA C, its PTX and ptxas's report to `NUDA_DUMP`, if set, as the OpenCL
/// backend does its OpenCL C (the CUDA backend's builds call it too).
pub(crate) fn dump(text: &str, label: &str, arch: &str, ptxas: &str, cubin: Option<&[u8]>) {
    let Some(dir) = crate::config::config().dump.as_ref() else {
        return;
    };
    let digest = &DiskCache::key_of_text(text)[..12];
    let compute = arch.replace("sm_", "compute_");
    let ptx = nvrtc::compile(text, label, &program::options(&compute), false);
    let mut files = vec![(format!("{label}-{digest}.cu"), text.as_bytes().to_vec())];
    if !ptxas.is_empty() {
        files.push((
            format!("{label}-{digest}-{arch}.ptxas"),
            ptxas.as_bytes().to_vec(),
        ));
    }
    if let Ok(p) = ptx {
        files.push((format!("{label}-{digest}-{arch}.ptx"), p.image));
    }
    // NVIDIA's disassembly of the CUBIN, with a resource line per kernel first.
    match cubin.map(super::sass::disassemble) {
        Some(Ok((sass, kernels))) => {
            let head = super::sass::resource_lines(&kernels, ptxas);
            files.push((
                format!("{label}-{digest}-{arch}.sass"),
                (head + &sass).into_bytes(),
            ));
        }
        Some(Err(why)) => eprintln!("nuda: NUDA_DUMP: no SASS for {label}: {why}"),
        None => {}
    }
    for (name, bytes) in files {
        let path = dir.join(name);
        let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, bytes));
        if let Err(e) = written {
            eprintln!("nuda: NUDA_DUMP: cannot write {}: {e}", path.display());
        }
    }
}
