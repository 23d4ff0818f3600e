//! CUDA device memory (layer 1, the CUDA backend): linear buffers, images (a CUDA array with
//! a texture object for reads and a surface object for writes), and transfers through a
//! pinned staging buffer, which the DMA engines read at full speed where pageable host memory
//! goes through a driver copy first: an array's, pipelined in two slots (`transfer.rs`), an
//! image's whole.

use super::driver::{error, Context};
use super::transfer::{Lane, CHUNK};
use super::CuDevice;
use crate::backend::{Buffer, Layout};
use crate::error::{Error, Result};
use crate::stats::{record, Event};
use cudarc::driver::result;
use cudarc::driver::sys;
use std::any::Any;
use std::sync::{Arc, Mutex, PoisonError};

/// The staging buffer's size: transfers larger than this go in pieces.
const STAGING: usize = 64 << 20;

/// What a `CuBuffer` holds.
enum Storage {
    Linear(sys::CUdeviceptr),
    Image {
        array: sys::CUarray,
        tex: u64,
        surf: u64,
        /// The `nu_image` descriptor kernels get: both objects and the size.
        desc: sys::CUdeviceptr,
        width: usize,
        height: usize,
        channels: usize,
    },
}

/// Device memory on one CUDA device, freed when dropped.
pub(crate) struct CuBuffer {
    storage: Storage,
    len: usize,
    ctx: Arc<Context>,
}

// SAFETY: the CUDA array handle is only used with the device's context current, which the
// driver serialises; the buffer owns it alone.
unsafe impl Send for CuBuffer {}

