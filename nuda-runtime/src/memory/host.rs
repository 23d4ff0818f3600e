//! An array's host copy (layer 3, the memory layer): a vector that a backend may page-lock
//! once it has moved to or from a device more than once, so that its later copies run
//! straight from it (on CUDA, a `cuMemcpy` from registered memory at the link's speed, where
//! staging through a pinned buffer is held to the host's `memcpy`).
//!
//! The pin is tied to the allocation: it is dropped before the vector is freed (`Drop`),
//! reallocated (`resize` past the capacity), so a backend never
//! holds a lock on memory the allocator may hand out again.

use crate::backend::{Backend, HostPin};
use crate::element::Pod;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// Host copies smaller than this stage as before: the driver's page-locking costs more
/// than the staging of a few MiB saves.
pub(crate) const PIN_MIN_BYTES: usize = 4 << 20;

/// A host copy and, once it has moved twice, the pin a backend put on its allocation.
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

    /// Drops the pin, if any; the next transfers count afresh.
    fn unpin(&mut self) {
        self.pin.take();
        *self.moves.get_mut() = 0;
    }

    /// Counts a transfer between this copy and `backend`'s device; from the second on, for a
    /// copy of at least `PIN_MIN_BYTES`, asks the backend to pin the allocation (once).
    pub fn moving(&self, backend: &dyn Backend) {
        let bytes = self.vec.capacity() * size_of::<T>();
        if bytes < PIN_MIN_BYTES || self.moves.fetch_add(1, Ordering::Relaxed) == 0 {
            return;
        }
        let ptr = self.vec.as_ptr().cast_mut().cast::<u8>();
        // SAFETY: the allocation of `bytes` bytes at `ptr` is this vector's, which is freed
        // or reallocated only after the pin is dropped (`Drop`, `resize`); `&self` methods
        // neither free nor move it, and the vector is never given away.
        self.pin
            .get_or_init(|| unsafe { backend.pin_host(ptr, bytes) });
    }
}

impl<T> Drop for HostBuf<T> {
    fn drop(&mut self) {
        // The pin first, then (with the fields) the allocation it covers.
        self.pin.take();
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
