//! ROCm's HIP runtime as the backend uses it (layer 1, the HIP backend): `libamdhip64`
//! loaded at run time (no link-time dependency), its failures as `nuda::Error`, and each AMD
//! GPU described as a `DeviceInfo`.
//!
//! Device attributes are read by their numbers in `hip_runtime_api.h` (ROCm 5.x; the
//! CUDA-compatible block keeps its order since ROCm 5.0). The architecture (`gfx90a`) has no
//! attribute: it is the `gcnArchName` string of `hipGetDeviceProperties`, found by its
//! `gfx` prefix in a buffer larger than any version's structure, since the structure's
//! layout changed between ROCm 5 and 6.

use crate::backend::{DeviceInfo, DeviceKind};
use crate::error::Error;
use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

/// A HIP status; 0 is success.
pub(crate) type Status = c_int;
/// A device pointer.
pub(crate) type DevicePtr = *mut c_void;

/// The HIP runtime's entry points nuda calls, loaded once.
pub(crate) struct Api {
    _lib: Library,
    pub init: unsafe extern "C" fn(c_uint) -> Status,
    pub device_count: unsafe extern "C" fn(*mut c_int) -> Status,
    pub device_name: unsafe extern "C" fn(*mut c_char, c_int, c_int) -> Status,
    pub total_mem: unsafe extern "C" fn(*mut usize, c_int) -> Status,
    pub attribute: unsafe extern "C" fn(*mut c_int, c_int, c_int) -> Status,
    pub properties: unsafe extern "C" fn(*mut c_void, c_int) -> Status,
    pub driver_version: unsafe extern "C" fn(*mut c_int) -> Status,
    pub set_device: unsafe extern "C" fn(c_int) -> Status,
    pub malloc: unsafe extern "C" fn(*mut DevicePtr, usize) -> Status,
    pub free: unsafe extern "C" fn(DevicePtr) -> Status,
    pub htod: unsafe extern "C" fn(DevicePtr, *const c_void, usize) -> Status,
    pub dtoh: unsafe extern "C" fn(*mut c_void, DevicePtr, usize) -> Status,
    pub memset: unsafe extern "C" fn(DevicePtr, c_int, usize) -> Status,
    pub host_register: unsafe extern "C" fn(*mut c_void, usize, c_uint) -> Status,
    pub host_unregister: unsafe extern "C" fn(*mut c_void) -> Status,
    pub load_module: unsafe extern "C" fn(*mut *mut c_void, *const c_void) -> Status,
    pub get_function: unsafe extern "C" fn(*mut *mut c_void, *mut c_void, *const c_char) -> Status,
    #[allow(clippy::type_complexity)]
    pub launch: unsafe extern "C" fn(
        *mut c_void,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        *mut c_void,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> Status,
    pub event_create: unsafe extern "C" fn(*mut *mut c_void) -> Status,
    pub event_record: unsafe extern "C" fn(*mut c_void, *mut c_void) -> Status,
    pub event_sync: unsafe extern "C" fn(*mut c_void) -> Status,
    pub event_elapsed: unsafe extern "C" fn(*mut f32, *mut c_void, *mut c_void) -> Status,
    pub synchronize: unsafe extern "C" fn() -> Status,
    pub error_name: unsafe extern "C" fn(Status) -> *const c_char,
    /// Images (`image.rs`): arrays, texture and surface objects, and whole-image copies.
    pub image: super::image::ImageApi,
}

// SAFETY: function pointers into a library that is never unloaded.
unsafe impl Send for Api {}
// SAFETY: as above; nothing is mutated after loading.
unsafe impl Sync for Api {}

/// The HIP runtime, or why it cannot be used.
pub(crate) fn api() -> Result<&'static Api, String> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<Api, String> {
    let names = [
        "libamdhip64.so.6",
        "libamdhip64.so.5",
        "libamdhip64.so",
        "/opt/rocm/lib/libamdhip64.so",
    ];
    for name in names {
        // SAFETY: loading AMD's HIP runtime runs its initialisers, which set up its own state.
        if let Ok(lib) = unsafe { Library::new(name) } {
            // SAFETY: each symbol is looked up with its documented C signature
            // (hip_runtime_api.h); `hipGetDeviceProperties` gets a buffer (see the module doc).
            return unsafe { symbols(lib) }.map_err(|e| format!("{name} lacks a HIP call: {e}"));
        }
    }
    Err(
        "no HIP runtime (libamdhip64.so) was found; install ROCm (or Debian's libamdhip64-5) \
         on a machine with an AMD GPU, or choose NUDA_ENGINE=cuda, opencl or native"
            .into(),
    )
}