impl Buffer for CuBuffer {
    fn handle(&self) -> u64 {
        match self.storage {
            Storage::Linear(p) => p,
            Storage::Image { desc, .. } => desc,
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl Drop for CuBuffer {
    fn drop(&mut self) {
        // A failure here has no one to report to; the context outlives every buffer.
        let _ = self.ctx.enter();
        match self.storage {
            // SAFETY: the pointer came from cuMemAlloc and is freed once, here.
            Storage::Linear(p) => drop(unsafe { result::free_sync(p) }),
            Storage::Image {
                array,
                tex,
                surf,
                desc,
                ..
            } => {
                // SAFETY: the objects, the descriptor and the array were created for this
                // buffer alone and are destroyed once, here, objects before their array.
                unsafe {
                    let _ = result::free_sync(desc);
                    destroy_objects(tex, surf);
                    let _ = sys::cuArrayDestroy(array);
                }
            }
        }
    }
}

/// A pinned host buffer for transfers, allocated at first use.
#[derive(Default)]
pub(crate) struct Staging(Mutex<Option<Pinned>>);

struct Pinned {
    ptr: *mut u8,
    /// An array's transfers: two slots at the buffer's start, a stream and their events.
    lane: Lane,
}

// SAFETY: the pinned memory is only touched under the staging mutex.
unsafe impl Send for Pinned {}

impl Pinned {
    /// The staging buffer, with its lane's slots at its start.
    fn new() -> std::result::Result<Pinned, result::DriverError> {
        const _: () = assert!(2 * CHUNK <= STAGING);
        // SAFETY: a fresh pinned allocation, kept for the device's life.
        let ptr = unsafe { result::malloc_host(STAGING, 0) }? as *mut u8;
        // SAFETY: CHUNK < STAGING, so the second slot starts inside the allocation.
        match Lane::new([ptr, unsafe { ptr.add(CHUNK) }]) {
            Ok(lane) => Ok(Pinned { ptr, lane }),
            Err(e) => {
                // SAFETY: allocated above and not used since.
                let _ = unsafe { result::free_host(ptr.cast()) };
                Err(e)
            }
        }
    }
}

impl CuDevice {
    /// Device memory for `len` bytes laid out as `layout`.
    pub(crate) fn allocate(&self, len: usize, layout: Layout) -> Result<Box<dyn Buffer>> {
        self.enter()?;
        let during = format!("allocating {len} bytes");
        let storage = match layout {
            // SAFETY: a fresh allocation of at least one byte; freed by the buffer's drop.
            Layout::Buffer => Storage::Linear(
                unsafe { result::malloc_sync(len.max(1)) }
                    .map_err(|e| error(e, &during, &self.label))?,
            ),
            Layout::Image {
                width,
                height,
                channels,
            } => self.image(len, width, height, channels)?,
        };
        record(Some(self.info.index), Event::Alloc(len.max(1) as u64));
        Ok(Box::new(CuBuffer {
            storage,
            len,
            ctx: self.ctx.clone(),
        }))
    }

    fn image(&self, len: usize, width: usize, height: usize, channels: usize) -> Result<Storage> {
        let need = width
            .checked_mul(height)
            .and_then(|t| t.checked_mul(channels * 4));
        if need != Some(len) || !matches!(channels, 1 | 4) {
            return Err(Error::DimsMismatch {
                what: format!("an image allocation on {}", self.label),
                expected: format!("{width} x {height} texels of 1 or 4 float channels"),
                found: format!("{len} bytes and {channels} channels"),
            });
        }
        let e = |e| error(e, "creating an image", &self.label);
        let desc = sys::CUDA_ARRAY_DESCRIPTOR {
            Width: width.max(1),
            Height: height.max(1),
            Format: sys::CUarray_format::CU_AD_FORMAT_FLOAT,
            NumChannels: channels as u32,
        };
        let mut array = std::ptr::null_mut();
        // SAFETY: `desc` and `array` are live for the call.
        unsafe { sys::cuArrayCreate_v2(&mut array, &desc) }
            .result()
            .map_err(e)?;
        // An empty image is a one-texel stand-in, which reads must find zero, as on the native
        // engine and OpenCL: fresh device memory promises nothing.
        let mut texel = [0u8; 16];
        let zeroed = match width == 0 || height == 0 {
            true => copy_2d(array, texel.as_mut_ptr(), channels * 4, 1, true).map_err(e),
            false => Ok(()),
        };
        let made = zeroed
            .and_then(|()| self.objects(array))
            .and_then(|(tex, surf)| {
                let made = descriptor(tex, surf, width, height).map_err(e);
                if made.is_err() {
                    // SAFETY: both objects were just made and nothing else refers to them.
                    unsafe { destroy_objects(tex, surf) };
                }
                Ok(Storage::Image {
                    array,
                    tex,
                    surf,
                    desc: made?,
                    width,
                    height,
                    channels,
                })
            });
        if made.is_err() {
            // SAFETY: the array was just created and nothing else refers to it.
            let _ = unsafe { sys::cuArrayDestroy(array) };
        }
        made
    }

    /// A texture object (unnormalised, clamped, nearest) and a surface object on `array`.
    fn objects(&self, array: sys::CUarray) -> Result<(u64, u64)> {
        let e = |e| error(e, "creating an image's texture and surface", &self.label);
        // SAFETY: all-zero is a valid value of these plain C structs (no flags, no mipmaps).
        let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
        res.res.array.hArray = array;
        // SAFETY: as above.
        let mut tex_desc: sys::CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
        tex_desc.addressMode = [sys::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP; 3];
        tex_desc.filterMode = sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT;
        let (mut tex, mut surf) = (0u64, 0u64);
        // SAFETY: the descriptors and outputs are live for the calls; `array` is valid.
        unsafe {
            sys::cuTexObjectCreate(&mut tex, &res, &tex_desc, std::ptr::null())
                .result()
                .map_err(e)?;
            if let Err(err) = sys::cuSurfObjectCreate(&mut surf, &res).result() {
                // The texture object was just made and nothing else refers to it.
                let _ = sys::cuTexObjectDestroy(tex);
                return Err(e(err));
            }
        }
        Ok((tex, surf))
    }

    /// Copies `data` into `buf`: an array's from registered memory directly, else through the
    /// staging buffer (`transfer.rs`).
    pub(crate) fn write(&self, buf: &mut dyn Buffer, data: &[u8]) -> Result<()> {
        let b = self.own(buf.as_any(), data.len(), "copying to the device")?;
        self.enter()?;
        match b.storage {
            // `own` saw the buffer hold data.len() bytes.
            Storage::Linear(p) => self.pipelined(|lane| lane.write(p, data)),
            Storage::Image {
                array,
                width,
                height,
                channels,
                ..
            } => {
                let mut pinned_copy = |pinned: &mut [u8]| {
                    pinned[..data.len()].copy_from_slice(data);
                    copy_2d(
                        array,
                        pinned.as_mut_ptr(),
                        width * channels * 4,
                        height,
                        true,
                    )
                };
                self.with_staging(data.len(), &mut pinned_copy)
            }
        }
    }

    /// Copies `data` into a linear buffer from byte `offset` on (only those bytes move).
    pub(crate) fn write_at(&self, buf: &mut dyn Buffer, offset: usize, data: &[u8]) -> Result<()> {
        let p = self.linear(
            buf.as_any(),
            offset,
            data.len(),
            "copying part of an array to the device",
        )?;
        self.enter()?;
        // `linear` saw the buffer hold offset + data.len() bytes.
        self.pipelined(|lane| lane.write(p + offset as u64, data))?;
        record(Some(self.info.index), Event::ToDevice(data.len() as u64));
        Ok(())
    }

    /// Copies `out.len()` bytes of a linear buffer, from byte `offset` on, into `out`.
    pub(crate) fn read_at(&self, buf: &dyn Buffer, offset: usize, out: &mut [u8]) -> Result<()> {
        let p = self.linear(
            buf.as_any(),
            offset,
            out.len(),
            "copying part of an array to the host",
        )?;
        self.enter()?;
        // `linear` saw the buffer hold offset + out.len() bytes.
        self.pipelined(|lane| lane.read(p + offset as u64, out))?;
        record(Some(self.info.index), Event::ToHost(out.len() as u64));
        Ok(())
    }

    /// The device address of a linear buffer holding bytes `offset..offset + len`.
    fn linear(&self, buf: &dyn Any, offset: usize, len: usize, during: &str) -> Result<u64> {
        let end = offset.saturating_add(len);
        let b = self.own(buf, end, during)?;
        match b.storage {
            Storage::Linear(p) => Ok(p),
            Storage::Image { .. } => Err(Error::DimsMismatch {
                what: format!("{during} on {}", self.label),
                expected: "an array's buffer".into(),
                found: "an image, which moves whole".into(),
            }),
        }
    }

    /// Copies `buf` into `out`: an array's into registered memory directly, else through the
    /// staging buffer (`transfer.rs`).
    pub(crate) fn read(&self, buf: &dyn Buffer, out: &mut [u8]) -> Result<()> {
        let b = self.own(buf.as_any(), out.len(), "copying to the host")?;
        self.enter()?;
        match b.storage {
            // `own` saw the buffer hold out.len() bytes.
            Storage::Linear(p) => self.pipelined(|lane| lane.read(p, out)),
            Storage::Image {
                array,
                width,
                height,
                channels,
                ..
            } => {
                let n = out.len();
                let mut pinned_copy = |pinned: &mut [u8]| {
                    copy_2d(
                        array,
                        pinned.as_mut_ptr(),
                        width * channels * 4,
                        height,
                        false,
                    )?;
                    out.copy_from_slice(&pinned[..n]);
                    Ok(())
                };
                self.with_staging(n, &mut pinned_copy)
            }
        }
    }

    /// Zeroes the first `bytes` bytes of `buf`.
    pub(crate) fn zero(&self, buf: &mut dyn Buffer, bytes: usize) -> Result<()> {
        let bytes = match buf.as_any().downcast_ref::<CuBuffer>() {
            Some(CuBuffer {
                storage: Storage::Image { .. },
                len,
                ..
            }) => *len,
            _ => bytes,
        };
        let b = self.own(buf.as_any(), bytes, "zeroing device memory")?;
        let image_bytes = b.len;
        match b.storage {
            Storage::Linear(p) => {
                self.enter()?;
                // SAFETY: `p` holds at least `bytes` bytes.
                unsafe { result::memset_d8_sync(p, 0, bytes) }
                    .map_err(|e| error(e, "zeroing device memory", &self.label))
            }
            // Zeroing an image zeroes all of it.
            Storage::Image { .. } => self.write(buf, &vec![0u8; image_bytes]),
        }
    }

    /// `buf` as this backend's buffer, checked to hold `bytes` bytes.
    fn own<'b>(&self, buf: &'b dyn Any, bytes: usize, during: &str) -> Result<&'b CuBuffer> {
        let b = buf
            .downcast_ref::<CuBuffer>()
            .ok_or_else(|| Error::Launch {
                kernel: during.into(),
                device: self.label.clone(),
                reason: "the buffer belongs to another backend".into(),
            })?;
        // An image moves whole: a transfer of any other size is refused.
        let image = matches!(b.storage, Storage::Image { .. });
        if bytes > b.len || (image && bytes != b.len) {
            return Err(Error::DimsMismatch {
                what: format!("{during} on {}", self.label),
                expected: format!("at most {} bytes", b.len),
                found: format!("{bytes} bytes"),
            });
        }
        Ok(b)
    }

    /// Runs `f` with the staging buffer's lane (created at first use), the lock held.
    fn pipelined(
        &self,
        f: impl FnOnce(&Lane) -> std::result::Result<(), result::DriverError>,
    ) -> Result<()> {
        // A malformed `NUDA_PIN_HOST` is said where it would act.
        crate::config::config().pin_host.clone()?;
        let e = |e| error(e, "a host-device copy", &self.label);
        let mut slot = self
            .staging
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(Pinned::new().map_err(e)?);
        }
        let lane = &slot
            .as_ref()
            .unwrap_or_else(|| unreachable!("set above"))
            .lane;
        f(lane).map_err(e)
    }

