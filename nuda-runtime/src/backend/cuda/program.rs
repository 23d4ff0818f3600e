//! CUDA programs (layer 1, the CUDA backend): a program's text in the CUDA dialect, NVRTC's
//! options, and the CUBIN built for a device's architecture, kept in memory per (program,
//! index type) and on disk keyed by the text, the architecture, NVRTC's and the driver's
//! versions.

use super::{dialect, nvrtc, CuDevice};
use crate::backend::c::dialect::Rendered;
use crate::backend::c::disk_cache::DiskCache;
use crate::backend::c::prelude::Prelude;
use crate::backend::{IndexType, KernelSource};
use crate::error::{number_lines, Compiler, Error, Result};
use crate::stats::{record, Event};
use cudarc::driver::{result, sys};
use std::collections::HashMap;
use std::ffi::CString;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The whole program in CUDA C++: nuda's prelude (its CUDA parts) and the source, through
/// the dialect.
pub(crate) fn cuda_text(source: &KernelSource, index: IndexType) -> Rendered {
    let prelude = Prelude {
        index,
        images: true,
        cpu: false,
        dialect: &dialect::CUDA_CXX,
        warps: None,
        rows: None,
    };
    let (text, _fp64) = prelude.for_source(source.source);
    dialect::translate(&text, source.source)
}

/// NVRTC's options for `arch` (`sm_90` builds CUBIN, `compute_90` PTX): the prelude's
/// helpers are device functions by default, and no `a * b + c` is fused, as Rust never does.
/// Two warnings are off, as clang's defaults have them off for OpenCL C: a variable never
/// read (177) or set and never read (550), which flattened tuples and structs leave where
/// the Rust code used the value whole.
pub(crate) fn options(arch: &str) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        "--device-as-default-execution-space".into(),
        "--std=c++17".into(),
        "--fmad=false".into(),
        "--diag-suppress=177,550".into(),
    ]
}

/// NVRTC's version, for cache keys and device descriptions.
pub(crate) fn nvrtc_version() -> String {
    nvrtc::version().unwrap_or_else(|e| e)
}

/// A loaded module and the functions found in it so far.
pub(crate) struct Module {
    raw: sys::CUmodule,
    functions: Mutex<HashMap<String, usize>>,
    /// Per kernel, the shared bytes the dialect moved into its dynamic buffer.
    moved: HashMap<String, usize>,
}

// SAFETY: a module handle may be used from any thread with its context current.
unsafe impl Send for Module {}
// SAFETY: as above; the function map is behind a mutex.
unsafe impl Sync for Module {}

/// Each program's module per (source, index type), built once; a second caller waits.
pub(crate) type Modules =
    Mutex<HashMap<(usize, usize, IndexType), Arc<OnceLock<Result<Arc<Module>>>>>>;

impl CuDevice {
    /// The function `kernel` of `source`'s program, building and loading it on first use,
    /// and the shared bytes at the start of its dynamic buffer that the dialect moved there.
    pub(crate) fn function(
        &self,
        source: &KernelSource,
        index: IndexType,
        kernel: &str,
    ) -> Result<(sys::CUfunction, usize)> {
        let key = (source.source.as_ptr() as usize, source.source.len(), index);
        let slot = self
            .modules
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_default()
            .clone();
        let module = slot
            .get_or_init(|| self.build(source, index, kernel).map(Arc::new))
            .clone()?;
        let moved = module.moved.get(kernel).copied().unwrap_or(0);
        let mut names = module
            .functions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(&f) = names.get(kernel) {
            return Ok((f as sys::CUfunction, moved));
        }
        self.enter()?;
        let name = CString::new(kernel).unwrap_or_default();
        // SAFETY: the module is loaded in this device's context, which is current.
        let f = unsafe { result::module::get_function(module.raw, name) }.map_err(|e| {
            Error::Launch {
                kernel: kernel.into(),
                device: self.label.clone(),
                reason: format!("the program has no kernel of that name ({e:?})"),
            }
        })?;
        names.insert(kernel.into(), f as usize);
        Ok((f, moved))
    }

    /// Compiles (or finds on disk) and loads the program.
    fn build(&self, source: &KernelSource, index: IndexType, kernel: &str) -> Result<Module> {
        let Rendered { text, moved } = cuda_text(source, index);
        let label = source.faults.as_ref().map_or(kernel, |f| f.label);
        let arch = super::driver::architecture(&self.info);
        super::check::dump(&text, label, &arch, "", None);
        let cache = crate::config::config().cache.clone()?.map(DiskCache::new);
        let key = DiskCache::key(&self.info, &format!("{arch}\n{}\n{text}", nvrtc_version()));
        let image = match cache.as_ref().and_then(|c| c.load(&key)) {
            Some(image) => {
                record(Some(self.info.index), Event::FromDisk);
                image
            }
            None => {
                let image = self.compile(&text, source, label, &arch)?;
                record(Some(self.info.index), Event::Compiled);
                if let Some(c) = &cache {
                    c.store(&key, &image);
                }
                image
            }
        };
        self.enter()?;
        // SAFETY: `image` is a CUBIN NVRTC built for this device's architecture (or one the
        // disk cache verified by digest); the driver copies it.
        let raw = unsafe { result::module::load_data(image.as_ptr().cast()) }.map_err(|e| {
            super::driver::error(e, &format!("loading the program of `{label}`"), &self.label)
        })?;
        Ok(Module {
            raw,
            functions: Mutex::default(),
            moved,
        })
    }

    fn compile(
        &self,
        text: &str,
        source: &KernelSource,
        label: &str,
        arch: &str,
    ) -> Result<Vec<u8>> {
        match nvrtc::compile(text, label, &options(arch), true) {
            Ok(c) => Ok(c.image),
            Err(nvrtc::Failure::Missing(why)) => Err(Error::Launch {
                kernel: label.into(),
                device: self.label.clone(),
                reason: why,
            }),
            Err(nvrtc::Failure::Rejected(log)) => Err(Error::Build {
                compiler: Compiler::Nvrtc,
                program: label.into(),
                device: self.label.clone(),
                log,
                numbered_source: number_lines(text),
                generated_from: source.faults.as_ref().map(|f| f.origin),
            }),
        }
    }
}
