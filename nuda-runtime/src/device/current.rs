//! The process-wide device registry, built once from the environment, and each host thread's
//! current device (NUDA's `nudev`), default 0 or what `NUDA_DEVICE` names.

use super::select::{check_index, engines, resolve_default};
use super::{Device, DeviceInfo};
use crate::config::{Config, EngineChoice};
use crate::error::{Error, Result};
use crate::opencl::{self, ClDevice};
use std::cell::Cell;
use std::sync::OnceLock;

/// Everything nuda found at first use.
pub(crate) struct Runtime {
    pub devices: Vec<Device>,
    /// The default device, or the configuration error every device call reports.
    pub default: Result<usize>,
    pub config: Config,
}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

thread_local! {
    static CURRENT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The registry, enumerated on first call.
pub(crate) fn runtime() -> &'static Runtime {
    RUNTIME.get_or_init(Runtime::from_env)
}

impl Runtime {
    fn from_env() -> Runtime {
        let config = Config::from_env();
        let choice = config.engine.clone().unwrap_or(EngineChoice::Auto);
        let (want_cl, want_native) = engines(choice);
        let (mut devices, missing) = if want_cl {
            opencl_devices()
        } else {
            (vec![], None)
        };
        if devices.is_empty() && choice == EngineChoice::Auto {
            announce_native(missing.as_deref().unwrap_or("no OpenCL device found"));
        }
        if want_native {
            devices.push(Device::native(devices.len()));
        }
        let infos: Vec<DeviceInfo> = devices.iter().map(|d| d.info().clone()).collect();
        let default = config.engine.clone().and_then(|engine| {
            let device = config.device.clone()?;
            resolve_default(&infos, engine, device.as_ref()).map_err(|e| explain(e, &missing))
        });
        Runtime {
            devices,
            default,
            config,
        }
    }
}

fn opencl_devices() -> (Vec<Device>, Option<String>) {
    match opencl::enumerate() {
        Ok(found) => {
            let devices = found
                .into_iter()
                .enumerate()
                .map(|(i, (mut info, id))| {
                    info.index = i;
                    let cl = ClDevice::new(&info, id);
                    Device::opencl(info, cl)
                })
                .collect();
            (devices, None)
        }
        Err(reason) => (vec![], Some(reason)),
    }
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
    let rt = runtime();
    rt.config.cache.clone()?;
    rt.default.clone().map(drop)
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

/// The OpenCL side of device `index`, if it is an OpenCL device.
pub(crate) fn cl_device(index: usize) -> Option<&'static ClDevice> {
    runtime().devices.get(index).and_then(Device::cl)
}

/// The native engine's device, if the engine choice lists it.
pub(crate) fn native_device() -> Option<Device> {
    runtime().devices.iter().find(|d| d.is_native()).cloned()
}