    /// Calls `f` with a pinned buffer of at least `len` bytes (a staging buffer of its own
    /// when `len` is above the shared one's size).
    fn with_staging(
        &self,
        len: usize,
        f: &mut dyn FnMut(&mut [u8]) -> std::result::Result<(), result::DriverError>,
    ) -> Result<()> {
        // A malformed `NUDA_PIN_HOST` is said where it would act.
        crate::config::config().pin_host.clone()?;
        let e = |e| error(e, "a host-device copy", &self.label);
        let mut slot = self
            .staging
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let own;
        let ptr = match (&*slot, len <= STAGING) {
            (Some(p), true) => p.ptr,
            (None, true) => {
                let p = Pinned::new().map_err(e)?;
                let ptr = p.ptr;
                *slot = Some(p);
                ptr
            }
            (_, false) => {
                // SAFETY: a fresh pinned allocation, freed below.
                own = unsafe { result::malloc_host(len, 0) }.map_err(e)? as *mut u8;
                own
            }
        };
        let size = if len <= STAGING { STAGING } else { len };
        // SAFETY: `ptr` points to `size` bytes of pinned memory that only this call uses
        // (the mutex is held).
        let pinned = unsafe { std::slice::from_raw_parts_mut(ptr, size) };
        let r = f(pinned).map_err(e);
        if len > STAGING {
            // SAFETY: allocated above for this call alone.
            let _ = unsafe { result::free_host(ptr.cast()) };
        }
        r
    }
}

