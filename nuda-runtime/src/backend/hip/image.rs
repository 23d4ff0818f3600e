//! HIP images (layer 1, the HIP backend): a HIP array of one float per texel or four, with a
//! texture object for reads (unnormalised coordinates, clamped, nearest) and a surface object
//! for writes, as on CUDA (`backend/cuda/memory.rs`); kernels get a pointer to the image's
//! `nu_image` descriptor (`backend/c/opencl_in_cxx.h`). Images move whole.
//!
//! The runtime's structures are declared here as `hip_runtime_api.h` lays them out; the test
//! below has hiprtc, whose headers are the runtime's, check every size and offset used.

use super::runtime::{check, Api, DevicePtr, Status};
use crate::error::{Error, Result};
use libloading::Library;
use std::ffi::{c_int, c_uint, c_void};

/// `hipArray_t`, `hipTextureObject_t`, `hipSurfaceObject_t`: opaque pointers.
type Handle = *mut c_void;

/// `hipChannelFormatDesc`: bits per channel, and the kind (`hipChannelFormatKindFloat`: 2).
#[repr(C)]
struct ChannelFormat {
    bits: [c_int; 4],
    kind: c_int,
}

/// `hipResourceDesc` with its union read as `res.array.array` (`hipResourceTypeArray`: 0);
/// the rest of the union, 48 bytes, stays zero.
#[repr(C)]
struct ResourceDesc {
    res_type: c_int,
    array: Handle,
    rest: [u64; 6],
}

/// `hipTextureDesc`.
#[repr(C)]
struct TextureDesc {
    address_mode: [c_int; 3],
    filter_mode: c_int,
    read_mode: c_int,
    srgb: c_int,
    border_color: [f32; 4],
    normalized_coords: c_int,
    max_anisotropy: c_uint,
    mipmap_filter_mode: c_int,
    mipmap_level_bias: f32,
    min_mipmap_level_clamp: f32,
    max_mipmap_level_clamp: f32,
}

/// `hipAddressModeClamp`; `hipFilterModePoint` and `hipReadModeElementType` are 0.
const CLAMP: c_int = 1;
/// `hipArraySurfaceLoadStore`: the array may back a surface object.
const SURFACE_LOAD_STORE: c_uint = 2;
/// `hipMemcpyHostToDevice` (`hipMemcpyKind` is a host-side enum, absent from hiprtc's
/// headers, so the test below cannot check it: ROCm 5.2's `driver_types.h` gives 1 and 2).
const HOST_TO_DEVICE: c_int = 1;
/// `hipMemcpyDeviceToHost`.
const DEVICE_TO_HOST: c_int = 2;

/// The runtime's image calls (`hip_runtime_api.h`).
#[allow(clippy::type_complexity)]
pub(crate) struct ImageApi {
    malloc_array:
        unsafe extern "C" fn(*mut Handle, *const ChannelFormat, usize, usize, c_uint) -> Status,
    free_array: unsafe extern "C" fn(Handle) -> Status,
    create_texture: unsafe extern "C" fn(
        *mut Handle,
        *const ResourceDesc,
        *const TextureDesc,
        *const c_void,
    ) -> Status,
    destroy_texture: unsafe extern "C" fn(Handle) -> Status,
    create_surface: unsafe extern "C" fn(*mut Handle, *const ResourceDesc) -> Status,
    destroy_surface: unsafe extern "C" fn(Handle) -> Status,
    to_array: unsafe extern "C" fn(
        Handle,
        usize,
        usize,
        *const c_void,
        usize,
        usize,
        usize,
        c_int,
    ) -> Status,
    from_array: unsafe extern "C" fn(
        *mut c_void,
        usize,
        Handle,
        usize,
        usize,
        usize,
        usize,
        c_int,
    ) -> Status,
}

impl ImageApi {
    /// # Safety
    ///
    /// `lib` is AMD's HIP runtime, whose symbols have the signatures declared above.
    pub(super) unsafe fn load(lib: &Library) -> std::result::Result<ImageApi, libloading::Error> {
        // SAFETY: the caller's contract.
        unsafe {
            Ok(ImageApi {
                malloc_array: *lib.get(b"hipMallocArray\0")?,
                free_array: *lib.get(b"hipFreeArray\0")?,
                create_texture: *lib.get(b"hipCreateTextureObject\0")?,
                destroy_texture: *lib.get(b"hipDestroyTextureObject\0")?,
                create_surface: either(lib, b"hipCreateSurfaceObject\0", CREATE_SURFACE)?,
                destroy_surface: either(lib, b"hipDestroySurfaceObject\0", DESTROY_SURFACE)?,
                to_array: *lib.get(b"hipMemcpy2DToArray\0")?,
                from_array: *lib.get(b"hipMemcpy2DFromArray\0")?,
            })
        }
    }
}

