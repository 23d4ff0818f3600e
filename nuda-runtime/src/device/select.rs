//! Ordering the device list and resolving `NUDA_ENGINE` plus `NUDA_DEVICE` to a default device.
//! Pure functions over device descriptions, so every rule is unit tested without hardware.

use super::{DeviceInfo, DeviceKind};
use crate::config::{DeviceChoice, EngineChoice};
use crate::error::{Error, Result};

/// Rank that puts GPUs first, CPUs next, anything else after them.
pub(crate) fn kind_rank(kind: DeviceKind) -> u8 {
    match kind {
        DeviceKind::Gpu => 0,
        DeviceKind::Cpu => 1,
        DeviceKind::Accelerator => 2,
        DeviceKind::Native => 3,
    }
}

/// Whether the engine choice lists the devices of the provider named `backend`:
/// `cuda` only CUDA's, `opencl` every other source-form backend's, `native` the native
/// form's, and `auto` all.
pub(crate) fn wanted(choice: EngineChoice, backend: &str, native: bool) -> bool {
    match choice {
        EngineChoice::Auto => true,
        EngineChoice::Cuda => backend == "CUDA",
        EngineChoice::Hip => backend == "HIP",
        EngineChoice::OpenCl => !native && backend != "CUDA" && backend != "HIP",
        EngineChoice::Native => native,
    }
}

/// Resolves the default device index from the listed devices and the environment's choices.
pub(crate) fn resolve_default(
    list: &[DeviceInfo],
    engine: EngineChoice,
    device: Option<&DeviceChoice>,
) -> Result<usize> {
    if list.is_empty() {
        let reason = match engine {
            EngineChoice::OpenCl => "NUDA_ENGINE=opencl but no OpenCL device was found",
            EngineChoice::Cuda => "NUDA_ENGINE=cuda but no CUDA device was found",
            EngineChoice::Hip => {
                "NUDA_ENGINE=hip but no HIP device (an AMD GPU through ROCm) was found"
            }
            _ => "no device was found",
        };
        return Err(Error::NoDevice {
            reason: reason.into(),
        });
    }
    match device {
        None => Ok(0),
        Some(DeviceChoice::Index(i)) => check_index(list, *i, "NUDA_DEVICE"),
        Some(DeviceChoice::Name(name)) => find_name(list, name),
    }
}

/// Checks that `index` names a listed device.
pub(crate) fn check_index(list: &[DeviceInfo], index: usize, source: &str) -> Result<usize> {
    if index < list.len() {
        return Ok(index);
    }
    Err(Error::BadSelection {
        source: source.into(),
        value: index.to_string(),
        reason: format!("there are {} devices, numbered from 0", list.len()),
        choices: choices(list),
    })
}

fn find_name(list: &[DeviceInfo], name: &str) -> Result<usize> {
    let found = list
        .iter()
        .position(|d| d.name.to_lowercase().contains(name));
    found.ok_or_else(|| Error::BadSelection {
        source: "NUDA_DEVICE".into(),
        value: name.into(),
        reason: "no device name contains it (case-insensitive)".into(),
        choices: choices(list),
    })
}

/// The listed devices as `0 = name, 1 = name`.
pub(crate) fn choices(list: &[DeviceInfo]) -> String {
    let names: Vec<String> = list
        .iter()
        .map(|d| format!("{} = {}", d.index, d.name))
        .collect();
    if names.is_empty() {
        "none (no device found)".into()
    } else {
        names.join(", ")
    }
}