/// Destroys an image's texture and surface objects; a failure has no one to report to.
///
/// # Safety
///
/// Both objects exist, nothing uses them any more, and they are destroyed once.
unsafe fn destroy_objects(tex: u64, surf: u64) {
    // SAFETY: the caller's contract.
    unsafe {
        let _ = sys::cuTexObjectDestroy(tex);
        let _ = sys::cuSurfObjectDestroy(surf);
    }
}

/// An image's `nu_image` descriptor in device memory: texture, surface, width, height.
fn descriptor(
    tex: u64,
    surf: u64,
    width: usize,
    height: usize,
) -> std::result::Result<sys::CUdeviceptr, result::DriverError> {
    let mut bytes = Vec::with_capacity(24);
    bytes.extend(tex.to_ne_bytes());
    bytes.extend(surf.to_ne_bytes());
    bytes.extend((width as i32).to_ne_bytes());
    bytes.extend((height as i32).to_ne_bytes());
    // SAFETY: a fresh allocation of the descriptor's 24 bytes, freed with the image.
    let desc = unsafe { result::malloc_sync(bytes.len()) }?;
    // SAFETY: `desc` holds `bytes.len()` bytes.
    unsafe { result::memcpy_htod_sync(desc, &bytes) }?;
    Ok(desc)
}

/// A whole-image copy between pinned host memory and a CUDA array.
fn copy_2d(
    array: sys::CUarray,
    host: *mut u8,
    row: usize,
    height: usize,
    to_device: bool,
) -> std::result::Result<(), result::DriverError> {
    // Every field written out: the memory-type enums have no zero value, so an all-zero
    // struct would not be a valid one (the H200 run of session 15 found `mem::zeroed` here).
    use sys::CUmemorytype::{CU_MEMORYTYPE_ARRAY as ARRAY, CU_MEMORYTYPE_HOST as HOST};
    let none = std::ptr::null_mut();
    let (src_type, src_host, src_array, src_pitch, dst_type, dst_host, dst_array, dst_pitch) =
        match to_device {
            true => (
                HOST,
                host.cast_const().cast(),
                none,
                row,
                ARRAY,
                std::ptr::null_mut(),
                array,
                0,
            ),
            false => (
                ARRAY,
                std::ptr::null(),
                array,
                0,
                HOST,
                host.cast(),
                none,
                row,
            ),
        };
    let c = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: src_type,
        srcHost: src_host,
        srcDevice: 0,
        srcArray: src_array,
        srcPitch: src_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: dst_type,
        dstHost: dst_host,
        dstDevice: 0,
        dstArray: dst_array,
        dstPitch: dst_pitch,
        WidthInBytes: row,
        Height: height,
    };
    // SAFETY: the host side holds row * height bytes, the array is that image's.
    unsafe { sys::cuMemcpy2D_v2(&c) }.result()
}
