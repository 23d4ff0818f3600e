//! Finding every OpenCL platform and device and describing each as a `DeviceInfo`.

use crate::backend::{DeviceInfo, DeviceKind};
use opencl3::device::{
    Device as RawDevice, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
};
use opencl3::error_codes::DLOPEN_RUNTIME_LOAD_FAILED;
use opencl3::platform::{get_platforms, Platform};

/// Every OpenCL device, in platform order (the registry sorts by kind); or why there is none.
pub(crate) fn enumerate() -> Result<Vec<(DeviceInfo, RawDevice)>, String> {
    let platforms = get_platforms().map_err(|e| match e.0 {
        DLOPEN_RUNTIME_LOAD_FAILED => "no OpenCL library (libOpenCL.so.1) was found".to_string(),
        code => format!("no OpenCL platform was found ({})", super::code_name(code)),
    })?;
    let found: Vec<(DeviceInfo, RawDevice)> = platforms.iter().flat_map(platform_devices).collect();
    if found.is_empty() {
        return Err("OpenCL platforms exist but list no device".into());
    }
    Ok(found)
}

fn platform_devices(platform: &Platform) -> Vec<(DeviceInfo, RawDevice)> {
    let pname = platform.name().unwrap_or_default();
    let ids = platform.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default();
    ids.into_iter()
        .map(RawDevice::new)
        .filter(|d| d.available().unwrap_or(false))
        .filter_map(|d| describe(&d, &pname).map(|info| (info, d)))
        .collect()
}

fn kind(raw: u64) -> DeviceKind {
    if raw & CL_DEVICE_TYPE_GPU != 0 {
        DeviceKind::Gpu
    } else if raw & CL_DEVICE_TYPE_CPU != 0 {
        DeviceKind::Cpu
    } else {
        // CL_DEVICE_TYPE_ACCELERATOR, CUSTOM and anything newer.
        DeviceKind::Accelerator
    }
}

fn describe(d: &RawDevice, platform: &str) -> Option<DeviceInfo> {
    let extensions = d.extensions().unwrap_or_default();
    let kind = kind(d.dev_type().ok()?);
    let (private_memory, private_group_memory) = crate::backend::private_limits(kind);
    Some(DeviceInfo {
        index: 0,
        backend: "OpenCL",
        name: d.name().ok()?.trim().to_string(),
        vendor: d.vendor().unwrap_or_default().trim().to_string(),
        kind,
        platform: platform.trim().to_string(),
        driver_version: d.driver_version().unwrap_or_default(),
        compute_units: d.max_compute_units().unwrap_or(1),
        global_memory: d.global_mem_size().unwrap_or(0),
        max_alloc: d.max_mem_alloc_size().unwrap_or(0),
        local_memory: d.local_mem_size().unwrap_or(0),
        constant_memory: d.max_constant_buffer_size().unwrap_or(0),
        max_work_group_size: d.max_work_group_size().unwrap_or(1),
        max_work_item_sizes: d.max_work_item_sizes().unwrap_or_default(),
        fp64: extensions.contains("cl_khr_fp64") || d.double_fp_config().unwrap_or(0) != 0,
        images: d.image_support().unwrap_or(false),
        int64_atomics: extensions.contains("cl_khr_int64_base_atomics")
            && extensions.contains("cl_khr_int64_extended_atomics"),
        private_memory,
        private_group_memory,
    })
}