/// ROCm 5's `hip_runtime_api.h` declares the surface calls outside its `extern "C"` block,
/// so `libamdhip64.so.5` exports them under their C++ names; the calling convention is C's.
const CREATE_SURFACE: &[u8] = b"_Z22hipCreateSurfaceObjectPP13__hip_surfacePK15hipResourceDesc\0";
const DESTROY_SURFACE: &[u8] = b"_Z23hipDestroySurfaceObjectP13__hip_surface\0";

/// The symbol `c` (C's name), or else `cxx` (C++'s).
///
/// # Safety
///
/// Both names, where present, are the function `T` describes.
unsafe fn either<T: Copy>(
    lib: &Library,
    c: &[u8],
    cxx: &[u8],
) -> std::result::Result<T, libloading::Error> {
    // SAFETY: the caller's contract.
    unsafe { lib.get::<T>(c).or_else(|_| lib.get::<T>(cxx)).map(|s| *s) }
}

/// One image on one AMD GPU: the array, both objects, and the kernels' descriptor.
pub(crate) struct Image {
    array: Handle,
    tex: Handle,
    surf: Handle,
    /// The `nu_image` descriptor in device memory: texture, surface, width, height.
    pub desc: DevicePtr,
    /// Bytes per row, and rows.
    row: usize,
    height: usize,
}

impl Image {
    /// An image of `width` x `height` texels of `channels` floats, `len` bytes in all. The
    /// device is current.
    pub(crate) fn new(
        api: &Api,
        layout: (usize, usize, usize),
        len: usize,
        device: &str,
    ) -> Result<Image> {
        let (width, height, channels) = layout;
        let need = width
            .checked_mul(height)
            .and_then(|t| t.checked_mul(channels * 4));
        if need != Some(len) || !matches!(channels, 1 | 4) {
            return Err(Error::DimsMismatch {
                what: format!("an image allocation on {device}"),
                expected: format!("{width} x {height} texels of 1 or 4 float channels"),
                found: format!("{len} bytes and {channels} channels"),
            });
        }
        let mut image = Image {
            array: std::ptr::null_mut(),
            tex: std::ptr::null_mut(),
            surf: std::ptr::null_mut(),
            desc: std::ptr::null_mut(),
            row: width * channels * 4,
            height,
        };
        // On an error, what was made so far is released: the handles start null.
        match image.make(api, (width, height, channels), device) {
            Ok(()) => Ok(image),
            Err(e) => {
                // SAFETY: made above, referred to by nothing else, released once.
                unsafe { image.release(api) };
                Err(e)
            }
        }
    }

    /// Creates the array, its objects and the descriptor, in that order.
    fn make(
        &mut self,
        api: &Api,
        (width, height, channels): (usize, usize, usize),
        device: &str,
    ) -> Result<()> {
        let i = &api.image;
        let during = "creating an image";
        let bits = if channels == 4 {
            [32; 4]
        } else {
            [32, 0, 0, 0]
        };
        let format = ChannelFormat { bits, kind: 2 };
        // SAFETY: out-parameter and descriptor live for the call; the device is current.
        let s = unsafe {
            (i.malloc_array)(
                &mut self.array,
                &format,
                width.max(1),
                height.max(1),
                SURFACE_LOAD_STORE,
            )
        };
        check(api, s, during, device)?;
        let res = ResourceDesc {
            res_type: 0,
            array: self.array,
            rest: [0; 6],
        };
        let tex = texture_desc();
        // SAFETY: as above; `res` names the array just made; no view description.
        let s = unsafe { (i.create_texture)(&mut self.tex, &res, &tex, std::ptr::null()) };
        check(api, s, during, device)?;
        // SAFETY: as above.
        let s = unsafe { (i.create_surface)(&mut self.surf, &res) };
        check(api, s, during, device)?;
        self.desc = descriptor(api, self.tex, self.surf, (width, height), device)?;
        if width == 0 || height == 0 {
            // An empty image is a one-texel stand-in, which reads must find zero, as on the
            // native engine and OpenCL: fresh device memory promises nothing.
            let texel = [0u8; 16];
            self.copy_in(api, &texel[..channels * 4], (channels * 4, 1), device)?;
        }
        Ok(())
    }

