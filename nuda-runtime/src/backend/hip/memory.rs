//! HIP device memory (layer 1, the HIP backend): linear buffers and images (`image.rs`),
//! and synchronous transfers through the runtime's own copies.

use super::image::Image;
use super::runtime::{check, DevicePtr};
use super::HipDevice;
use crate::backend::{Buffer, Layout};
use crate::error::{Error, Result};
use std::any::Any;

/// What a `HipBuffer` holds.
enum Storage {
    Linear(DevicePtr),
    Image(Image),
}

/// Device memory on one AMD GPU, freed when dropped.
pub(crate) struct HipBuffer {
    storage: Storage,
    len: usize,
    device: i32,
}

// SAFETY: a device pointer or an image's handles may be used from any thread after
// hipSetDevice; the buffer owns them alone.
unsafe impl Send for HipBuffer {}

impl Buffer for HipBuffer {
    fn handle(&self) -> u64 {
        match &self.storage {
            Storage::Linear(p) => *p as u64,
            // Kernels take an image as its descriptor's address (`nu_image`).
            Storage::Image(i) => i.desc as u64,
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl Drop for HipBuffer {
    fn drop(&mut self) {
        if let Ok(api) = super::runtime::api() {
            // SAFETY: the pointer or image was made on this device and is freed once, here;
            // launches are synchronous, so no kernel still uses it.
            unsafe {
                (api.set_device)(self.device);
                match &self.storage {
                    Storage::Linear(p) => {
                        (api.free)(*p);
                    }
                    Storage::Image(i) => i.release(api),
                }
            }
        }
    }
}

impl HipDevice {
    /// A linear buffer of `bytes` (at least one byte: HIP refuses empty allocations), or an
    /// image of that many.
    pub(crate) fn allocate(&self, bytes: usize, layout: Layout) -> Result<Box<dyn Buffer>> {
        let api = self.enter()?;
        let storage = match layout {
            Layout::Buffer => {
                let mut ptr = std::ptr::null_mut();
                // SAFETY: one out-parameter; the device is current.
                let s = unsafe { (api.malloc)(&mut ptr, bytes.max(1)) };
                check(api, s, "allocating device memory", &self.label)?;
                Storage::Linear(ptr)
            }
            Layout::Image {
                width,
                height,
                channels,
            } => Storage::Image(Image::new(
                api,
                (width, height, channels),
                bytes,
                &self.label,
            )?),
        };
        Ok(Box::new(HipBuffer {
            storage,
            len: bytes,
            device: self.ordinal,
        }))
    }

    /// `buf` as this backend's buffer.
    fn own<'b>(&self, buf: &'b dyn Buffer) -> Result<&'b HipBuffer> {
        buf.as_any()
            .downcast_ref::<HipBuffer>()
            .ok_or_else(|| self.foreign())
    }

    /// The buffer behind `buf`, with `bytes` from `offset` checked to lie inside it.
    fn linear(&self, buf: &dyn Buffer, offset: usize, bytes: usize) -> Result<DevicePtr> {
        let b = self.own(buf)?;
        let Storage::Linear(ptr) = b.storage else {
            return Err(Error::DimsMismatch {
                what: format!("a transfer on {}", self.label),
                expected: "an array's buffer".into(),
                found: "an image, which moves whole".into(),
            });
        };
        if offset.checked_add(bytes).is_none_or(|end| end > b.len) {
            return Err(Error::Launch {
                kernel: "a transfer".into(),
                device: self.label.clone(),
                reason: format!(
                    "{bytes} bytes at offset {offset} do not fit a buffer of {} bytes",
                    b.len
                ),
            });
        }
        // SAFETY: inside the allocation, as checked above.
        Ok(unsafe { ptr.cast::<u8>().add(offset) }.cast())
    }

    fn foreign(&self) -> Error {
        Error::Launch {
            kernel: "a transfer".into(),
            device: self.label.clone(),
            reason: "the buffer belongs to another backend".into(),
        }
    }

    /// Copies `data` to the whole of `buf` (an image moves whole), and waits.
    pub(crate) fn write(&self, buf: &mut dyn Buffer, data: &[u8]) -> Result<()> {
        match &self.own(buf)?.storage {
            Storage::Image(i) => i.write(self.enter()?, data, &self.label),
            Storage::Linear(_) => self.write_at(buf, 0, data),
        }
    }

    /// Copies the whole of `buf` into `out`, and waits.
    pub(crate) fn read(&self, buf: &dyn Buffer, out: &mut [u8]) -> Result<()> {
        match &self.own(buf)?.storage {
            Storage::Image(i) => i.read(self.enter()?, out, &self.label),
            Storage::Linear(_) => self.read_at(buf, 0, out),
        }
    }

    /// Copies `data` to an array's buffer from byte `offset` on, and waits.
    pub(crate) fn write_at(&self, buf: &mut dyn Buffer, offset: usize, data: &[u8]) -> Result<()> {
        let dst = self.linear(buf, offset, data.len())?;
        // A malformed `NUDA_PIN_HOST` is said where it would act (`pins.rs`).
        crate::config::config().pin_host.clone()?;
        let api = self.enter()?;
        // SAFETY: `dst` holds `data.len()` bytes (checked); the copy is synchronous.
        let s = unsafe { (api.htod)(dst, data.as_ptr().cast(), data.len()) };
        check(api, s, "copying to the device", &self.label)
    }

    /// Copies `out.len()` bytes of an array's buffer from byte `offset` on into `out`, and
    /// waits.
    pub(crate) fn read_at(&self, buf: &dyn Buffer, offset: usize, out: &mut [u8]) -> Result<()> {
        let src = self.linear(buf, offset, out.len())?;
        // A malformed `NUDA_PIN_HOST` is said where it would act (`pins.rs`).
        crate::config::config().pin_host.clone()?;
        let api = self.enter()?;
        // SAFETY: `src` holds `out.len()` bytes (checked); the copy is synchronous.
        let s = unsafe { (api.dtoh)(out.as_mut_ptr().cast(), src, out.len()) };
        check(api, s, "copying to the host", &self.label)
    }

    /// Zeroes the first `bytes` bytes of `buf`; all of an image.
    pub(crate) fn zero(&self, buf: &mut dyn Buffer, bytes: usize) -> Result<()> {
        if let Storage::Image(i) = &self.own(buf)?.storage {
            let zeros = vec![0u8; i.len()];
            return i.write(self.enter()?, &zeros, &self.label);
        }
        let dst = self.linear(buf, 0, bytes)?;
        let api = self.enter()?;
        // SAFETY: `dst` holds `bytes` bytes (checked); hipMemset on the null stream completes
        // before later work on it, and the device is synchronised before reads by the host.
        let s = unsafe { (api.memset)(dst, 0, bytes) };
        check(api, s, "zeroing device memory", &self.label)
    }
}