/// # Safety
///
/// `lib` is AMD's HIP runtime, whose symbols have the signatures `Api` declares.
unsafe fn symbols(lib: Library) -> Result<Api, libloading::Error> {
    // SAFETY: the caller's contract.
    unsafe {
        Ok(Api {
            init: *lib.get(b"hipInit\0")?,
            device_count: *lib.get(b"hipGetDeviceCount\0")?,
            device_name: *lib.get(b"hipDeviceGetName\0")?,
            total_mem: *lib.get(b"hipDeviceTotalMem\0")?,
            attribute: *lib.get(b"hipDeviceGetAttribute\0")?,
            properties: *lib.get(b"hipGetDeviceProperties\0")?,
            driver_version: *lib.get(b"hipDriverGetVersion\0")?,
            set_device: *lib.get(b"hipSetDevice\0")?,
            malloc: *lib.get(b"hipMalloc\0")?,
            free: *lib.get(b"hipFree\0")?,
            htod: *lib.get(b"hipMemcpyHtoD\0")?,
            dtoh: *lib.get(b"hipMemcpyDtoH\0")?,
            memset: *lib.get(b"hipMemset\0")?,
            host_register: *lib.get(b"hipHostRegister\0")?,
            host_unregister: *lib.get(b"hipHostUnregister\0")?,
            load_module: *lib.get(b"hipModuleLoadData\0")?,
            get_function: *lib.get(b"hipModuleGetFunction\0")?,
            launch: *lib.get(b"hipModuleLaunchKernel\0")?,
            event_create: *lib.get(b"hipEventCreate\0")?,
            event_record: *lib.get(b"hipEventRecord\0")?,
            event_sync: *lib.get(b"hipEventSynchronize\0")?,
            event_elapsed: *lib.get(b"hipEventElapsedTime\0")?,
            synchronize: *lib.get(b"hipDeviceSynchronize\0")?,
            error_name: *lib.get(b"hipGetErrorName\0")?,
            image: super::image::ImageApi::load(&lib)?,
            _lib: lib,
        })
    }
}

/// `hipErrorOutOfMemory`.
const OUT_OF_MEMORY: Status = 2;

