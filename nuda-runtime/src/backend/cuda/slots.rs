//! The per-launch resources of a CUDA device (layer 1, the CUDA backend), made once and
//! reused: a fault record in device memory, pinned host words it is copied back into, and
//! the events around the kernel.
//!
//! Why: a launch of a generated kernel used to allocate its record (`cuMemAlloc`), zero it,
//! create two events, and after the kernel copy the record back, free it (`cuMemFree`, which
//! waits for the whole device) and destroy the events: five synchronous driver calls and four
//! more, around every kernel. A device's first launch now makes its first slot (and fails,
//! saying so, if the driver cannot give 64 bytes). With a slot, the zeroing and the copy are queued on the launch's stream around the
//! kernel, and one event synchronisation waits for all of it.
//!
//! A slot serves one launch at a time: it leaves the pool for the launch and returns when the
//! launch ends, however it ends. Slots are kept for the device's life, as the staging buffer
//! is (`memory.rs`); there are as many as launches ever ran at once.

use super::CuDevice;
use crate::backend::c::record::RECORD_WORDS;
use cudarc::driver::result;
use cudarc::driver::sys;
use std::sync::{Mutex, PoisonError};

/// One launch's record, host words and events.
pub(crate) struct Slot {
    /// The fault record: `RECORD_WORDS` words of device memory.
    pub record: sys::CUdeviceptr,
    /// `RECORD_WORDS` pinned host words the record is copied into.
    host: *mut u32,
    /// Recorded before the kernel, after it, and after the record's copy.
    pub events: [sys::CUevent; 3],
}

// SAFETY: a slot is used by one launch at a time (it is out of the pool meanwhile), with the
// device's context current; its pointers are the driver's, valid in any thread.
unsafe impl Send for Slot {}

impl Slot {
    /// A new slot, or the driver's error (anything made before it is released).
    fn new() -> std::result::Result<Slot, result::DriverError> {
        let bytes = RECORD_WORDS * 4;
        // SAFETY: a fresh allocation of `bytes`, kept for the device's life.
        let record = unsafe { result::malloc_sync(bytes) }?;
        // SAFETY: a fresh pinned allocation of `bytes`, kept for the device's life, zeroed
        // here: the driver returns it uninitialised, and `host()` makes a slice of it.
        let host = match unsafe { result::malloc_host(bytes, 0) } {
            Ok(p) => {
                let p = p.cast::<u32>();
                // SAFETY: `p` holds RECORD_WORDS words, aligned (pinned allocations are
                // page-aligned), and nothing else has it yet.
                unsafe { std::ptr::write_bytes(p, 0, RECORD_WORDS) };
                p
            }
            Err(e) => {
                // SAFETY: allocated above and not used since.
                let _ = unsafe { result::free_sync(record) };
                return Err(e);
            }
        };
        let mut events = [std::ptr::null_mut(); 3];
        // The third is only waited on: no timing makes it cheaper to record and wait on.
        let flags = [
            sys::CUevent_flags::CU_EVENT_DEFAULT,
            sys::CUevent_flags::CU_EVENT_DEFAULT,
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING,
        ];
        for k in 0..3 {
            match result::event::create(flags[k]) {
                Ok(e) => events[k] = e,
                Err(e) => {
                    // SAFETY: made above, not used since, and released once here.
                    unsafe { release(record, host, &events[..k]) };
                    return Err(e);
                }
            }
        }
        Ok(Slot {
            record,
            host,
            events,
        })
    }

    /// The pinned words the record is copied into.
    pub fn host(&mut self) -> &mut [u32] {
        // SAFETY: `host` holds RECORD_WORDS initialised words (zeroed by `new`), owned by
        // this slot, and `&mut self` is the only way to them.
        unsafe { std::slice::from_raw_parts_mut(self.host, RECORD_WORDS) }
    }
}

/// Releases a slot's parts.
///
/// # Safety
/// Each was made by `Slot::new` and is not used again.
unsafe fn release(record: sys::CUdeviceptr, host: *mut u32, events: &[sys::CUevent]) {
    // SAFETY: the caller's contract.
    unsafe {
        let _ = result::free_sync(record);
        let _ = result::free_host(host.cast());
        for e in events {
            let _ = result::event::destroy(*e);
        }
    }
}

/// The device's idle slots.
#[derive(Default)]
pub(crate) struct Slots(Mutex<Vec<Slot>>);

/// A slot out of the pool for one launch; back in the pool when dropped.
pub(crate) struct Taken<'a> {
    slots: &'a Slots,
    slot: Option<Slot>,
}

impl std::ops::Deref for Taken<'_> {
    type Target = Slot;
    fn deref(&self) -> &Slot {
        self.slot
            .as_ref()
            .unwrap_or_else(|| unreachable!("taken until dropped"))
    }
}

impl std::ops::DerefMut for Taken<'_> {
    fn deref_mut(&mut self) -> &mut Slot {
        self.slot
            .as_mut()
            .unwrap_or_else(|| unreachable!("taken until dropped"))
    }
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.slot.take() {
            let mut idle = self.slots.0.lock().unwrap_or_else(PoisonError::into_inner);
            idle.push(s);
        }
    }
}

impl CuDevice {
    /// An idle slot, or a new one; the device's context must be current.
    pub(crate) fn slot(&self) -> crate::error::Result<Taken<'_>> {
        let idle = self
            .slots
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let slot = match idle {
            Some(s) => s,
            None => Slot::new().map_err(|e| {
                super::driver::error(e, "making a launch's record and events", &self.label)
            })?,
        };
        Ok(Taken {
            slots: &self.slots,
            slot: Some(slot),
        })
    }
}
