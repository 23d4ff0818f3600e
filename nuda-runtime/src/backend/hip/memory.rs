//! HIP device memory (layer 1, the HIP backend): linear buffers, and synchronous transfers
//! through the runtime's own copies. Images are not written yet on HIP (`runtime.rs` says
//! the device has none, so the launch layer refuses them with its own message).

use super::runtime::{check, DevicePtr};
use super::HipDevice;
use crate::backend::{Buffer, Layout};
use crate::error::{Error, Result};
use std::any::Any;

/// Device memory on one AMD GPU, freed when dropped.
pub(crate) struct HipBuffer {
    ptr: DevicePtr,
    len: usize,
    device: i32,
}

// SAFETY: a device pointer may be used from any thread after hipSetDevice; the buffer owns
// it alone.
unsafe impl Send for HipBuffer {}

impl Buffer for HipBuffer {
    fn handle(&self) -> u64 {
        self.ptr as u64
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
            // SAFETY: the pointer came from hipMalloc on this device and is freed once, here.
            unsafe {
                (api.set_device)(self.device);
                (api.free)(self.ptr);
            }
        }
    }
}

impl HipDevice {
    /// A linear buffer of `bytes` (at least one byte: HIP refuses empty allocations).
    pub(crate) fn allocate(&self, bytes: usize, layout: Layout) -> Result<Box<dyn Buffer>> {
        if let Layout::Image { .. } = layout {
            return Err(Error::Launch {
                kernel: "an image".into(),
                device: self.label.clone(),
                reason: "images are not supported on the HIP backend yet; use an array, or \
                         NUDA_ENGINE=opencl for ROCm's OpenCL"
                    .into(),
            });
        }
        let api = self.enter()?;
        let mut ptr = std::ptr::null_mut();
        // SAFETY: one out-parameter; the device is current.
        let s = unsafe { (api.malloc)(&mut ptr, bytes.max(1)) };
        check(api, s, "allocating device memory", &self.label)?;
        Ok(Box::new(HipBuffer {
            ptr,
            len: bytes,
            device: self.ordinal,
        }))
    }

    /// The buffer behind `buf`, with `bytes` from `offset` checked to lie inside it.
    fn linear(&self, buf: &dyn Buffer, offset: usize, bytes: usize) -> Result<DevicePtr> {
        let b = buf
            .as_any()
            .downcast_ref::<HipBuffer>()
            .ok_or_else(|| self.foreign())?;
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
        Ok(unsafe { b.ptr.cast::<u8>().add(offset) }.cast())
    }

    fn foreign(&self) -> Error {
        Error::Launch {
            kernel: "a transfer".into(),
            device: self.label.clone(),
            reason: "the buffer belongs to another backend".into(),
        }
    }

    /// Copies `data` to `buf` from byte `offset` on, and waits.
    pub(crate) fn write_at(&self, buf: &mut dyn Buffer, offset: usize, data: &[u8]) -> Result<()> {
        let dst = self.linear(buf, offset, data.len())?;
        let api = self.enter()?;
        // SAFETY: `dst` holds `data.len()` bytes (checked); the copy is synchronous.
        let s = unsafe { (api.htod)(dst, data.as_ptr().cast(), data.len()) };
        check(api, s, "copying to the device", &self.label)
    }

    /// Copies `out.len()` bytes of `buf` from byte `offset` on into `out`, and waits.
    pub(crate) fn read_at(&self, buf: &dyn Buffer, offset: usize, out: &mut [u8]) -> Result<()> {
        let src = self.linear(buf, offset, out.len())?;
        let api = self.enter()?;
        // SAFETY: `src` holds `out.len()` bytes (checked); the copy is synchronous.
        let s = unsafe { (api.dtoh)(out.as_mut_ptr().cast(), src, out.len()) };
        check(api, s, "copying to the host", &self.label)
    }

    /// Zeroes the first `bytes` bytes of `buf`.
    pub(crate) fn zero(&self, buf: &mut dyn Buffer, bytes: usize) -> Result<()> {
        let dst = self.linear(buf, 0, bytes)?;
        let api = self.enter()?;
        // SAFETY: `dst` holds `bytes` bytes (checked); hipMemset on the null stream completes
        // before later work on it, and the device is synchronised before reads by the host.
        let s = unsafe { (api.memset)(dst, 0, bytes) };
        check(api, s, "zeroing device memory", &self.label)
    }
}