/// A HIP status's name, as `hipErrorInvalidValue`.
pub(crate) fn status_name(api: &Api, s: Status) -> String {
    // SAFETY: hipGetErrorName returns a static string for any status.
    let p = unsafe { (api.error_name)(s) };
    if p.is_null() {
        return format!("HIP status {s}");
    }
    // SAFETY: a NUL-terminated static string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// `s` as `Ok` or a `nuda::Error`: running out of memory is `OutOfResources`.
pub(crate) fn check(api: &Api, s: Status, during: &str, device: &str) -> Result<(), Error> {
    match s {
        0 => Ok(()),
        OUT_OF_MEMORY => Err(Error::OutOfResources {
            device: device.into(),
            what: during.into(),
            detail: status_name(api, s),
        }),
        code => Err(Error::Backend {
            backend: "HIP".into(),
            during: during.into(),
            device: device.into(),
            status: code,
            status_name: status_name(api, code),
        }),
    }
}

/// Every AMD GPU the HIP runtime sees, described; or why there is none.
pub(crate) fn enumerate() -> Result<Vec<(DeviceInfo, c_int)>, String> {
    let api = api()?;
    // SAFETY: the library is loaded; hipInit takes flags 0.
    let started = unsafe { (api.init)(0) };
    let mut count = 0;
    // SAFETY: one out-parameter.
    let counted = unsafe { (api.device_count)(&mut count) };
    if started != 0 || counted != 0 || count <= 0 {
        let s = if started != 0 { started } else { counted };
        return Err(format!(
            "the HIP runtime (libamdhip64) loaded, but it sees no AMD GPU ({}); HIP needs an AMD \
             GPU and ROCm's kernel driver (/dev/kfd)",
            if s == 0 {
                "no device".to_string()
            } else {
                status_name(api, s)
            }
        ));
    }
    (0..count)
        .map(|k| describe(api, k).map(|d| (d, k)))
        .collect()
}

/// Attribute numbers in `hip_runtime_api.h`'s `hipDeviceAttribute_t`.
mod attr {
    pub const MAX_BLOCK_DIM_X: i32 = 26;
    pub const MAX_THREADS_PER_BLOCK: i32 = 56;
    pub const MULTIPROCESSOR_COUNT: i32 = 63;
    pub const MAX_SHARED_MEMORY_PER_BLOCK: i32 = 74;
    pub const TOTAL_CONSTANT_MEMORY: i32 = 83;
}

fn describe(api: &Api, dev: c_int) -> Result<DeviceInfo, String> {
    let at = |a: i32| {
        let mut v = 0;
        // SAFETY: one out-parameter; `dev` is below the device count.
        match unsafe { (api.attribute)(&mut v, a, dev) } {
            0 => Ok(v.max(0) as u64),
            s => Err(format!(
                "hipDeviceGetAttribute({a}) on device {dev}: {}",
                status_name(api, s)
            )),
        }
    };
    let (mut name, mut memory, mut version) = ([0 as c_char; 256], 0usize, 0);
    // SAFETY: out-parameters of the sizes given.
    unsafe {
        (api.device_name)(name.as_mut_ptr(), 256, dev);
        (api.total_mem)(&mut memory, dev);
        (api.driver_version)(&mut version);
    }
    // SAFETY: hipDeviceGetName writes a NUL-terminated string within the 256 bytes.
    let name = unsafe { CStr::from_ptr(name.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    let (private_memory, private_group_memory) = crate::backend::private_limits(DeviceKind::Gpu);
    Ok(DeviceInfo {
        index: 0,
        backend: "HIP",
        name,
        vendor: "Advanced Micro Devices, Inc.".into(),
        kind: DeviceKind::Gpu,
        platform: format!("HIP {}", architecture_of(api, dev)),
        driver_version: format!("hip-{version}"),
        compute_units: at(attr::MULTIPROCESSOR_COUNT)? as u32,
        global_memory: memory as u64,
        max_alloc: memory as u64,
        local_memory: at(attr::MAX_SHARED_MEMORY_PER_BLOCK)?,
        constant_memory: at(attr::TOTAL_CONSTANT_MEMORY)?,
        max_work_group_size: at(attr::MAX_THREADS_PER_BLOCK)? as usize,
        max_work_item_sizes: (0..3)
            .map(|d| at(attr::MAX_BLOCK_DIM_X + d).map(|v| v as usize))
            .collect::<Result<_, _>>()?,
        fp64: true,
        // Texture and surface objects on HIP arrays (`image.rs`).
        images: true,
        int64_atomics: true,
        private_memory,
        private_group_memory,
    })
}

/// The device's architecture, as `gfx90a` (features such as `:sramecc+` dropped).
fn architecture_of(api: &Api, dev: c_int) -> String {
    let mut props = vec![0u8; 16 << 10];
    // SAFETY: the buffer is larger than any version's hipDeviceProp_t.
    if unsafe { (api.properties)(props.as_mut_ptr().cast(), dev) } != 0 {
        return "gfx-unknown".into();
    }
    find_arch(&props).unwrap_or_else(|| "gfx-unknown".into())
}

/// The first NUL-terminated `gfx<hex digits>` string in `bytes`.
pub(crate) fn find_arch(bytes: &[u8]) -> Option<String> {
    let mut at = 0;
    while let Some(k) = bytes[at..].windows(3).position(|w| w == b"gfx") {
        let start = at + k;
        let end = start + bytes[start..].iter().position(|&b| b == 0)?;
        let s = String::from_utf8_lossy(&bytes[start..end]).into_owned();
        let arch = s.split(':').next().unwrap_or_default().to_string();
        if arch.len() > 3 && arch[3..].chars().all(|c| c.is_ascii_hexdigit()) {
            return Some(arch);
        }
        at = start + 3;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every call nuda makes is found in the HIP runtime installed here (ROCm 5.2 exports
    /// some under C++ names); `NUDA_REQUIRE_AMD=1` makes a missing runtime a failure.
    #[test]
    fn every_hip_call_is_found() {
        match api() {
            Ok(_) => {}
            Err(why) if why.starts_with("no HIP runtime") => assert!(
                std::env::var("NUDA_REQUIRE_AMD").as_deref() != Ok("1"),
                "NUDA_REQUIRE_AMD=1 but {why}"
            ),
            Err(why) => panic!("{why}"),
        }
    }

    #[test]
    fn the_architecture_is_found_in_the_properties() {
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"AMD\0");
        b[20..40].copy_from_slice(b"gfx90a:sramecc+:xna\0");
        assert_eq!(find_arch(&b).as_deref(), Some("gfx90a"));
        assert_eq!(find_arch(b"gfxy\0gfx1030\0"), Some("gfx1030".into()));
        assert_eq!(find_arch(b"no arch here\0"), None);
    }
}
