//! Arrays' host copies page-locked for the DMA engines (layer 1, the HIP backend): the
//! memory layer asks for a pin on a host copy of 4 MiB or more once it has moved eight times
//! (`memory/host.rs`), and `hipHostRegister` locks it for every device (`Portable`).
//! HIP's synchronous copies go through the runtime's own staging from pageable memory; from
//! registered memory they go to the DMA engine straight. No AMD GPU has run this yet.

use super::HipDevice;
use crate::backend::HostPin;

/// `hipHostRegisterPortable`: registered for every device, not only the current one.
const PORTABLE: std::ffi::c_uint = 1;

/// One registered allocation: unregistered by `release`, or by its drop where nothing
/// released it (the memory still exists then: the memory layer frees it only after a release).
struct HipPin {
    /// 0 once unregistered.
    ptr: usize,
    api: &'static super::runtime::Api,
}

impl HipPin {
    /// Unregisters it, once; whether the runtime did.
    fn unregister(&mut self) -> bool {
        if self.ptr == 0 {
            return true;
        }
        let p = std::mem::take(&mut self.ptr) as *mut std::ffi::c_void;
        // SAFETY: `p` was registered by `HipDevice::pin` and is unregistered once (`ptr` is 0
        // from here on), while its allocation still exists (`HostPin`'s contract on the
        // memory layer). A failure leaves the pages registered: the memory layer then leaks
        // the allocation.
        unsafe { (self.api.host_unregister)(p) == 0 }
    }
}

impl HostPin for HipPin {
    fn release(mut self: Box<Self>) -> bool {
        self.unregister()
    }
}

impl Drop for HipPin {
    fn drop(&mut self) {
        self.unregister();
    }
}

impl HipDevice {
    /// Whether host copies are pinned (`NUDA_PIN_HOST`, on by default).
    pub(crate) fn pins(&self) -> bool {
        matches!(crate::config::config().pin_host, Ok(true))
    }

    /// Registers `bytes` bytes at `ptr` with the runtime, or `None` (pins turned off with
    /// `NUDA_PIN_HOST=0`, or the runtime refused: its copies then stage as before).
    ///
    /// # Safety
    /// As `Backend::pin_host`: the memory stays allocated until the pin is released.
    pub(crate) unsafe fn pin(&self, ptr: *mut u8, bytes: usize) -> Option<Box<dyn HostPin>> {
        if !self.pins() || bytes == 0 {
            return None;
        }
        let api = self.enter().ok()?;
        // SAFETY: `ptr` points to `bytes` bytes of host memory that stay allocated until the
        // pin is released (the caller's contract).
        let s = unsafe { (api.host_register)(ptr.cast(), bytes, PORTABLE) };
        let ptr = ptr as usize;
        (s == 0).then(|| Box::new(HipPin { ptr, api }) as Box<dyn HostPin>)
    }
}
