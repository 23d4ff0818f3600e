//! The process-wide device registry, built once from the environment, and each host thread's
//! current device (NUDA's `nudev`), default 0 or what `NUDA_DEVICE` names.

use super::select::{check_index, kind_rank, resolve_default, wanted};
use super::{Device, DeviceInfo, DeviceKind};
use crate::backend::{cuda, hip, native, opencl, Backend, Form, Found, Provider};
use crate::config::{config, EngineChoice};
use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::{Mutex, OnceLock, PoisonError};

/// Every backend nuda is built with, in the order their devices are listed (after the sort by
/// kind): one line per backend. Tests and programs add more with `nuda::device::register`.
fn builtin() -> Vec<&'static dyn Provider> {
    vec![&cuda::CUDA, &hip::HIP, &opencl::OPENCL, &native::NATIVE]
}

/// Everything nuda found at first use.
pub(crate) struct Runtime {
    pub devices: Vec<Device>,
    /// The default device, or the configuration error every device call reports.
    pub default: Result<usize>,
}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

/// Providers added with [`register`] before the registry was built.
static EXTRA: Mutex<Vec<&'static dyn Provider>> = Mutex::new(Vec::new());

thread_local! {
    static CURRENT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The registry, enumerated on first call.
pub(crate) fn runtime() -> &'static Runtime {
    RUNTIME.get_or_init(Runtime::from_env)
}

/// Whether the device list has been built (after which `register` is refused).
fn registry_built() -> bool {
    RUNTIME.get().is_some()
}

/// Adds a backend's provider: its devices join `nuda::devices()`, sorted by kind with the
/// rest. Call it before anything else in nuda, since the device list is built once, at the
/// first call that needs it; afterwards this is an error.
pub fn register(provider: &'static dyn Provider) -> Result<()> {
    let mut extra = EXTRA.lock().unwrap_or_else(PoisonError::into_inner);
    if registry_built() {
        return Err(Error::BadSelection {
            source: "nuda::register".into(),
            value: provider.name().into(),
            reason: "the device list was already built".into(),
            choices: "register backends before any other nuda call".into(),
        });
    }
    extra.push(provider);
    Ok(())
}

impl Runtime {
    fn from_env() -> Runtime {
        let config = config();
        let choice = config.engine.clone().unwrap_or(EngineChoice::Auto);
        let (found, missing) = find(choice);
        let devices: Vec<Device> = found
            .into_iter()
            .enumerate()
            .map(|(index, (backend, f))| {
                Device::new((f.open)(DeviceInfo {
                    index,
                    backend,
                    ..f.info
                }))
            })
            .collect();
        let infos: Vec<DeviceInfo> = devices.iter().map(|d| d.info().clone()).collect();
        let default = config.engine.clone().and_then(|engine| {
            let device = config.device.clone()?;
            resolve_default(&infos, engine, device.as_ref()).map_err(|e| explain(e, &missing))
        });
        Runtime { devices, default }
    }
}

/// Every device the engine choice lists, each with its provider's name, sorted by kind
/// (stable, so the providers' order, CUDA before OpenCL, holds within a kind), and why no
/// source-form backend found one, if none did.
fn find(choice: EngineChoice) -> (Vec<(&'static str, Found)>, Option<String>) {
    let extra = EXTRA.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let (mut found, mut missing) = (Vec::new(), None);
    for p in builtin().into_iter().chain(extra) {
        let is_native = p.form() == Form::Native;
        match (wanted(choice, p.name(), is_native), p.devices()) {
            (false, _) => {}
            (true, Ok(devices)) => found.extend(devices.into_iter().map(|d| (p.name(), d))),
            // A GPU vendor's absence is the rule on machines without its driver, not news.
            (true, Err(_)) if p.name() == "CUDA" && choice != EngineChoice::Cuda => {}
            (true, Err(_)) if p.name() == "HIP" && choice != EngineChoice::Hip => {}
            (true, Err(why)) => missing = missing.or(Some(why)),
        }
    }
    let any_source = found.iter().any(|(_, f)| f.info.kind != DeviceKind::Native);
    if !any_source && choice == EngineChoice::Auto {
        announce_native(missing.as_deref().unwrap_or("no OpenCL device found"));
    }
    found.sort_by_key(|(_, f)| kind_rank(f.info.kind));
    (found, missing)
}

fn explain(e: Error, missing: &Option<String>) -> Error {
    match (e, missing) {
        (Error::NoDevice { reason }, Some(why)) => Error::NoDevice {
            reason: format!("{reason} ({why})"),
        },
        (e, _) => e,
    }
}

fn announce_native(why: &str) {
    eprintln!(
        "nuda: {why}; running on the native engine (rayon). For OpenCL install a driver: \
         your GPU vendor's, or `apt install pocl-opencl-icd` for CPUs."
    );
}

/// Checks the environment (`NUDA_ENGINE`, `NUDA_DEVICE`, `NUDA_CACHE`) and finds the devices.
/// Every later call reports the same error, so calling this first is optional.
pub fn init() -> Result<()> {
    config().cache.clone()?;
    runtime().default.clone().map(drop)
}

/// Every device nuda can run on, in index order.
pub fn devices() -> Vec<DeviceInfo> {
    runtime().devices.iter().map(|d| d.info().clone()).collect()
}

/// The device with this index.
pub fn device(index: usize) -> Result<Device> {
    let rt = runtime();
    rt.default.clone()?;
    let infos: Vec<DeviceInfo> = devices();
    let i = check_index(&infos, index, "device index")?;
    Ok(rt.devices[i].clone())
}

/// The calling thread's current device: what `set_device` chose, else the default.
pub fn current_device() -> Result<Device> {
    let rt = runtime();
    let default = rt.default.clone()?;
    let index = CURRENT.with(Cell::get).unwrap_or(default);
    Ok(rt.devices[index].clone())
}

/// Makes device `index` the calling thread's current device.
pub fn set_device(index: usize) -> Result<()> {
    let d = device(index)?;
    CURRENT.with(|c| c.set(Some(d.index())));
    Ok(())
}

/// Runs `f` with device `index` as the calling thread's current device, then restores the
/// previous one, also when `f` panics.
pub fn with_device<R>(index: usize, f: impl FnOnce() -> R) -> Result<R> {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let d = device(index)?;
    let _restore = Restore(CURRENT.with(|c| c.replace(Some(d.index()))));
    Ok(f())
}

/// The backend of device `index`, for the memory layer's transfers.
pub(crate) fn backend(index: usize) -> Option<&'static dyn Backend> {
    runtime().devices.get(index).map(Device::backend)
}

/// The first device that runs kernels' native form, if the engine choice lists one.
pub(crate) fn native_device() -> Option<Device> {
    runtime().devices.iter().find(|d| d.is_native()).cloned()
}
