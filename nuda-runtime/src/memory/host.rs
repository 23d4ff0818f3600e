//! An array's host copy (layer 3, the memory layer): a vector that a backend may page-lock
//! once it has moved to and from a device often enough, so that its later copies run
//! straight from it (on CUDA, a `cuMemcpy` from registered memory at the link's speed, where
//! staging through a pinned buffer is held to the host's `memcpy`).
//!
//! The pin is tied to the allocation: it is released before the vector is freed (`Drop`) or
//! reallocated (`resize` past the capacity), so a backend never holds a lock on memory the
//! allocator may hand out again; where a driver fails to release it, the allocation is
//! leaked instead.

use crate::backend::{Backend, HostPin, Layout};
use crate::element::Pod;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// Host copies smaller than this stage as before: the driver's page-locking costs more
/// than the staging of a few MiB saves.
pub(crate) const PIN_MIN_BYTES: usize = 4 << 20;

/// Transfers an allocation makes staged before it is pinned: the ski-rental rule, so that
/// an array that moves only a few times never pays for its pin, and one that moves often
/// pays at most about twice what staging alone would have cost it. Page-locking is assumed
/// to run at about 4 GB/s and staging at 31 (an H200's, session 39): eight staged copies
/// cost about what one pin does. The bench records an array's first (staged) round and, on
/// CUDA, the page-locking rate, from which this should be set.
pub(crate) const PIN_AFTER_MOVES: u32 = 8;

/// A host copy and, once it has moved often, the pin a backend put on its allocation.
pub(crate) struct HostBuf<T> {
    vec: Vec<T>,
    /// Set once: a backend's pin, or `None` where the backend refused (never asked again).
    pin: OnceLock<Option<Box<dyn HostPin>>>,
    /// Transfers of this allocation so far.
    moves: AtomicU32,
}

impl<T: Pod> HostBuf<T> {
    /// The host copy `vec`, not pinned.
    pub fn new(vec: Vec<T>) -> Self {
        HostBuf {
            vec,
            pin: OnceLock::new(),
            moves: AtomicU32::new(0),
        }
    }

    /// Its allocation's room, in elements.
    pub fn capacity(&self) -> usize {
        self.vec.capacity()
    }

    /// Keeps the first `len` elements (no reallocation: the pin stays).
    pub fn truncate(&mut self, len: usize) {
        self.vec.truncate(len);
    }

    /// Makes it `len` elements long, new ones `T::default()`; past the capacity the vector
    /// reallocates, so the pin goes first.
    pub fn resize(&mut self, len: usize) {
        if len > self.vec.capacity() {
            self.unpin();
        }
        self.vec.resize(len, T::default());
    }

    /// Counts a transfer between this copy and `backend`'s device, laid out as `layout`;
    /// past `PIN_AFTER_MOVES` of them, for a copy of at least `PIN_MIN_BYTES` that moves
    /// without a conversion (an array of plain numbers: images and padded or `bool`
    /// elements go through buffers of their own), asks the backend to pin the allocation
    /// (once: a refusal stands).
    pub fn moving(&self, backend: &dyn Backend, layout: Layout) {
        let bytes = self.vec.capacity() * size_of::<T>();
        let plain = layout == Layout::Buffer && !T::PADDED && T::EVERY_BIT_PATTERN;
        if !plain || bytes < PIN_MIN_BYTES || !backend.pins_host() || self.pin.get().is_some() {
            return;
        }
        if self.moves.fetch_add(1, Ordering::Relaxed) < PIN_AFTER_MOVES {
            return;
        }
        let ptr = self.vec.as_ptr().cast_mut().cast::<u8>();
        // SAFETY: the allocation of `bytes` bytes at `ptr` is this vector's, which is freed
        // or reallocated only after the pin is released (`Drop`, `resize`); `&self` methods
        // neither free nor move it, and the vector is never given away.
        self.pin
            .get_or_init(|| unsafe { backend.pin_host(ptr, bytes) });
    }
}

impl<T> HostBuf<T> {
    /// Releases the pin, if any (leaking the allocation where the driver failed to); the
    /// next transfers count afresh.
    fn unpin(&mut self) {
        if let Some(Some(pin)) = self.pin.take() {
            if !pin.release() {
                std::mem::forget(std::mem::take(&mut self.vec));
            }
        }
        *self.moves.get_mut() = 0;
    }
}

impl<T> Drop for HostBuf<T> {
    fn drop(&mut self) {
        // The pin first, then (with the fields) the allocation it covers.
        self.unpin();
    }
}

impl<T: Pod> Default for HostBuf<T> {
    fn default() -> Self {
        HostBuf::new(Vec::new())
    }
}

impl<T> std::ops::Deref for HostBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.vec
    }
}

impl<T> std::ops::DerefMut for HostBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.vec
    }
}
