//! HIP programs (layer 1, the HIP backend): a program's HIP C++ (`check::hip_text`, the
//! dialect), compiled by hiprtc for the device's own architecture in a child process
//! (`hiprtc.rs`), kept in memory per (program, index type) and on disk keyed by the text,
//! the architecture and hiprtc's version, and loaded as a module.

use super::runtime::check;
use super::{check as hip_check, hiprtc, HipDevice};
use crate::backend::c::disk_cache::DiskCache;
use crate::backend::{IndexType, KernelSource};
use crate::error::{number_lines, Compiler, Error, Result};
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// A loaded module and the functions found in it so far.
pub(crate) struct Module {
    raw: *mut c_void,
    functions: Mutex<HashMap<String, usize>>,
}

// SAFETY: a module handle may be used from any thread with its device current.
unsafe impl Send for Module {}
// SAFETY: as above; the function map is behind a mutex.
unsafe impl Sync for Module {}

/// Each program's module per (source, index type), built once; a second caller waits.
pub(crate) type Modules =
    Mutex<HashMap<(usize, usize, IndexType), Arc<OnceLock<Result<Arc<Module>>>>>>;

impl HipDevice {
    /// The function `kernel` of `source`'s program, building and loading it on first use.
    pub(crate) fn function(
        &self,
        source: &KernelSource,
        index: IndexType,
        kernel: &str,
    ) -> Result<*mut c_void> {
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
        let mut functions = module
            .functions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(&f) = functions.get(kernel) {
            return Ok(f as *mut c_void);
        }
        let api = self.enter()?;
        let name = CString::new(kernel).unwrap_or_default();
        let mut f = std::ptr::null_mut();
        // SAFETY: a loaded module and a NUL-terminated name.
        let s = unsafe { (api.get_function)(&mut f, module.raw, name.as_ptr()) };
        check(api, s, &format!("finding kernel `{kernel}`"), &self.label)?;
        functions.insert(kernel.to_string(), f as usize);
        Ok(f)
    }

    /// The program's code object (from the disk cache or hiprtc), loaded.
    fn build(&self, source: &KernelSource, index: IndexType, kernel: &str) -> Result<Module> {
        let label = source.faults.as_ref().map_or(kernel, |f| f.label);
        let text = hip_check::hip_text(source, index);
        let arch = self.info.platform.trim_start_matches("HIP ").to_string();
        let options = hip_check::options(&arch);
        let version = hiprtc::version().map_err(|why| self.missing(kernel, why))?;
        let key = DiskCache::key_of_text(&format!("{version}\n{}\n{text}", options.join(" ")));
        let cache = crate::config::config().cache.clone()?.map(DiskCache::new);
        let code = match cache.as_ref().and_then(|c| c.load(&key)) {
            Some(code) => code,
            None => {
                let code = self.compile(&text, label, &options, source)?;
                if let Some(c) = &cache {
                    c.store(&key, &code);
                }
                code
            }
        };
        let api = self.enter()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: `code` is a code object hiprtc wrote for this device's architecture.
        let s = unsafe { (api.load_module)(&mut raw, code.as_ptr().cast()) };
        check(api, s, "loading the program", &self.label)?;
        Ok(Module {
            raw,
            functions: Mutex::default(),
        })
    }

    fn compile(
        &self,
        text: &str,
        label: &str,
        options: &[String],
        source: &KernelSource,
    ) -> Result<Vec<u8>> {
        let log = match hiprtc::compile(text, label, options) {
            Ok(c) => return Ok(c.code),
            Err(hiprtc::Failure::Rejected(log) | hiprtc::Failure::Crashed(log)) => log,
            Err(hiprtc::Failure::Missing(why)) => return Err(self.missing(label, why)),
        };
        Err(Error::Build {
            compiler: Compiler::Hiprtc,
            program: label.into(),
            device: self.label.clone(),
            log,
            numbered_source: number_lines(text),
            generated_from: source.faults.as_ref().map(|f| f.origin),
        })
    }

    fn missing(&self, kernel: &str, why: String) -> Error {
        Error::Launch {
            kernel: kernel.into(),
            device: self.label.clone(),
            reason: why,
        }
    }
}