    /// Copies `data`, the whole image, to the device, and waits. An empty image has no bytes
    /// to move (its one-texel stand-in stays zero).
    pub(crate) fn write(&self, api: &Api, data: &[u8], device: &str) -> Result<()> {
        self.whole(data.len(), device)?;
        if data.is_empty() {
            return Ok(());
        }
        self.copy_in(api, data, (self.row, self.height), device)
    }

    /// Copies `rows` (bytes per row, rows) of `data` into the array's first rows, and waits.
    fn copy_in(&self, api: &Api, data: &[u8], rows: (usize, usize), device: &str) -> Result<()> {
        let (row, height) = rows;
        debug_assert!(data.len() >= row * height, "a copy of more than its bytes");
        // SAFETY: `data` holds `row * height` bytes, and the array at least that shape: the
        // callers pass the image's own rows, or one texel of an empty image's one-texel array.
        let s = unsafe {
            (api.image.to_array)(
                self.array,
                0,
                0,
                data.as_ptr().cast(),
                row,
                row,
                height,
                HOST_TO_DEVICE,
            )
        };
        check(api, s, "copying an image to the device", device)
    }

    /// Copies the whole image into `out`, and waits.
    pub(crate) fn read(&self, api: &Api, out: &mut [u8], device: &str) -> Result<()> {
        self.whole(out.len(), device)?;
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: as in `write`, the other way.
        let s = unsafe {
            (api.image.from_array)(
                out.as_mut_ptr().cast(),
                self.row,
                self.array,
                0,
                0,
                self.row,
                self.height,
                DEVICE_TO_HOST,
            )
        };
        check(api, s, "copying an image to the host", device)
    }

    /// The image's size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.row * self.height
    }

    /// `Ok` when a transfer of `bytes` is the whole image: images move whole.
    fn whole(&self, bytes: usize, device: &str) -> Result<()> {
        if bytes == self.len() {
            return Ok(());
        }
        Err(Error::DimsMismatch {
            what: format!("an image transfer on {device}"),
            expected: format!("the whole image, {} bytes", self.len()),
            found: format!("{bytes} bytes"),
        })
    }

    /// Frees whatever of the image exists.
    ///
    /// # Safety
    ///
    /// The image's device is current, no kernel still uses it, and it is released once.
    pub(crate) unsafe fn release(&self, api: &Api) {
        let i = &api.image;
        // A failure here has no one to report to. SAFETY: the caller's contract; each handle
        // is null or was made by this image.
        unsafe {
            if !self.desc.is_null() {
                (api.free)(self.desc);
            }
            if !self.surf.is_null() {
                (i.destroy_surface)(self.surf);
            }
            if !self.tex.is_null() {
                (i.destroy_texture)(self.tex);
            }
            if !self.array.is_null() {
                (i.free_array)(self.array);
            }
        }
    }
}

/// Unnormalised, clamped, nearest lookups of the elements as stored: OpenCL's `nu_sampler`.
fn texture_desc() -> TextureDesc {
    TextureDesc {
        address_mode: [CLAMP; 3],
        filter_mode: 0,
        read_mode: 0,
        srgb: 0,
        border_color: [0.0; 4],
        normalized_coords: 0,
        max_anisotropy: 0,
        mipmap_filter_mode: 0,
        mipmap_level_bias: 0.0,
        min_mipmap_level_clamp: 0.0,
        max_mipmap_level_clamp: 0.0,
    }
}

