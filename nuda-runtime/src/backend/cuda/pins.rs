//! Arrays' host copies page-locked for the DMA engines (layer 1, the CUDA backend). The
//! memory layer asks for a pin on a host copy of 4 MiB or more once it has moved eight times
//! (`memory/host.rs`); `cuMemHostRegister` locks it, for every context (`PORTABLE`), and a
//! table of the registered ranges tells the transfers which copies may go to the DMA engine
//! straight from or into the caller's memory (`Lane::direct`). Staging through the pinned
//! slots held an H200's copies to the host's `memcpy`, 31 GB/s both ways against the raw
//! copy's 55 (session 39).
//!
//! A copy of memory that is not registered stays correct either way: the driver stages
//! pageable memory itself. The table only chooses the faster path, and an entry lives exactly
//! as long as its registration: removed before `cuMemHostUnregister`, which the memory layer
//! calls (by releasing the pin) before it frees the allocation, or leaks the allocation
//! where the driver failed to unregister it.

use super::driver::{error, Context};
use super::CuDevice;
use crate::backend::HostPin;
use cudarc::driver::sys;
use std::sync::{Arc, Mutex, PoisonError};

/// The registered ranges, as (start address, bytes): few (one per large array).
static RANGES: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// One registered allocation: unregistered by `release`, or by its drop where nothing
/// released it (the memory still exists then: the memory layer frees it only after a release).
struct CuPin {
    /// 0 once unregistered.
    ptr: usize,
    bytes: usize,
    ctx: Arc<Context>,
}

impl CuPin {
    /// Removes the range from the table and unregisters it, once; whether the driver did.
    fn unregister(&mut self) -> bool {
        if self.ptr == 0 {
            return true;
        }
        let mut ranges = RANGES.lock().unwrap_or_else(PoisonError::into_inner);
        ranges.retain(|&r| r != (self.ptr, self.bytes));
        drop(ranges);
        let p = std::mem::take(&mut self.ptr) as *mut std::ffi::c_void;
        // A failure leaves the pages registered: the memory layer then leaks the allocation.
        self.ctx.enter().is_ok()
            // SAFETY: `p` was registered by `CuDevice::pin` and is unregistered once (`ptr`
            // is 0 from here on), while its allocation still exists (`HostPin`'s contract on
            // the memory layer).
            && unsafe { sys::cuMemHostUnregister(p) } == sys::CUresult::CUDA_SUCCESS
    }
}

impl HostPin for CuPin {
    fn release(mut self: Box<Self>) -> bool {
        self.unregister()
    }
}

impl Drop for CuPin {
    fn drop(&mut self) {
        self.unregister();
    }
}

impl CuDevice {
    /// Whether host copies are pinned (`NUDA_PIN_HOST`, on by default).
    pub(crate) fn pins(&self) -> bool {
        matches!(crate::config::config().pin_host, Ok(true))
    }

    /// Registers `bytes` bytes at `ptr` with the driver, or `None` (pins turned off with
    /// `NUDA_PIN_HOST=0`, or the driver refused: the copies then stage).
    ///
    /// # Safety
    /// As `Backend::pin_host`: the memory stays allocated until the pin is released.
    pub(crate) unsafe fn pin(&self, ptr: *mut u8, bytes: usize) -> Option<Box<dyn HostPin>> {
        if !self.pins() || bytes == 0 {
            return None;
        }
        self.enter().ok()?;
        let flags = sys::CU_MEMHOSTREGISTER_PORTABLE;
        // SAFETY: `ptr` points to `bytes` bytes of host memory that stay allocated until the
        // pin is released (the caller's contract); the context is current.
        let r = unsafe { sys::cuMemHostRegister_v2(ptr.cast(), bytes, flags) };
        if r != sys::CUresult::CUDA_SUCCESS {
            return None;
        }
        let (ptr, ctx) = (ptr as usize, self.ctx.clone());
        let mut ranges = RANGES.lock().unwrap_or_else(PoisonError::into_inner);
        ranges.push((ptr, bytes));
        Some(Box::new(CuPin { ptr, bytes, ctx }))
    }
}

impl CuDevice {
    /// The best of `reps` registrations of `bytes` of touched ordinary memory, each
    /// unregistered after, in GB/s: what a pin costs (`memory/host.rs` assumes about 4).
    pub(crate) fn pin_rate(&self, bytes: usize, reps: usize) -> crate::error::Result<f64> {
        self.enter()?;
        let e = |e| error(e, "timing a registration of host memory", &self.label);
        let mut host = vec![1u8; bytes.max(1)];
        let (p, n) = (host.as_mut_ptr().cast(), host.len());
        let mut best = f64::MAX;
        for _ in 0..reps.max(1) {
            let t = std::time::Instant::now();
            // SAFETY: `host` stays allocated until it is unregistered below (or forever).
            let r = unsafe { sys::cuMemHostRegister_v2(p, n, sys::CU_MEMHOSTREGISTER_PORTABLE) };
            r.result().map_err(e)?;
            best = best.min(t.elapsed().as_secs_f64());
            // SAFETY: registered just above, unregistered once.
            if let Err(err) = unsafe { sys::cuMemHostUnregister(p) }.result() {
                // The driver may still hold the pages: they must never be freed.
                std::mem::forget(host);
                return Err(e(err));
            }
        }
        Ok(n as f64 / best / 1e9)
    }
}

/// Whether the `len` bytes at `p` lie inside one registered range.
pub(crate) fn covers(p: *const u8, len: usize) -> bool {
    let (start, end) = (p as usize, (p as usize).saturating_add(len));
    let ranges = RANGES.lock().unwrap_or_else(PoisonError::into_inner);
    len > 0
        && ranges
            .iter()
            .any(|&(s, n)| s <= start && end <= s.saturating_add(n))
}
