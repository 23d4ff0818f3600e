//! Programs: nuda's prelude plus the embedded source, built once per (device, source, index
//! type) and kept in memory; binaries also go to the disk cache so the next process skips the
//! compiler. `NUDA_DUMP=<dir>` writes each program's full text when this process first needs it.

use super::ClDevice;
use crate::backend::c::disk_cache::DiskCache;
use crate::backend::c::prelude::Prelude;
use crate::backend::{IndexType, KernelSource};
use crate::error::{number_lines, Error, Result};
use crate::stats::{record, Event};
use opencl3::error_codes::CL_BUILD_PROGRAM_FAILURE;
use opencl3::kernel::Kernel;
use opencl3::program::Program;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

type Slot = Arc<OnceLock<Result<Arc<Built>>>>;

/// Built programs of one device, keyed by the source's address and the index type: sources
/// are `'static` text embedded in the binary, so the address identifies them without hashing.
#[derive(Default)]
pub(crate) struct ProgramCache {
    slots: Mutex<HashMap<(usize, usize, IndexType), Slot>>,
}

/// A built program and a pool of kernel objects (`clSetKernelArg` is not thread-safe on one
/// kernel object, so each launch takes its own from the pool).
pub(crate) struct Built {
    program: Program,
    pool: Mutex<HashMap<String, Vec<Kernel>>>,
}

impl Built {
    /// Runs `f` with a kernel object of this name to itself.
    pub fn with_kernel<R>(
        &self,
        dev: &ClDevice,
        name: &str,
        f: impl FnOnce(&Kernel) -> Result<R>,
    ) -> Result<R> {
        let pooled = self.lock().get_mut(name).and_then(Vec::pop);
        let kernel = match pooled {
            Some(k) => k,
            None => Kernel::create(&self.program, name)
                .map_err(|e| no_kernel(dev, name, e.0, &self.program))?,
        };
        let out = f(&kernel);
        self.lock()
            .entry(name.to_string())
            .or_default()
            .push(kernel);
        out
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Kernel>>> {
        self.pool.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn no_kernel(dev: &ClDevice, name: &str, code: i32, program: &Program) -> Error {
    let names = program.kernel_names().to_string();
    Error::Launch {
        kernel: name.into(),
        device: dev.label.clone(),
        reason: format!(
            "the program has no kernel of that name ({}); its kernels are: {names}",
            super::code_name(code)
        ),
    }
}

impl ClDevice {
    /// The built program for `src` with index type `index`, building it on first use.
    pub(crate) fn program(
        &self,
        src: &KernelSource,
        index: IndexType,
        label: &str,
    ) -> Result<Arc<Built>> {
        let ctx = self.context()?;
        let key = (src.source.as_ptr() as usize, src.source.len(), index);
        let slot = {
            let mut slots = ctx
                .programs
                .slots
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            slots.entry(key).or_default().clone()
        };
        if let Some(done) = slot.get() {
            record(Some(self.index), Event::FromMemory);
            return done.clone();
        }
        // Builds of different programs run in parallel; a second caller of this one waits.
        slot.get_or_init(|| self.build(src, index, label).map(Arc::new))
            .clone()
    }

    fn build(&self, src: &KernelSource, index: IndexType, label: &str) -> Result<Built> {
        let choice = crate::config::config().subgroups.clone()?;
        let prelude = Prelude {
            index,
            images: self.info.images,
            cpu: self.info.kind == crate::backend::DeviceKind::Cpu,
            dialect: &crate::backend::c::dialect::OPENCL_C,
            warps: super::subgroups::chosen(self.warps, self.info.kind, choice),
            rows: crate::backend::c::dialect::rows_for(&self.info.platform, self.info.kind),
        };
        let (prelude, fp64) = prelude.for_source(src.source);
        if fp64 && !self.info.fp64 {
            return Err(Error::Launch {
                kernel: label.into(),
                device: self.label.clone(),
                reason: "the kernel computes in f64 (OpenCL's double), which this device does \
                         not have (no cl_khr_fp64); compute in f32, or choose another device"
                    .into(),
            });
        }
        let werror = crate::config::config().werror.clone()?;
        // The options are part of the text, so caches key on them too.
        let text = match werror {
            true => "/* built with -Werror */\n".to_string(),
            false => String::new(),
        } + &prelude
            + &nuda_abi::dialect::to_opencl(src.source);
        dump(&text, label);
        let cache = crate::config::config().cache.clone()?.map(DiskCache::new);
        let key = DiskCache::key(&self.info, &text);
        if let Some(program) = cache.as_ref().and_then(|c| self.load_cached(c, &key)) {
            record(Some(self.index), Event::FromDisk);
            return Ok(Built {
                program,
                pool: Mutex::default(),
            });
        }
        let program = self.compile(&text, src, label, werror)?;
        record(Some(self.index), Event::Compiled);
        if let (Some(c), Ok(bins)) = (&cache, program.get_binaries()) {
            if let Some(binary) = bins.first().filter(|b| !b.is_empty()) {
                c.store(&key, binary);
            }
        }
        Ok(Built {
            program,
            pool: Mutex::default(),
        })
    }

    fn load_cached(&self, cache: &DiskCache, key: &str) -> Option<Program> {
        let binary = cache.load(key)?;
        let ctx = self.context().ok()?;
        // SAFETY: the context was created for exactly this device.
        let program =
            unsafe { Program::create_from_binary(&ctx.context, &[self.raw.id()], &[&binary]) };
        let mut program = program.ok()?;
        // A binary the driver no longer accepts is stale: the caller compiles and overwrites it.
        program.build(&[self.raw.id()], "").ok()?;
        Some(program)
    }

    fn compile(
        &self,
        text: &str,
        src: &KernelSource,
        label: &str,
        werror: bool,
    ) -> Result<Program> {
        let ctx = self.context()?;
        let mut program = Program::create_from_source(&ctx.context, text)
            .map_err(|e| self.error(e.0, "creating a program"))?;
        let options = if werror {
            "-cl-std=CL1.2 -Werror"
        } else {
            "-cl-std=CL1.2"
        };
        match program.build(&[self.raw.id()], options) {
            Ok(()) => Ok(program),
            Err(e) if e.0 == CL_BUILD_PROGRAM_FAILURE => Err(Error::Build {
                compiler: crate::error::Compiler::OpenCl,
                program: label.into(),
                device: self.label.clone(),
                log: program.get_build_log(self.raw.id()).unwrap_or_default(),
                numbered_source: number_lines(text),
                generated_from: src.faults.as_ref().map(|f| f.origin),
            }),
            Err(e) => Err(self.error(e.0, &format!("building `{label}`"))),
        }
    }
}

/// Writes the program's full text to `NUDA_DUMP` if set; a dump is a debugging aid, so a
/// failure to write it is reported on stderr rather than failing the launch.
fn dump(text: &str, label: &str) {
    let Some(dir) = crate::config::config().dump.as_ref() else {
        return;
    };
    let digest = DiskCache::key_of_text(text);
    let path = dir.join(format!("{label}-{}.cl", &digest[..12]));
    let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, text));
    if let Err(e) = written {
        eprintln!("nuda: NUDA_DUMP: cannot write {}: {e}", path.display());
    }
}