/// The `nu_image` descriptor in device memory: both objects (pointers on AMD, passed as
/// 64-bit handles), then the width and height.
fn descriptor(
    api: &Api,
    tex: Handle,
    surf: Handle,
    (w, h): (usize, usize),
    device: &str,
) -> Result<DevicePtr> {
    let mut bytes = Vec::with_capacity(24);
    bytes.extend((tex as u64).to_ne_bytes());
    bytes.extend((surf as u64).to_ne_bytes());
    bytes.extend((w as i32).to_ne_bytes());
    bytes.extend((h as i32).to_ne_bytes());
    let mut desc = std::ptr::null_mut();
    // SAFETY: one out-parameter.
    let s = unsafe { (api.malloc)(&mut desc, bytes.len()) };
    check(api, s, "creating an image's descriptor", device)?;
    // SAFETY: `desc` holds `bytes.len()` bytes; the copy is synchronous.
    let s = unsafe { (api.htod)(desc, bytes.as_ptr().cast(), bytes.len()) };
    if let Err(e) = check(api, s, "creating an image's descriptor", device) {
        // SAFETY: allocated above, referred to by nothing else.
        unsafe { (api.free)(desc) };
        return Err(e);
    }
    Ok(desc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::hip::hiprtc::{compile, Failure};
    use std::mem::{offset_of, size_of};

    /// `static_assert`s that HIP's structures have the sizes and offsets of ours.
    fn layout_asserts() -> String {
        let checks = [
            ("sizeof(hipChannelFormatDesc)", size_of::<ChannelFormat>()),
            (
                "__builtin_offsetof(hipChannelFormatDesc, f)",
                offset_of!(ChannelFormat, kind),
            ),
            ("sizeof(hipResourceDesc)", size_of::<ResourceDesc>()),
            (
                "__builtin_offsetof(hipResourceDesc, res.array.array)",
                offset_of!(ResourceDesc, array),
            ),
            ("sizeof(hipTextureDesc)", size_of::<TextureDesc>()),
            (
                "__builtin_offsetof(hipTextureDesc, filterMode)",
                offset_of!(TextureDesc, filter_mode),
            ),
            (
                "__builtin_offsetof(hipTextureDesc, readMode)",
                offset_of!(TextureDesc, read_mode),
            ),
            (
                "__builtin_offsetof(hipTextureDesc, normalizedCoords)",
                offset_of!(TextureDesc, normalized_coords),
            ),
            (
                "__builtin_offsetof(hipTextureDesc, maxMipmapLevelClamp)",
                offset_of!(TextureDesc, max_mipmap_level_clamp),
            ),
            ("sizeof(hipTextureObject_t)", size_of::<Handle>()),
            ("sizeof(hipSurfaceObject_t)", size_of::<Handle>()),
            ("(int)hipAddressModeClamp", CLAMP as usize),
            ("(int)hipFilterModePoint", 0),
            ("(int)hipReadModeElementType", 0),
            ("(int)hipResourceTypeArray", 0),
            ("(int)hipChannelFormatKindFloat", 2),
        ];
        let mut text = String::from("#include <hip/hip_runtime.h>\n");
        for (what, value) in checks {
            text += &format!("static_assert({what} == {value}, \"{what}\");\n");
        }
        text + "__global__ void nu_layout(int* p) { p[0] = 1; }\n"
    }

    /// The structures the image calls take are laid out as ROCm's headers say, as hiprtc
    /// (whose headers are the runtime's) reads them; a wrong size or offset fails to compile.
    #[test]
    fn the_image_structures_match_hips_headers() {
        let options = crate::backend::hip::check::options("gfx90a");
        match compile(&layout_asserts(), "layout.hip", &options) {
            Ok(_) => {}
            Err(Failure::Missing(why)) => assert!(
                std::env::var("NUDA_REQUIRE_AMD").as_deref() != Ok("1"),
                "NUDA_REQUIRE_AMD=1 but hiprtc is missing: {why}"
            ),
            Err(Failure::Rejected(log)) => panic!("hiprtc rejected the layout:\n{log}"),
            Err(Failure::Crashed(why)) => panic!("hiprtc crashed: {why}"),
        }
    }

    /// The checks can fail: a wrong size is rejected.
    #[test]
    fn a_wrong_layout_is_rejected() {
        let options = crate::backend::hip::check::options("gfx90a");
        let text = layout_asserts().replace(
            "sizeof(hipTextureDesc) == 64",
            "sizeof(hipTextureDesc) == 60",
        );
        assert!(text.contains("== 60"), "the texture descriptor is 64 bytes");
        match compile(&text, "layout.hip", &options) {
            Err(Failure::Rejected(log)) => assert!(log.contains("hipTextureDesc"), "{log}"),
            Err(Failure::Missing(_)) if std::env::var("NUDA_REQUIRE_AMD").as_deref() != Ok("1") => {
            }
            other => panic!("a wrong layout compiled: {:?}", other.is_ok()),
        }
    }
}
