//! Pinned staging for large buffer transfers (layer 1, the OpenCL backend): the OpenCL side of
//! `../c/pipeline.rs`. A plain `clEnqueueWriteBuffer` from pageable memory makes the driver
//! stage each transfer itself, one copy after the other: through NVIDIA's OpenCL on the H200
//! that gave 5.7 to 6.7 GB/s. Here each device has two slots of pinned memory (buffers made
//! with `CL_MEM_ALLOC_HOST_PTR` and mapped once, the way NVIDIA's and AMD's guides obtain
//! pinned memory in OpenCL), and the device copies one chunk through one slot while the
//! host's threads copy the next through the other.
//!
//! By default only GPUs and accelerators stage (`NUDA_CL_PINNED`): on a CPU device, device
//! memory is host memory and staging adds a copy. `NUDA_CL_PINNED=1` stages on CPU devices
//! too, which is how the tests run this path without a GPU. Transfers of one chunk or less,
//! and transfers while another thread holds the device's slots, go directly.

use super::ClDevice;
use crate::backend::c::pipeline::{self, copy, Copies, CHUNK};
use crate::error::Result;
use crate::stats::{record, Event as Stat};
use opencl3::event::Event;
use opencl3::memory::{
    Buffer, CL_MAP_READ, CL_MAP_WRITE, CL_MEM_ALLOC_HOST_PTR, CL_MEM_READ_WRITE,
};
use opencl3::types::{CL_BLOCKING, CL_NON_BLOCKING};
use std::sync::{Mutex, OnceLock};

/// A device's two pinned slots, made at its first staged transfer.
#[derive(Default)]
pub(crate) struct Staging {
    slots: OnceLock<Option<Mutex<Slots>>>,
}

/// Two mapped buffers of `CHUNK` bytes and the event of each one's last copy. The buffers stay
/// mapped for the device's life (devices live as long as the process).
struct Slots {
    _bufs: [Buffer<u8>; 2],
    ptrs: [*mut u8; 2],
    events: [Option<Event>; 2],
    /// A failed transfer whose copies could not be seen to end: the slots may still be
    /// written by the device, so they are never used again.
    broken: bool,
}

// SAFETY: the pointers are the mapped host memory of the two buffers `Slots` owns, which no
// thread frees while they live. Only a transfer holding the mutex around `Slots` uses them:
// its own thread, the rayon workers its host copy borrows and the driver's copies it starts,
// all of which end before it releases the lock (`pipeline`, `settle`).
unsafe impl Send for Slots {}

impl Staging {
    /// Writes `data` into `dst` from byte `offset` on through the slots, if this transfer is
    /// to be staged; `None` if it is not (the caller copies directly). The caller has checked
    /// the range.
    pub fn write(
        &self,
        dev: &ClDevice,
        dst: &mut Buffer<u8>,
        offset: usize,
        data: &[u8],
    ) -> Option<Result<()>> {
        let mut guard = match self.slots(dev, data.len()) {
            Ok(g) => g?,
            Err(e) => return Some(Err(e)),
        };
        let slots: &mut Slots = &mut guard;
        let queue = &dev.context().ok()?.queue;
        let mut up = Up {
            queue,
            slots,
            dst,
            offset,
            data,
        };
        let done = pipeline::write(data.len(), pipeline::chunk_for(data.len()), &mut up);
        Some(settle(
            dev,
            slots,
            done,
            "copying to the device",
            data.len(),
        ))
    }

    /// Reads `out.len()` bytes of `src` from byte `offset` on through the slots, as `write`.
    pub fn read(
        &self,
        dev: &ClDevice,
        src: &Buffer<u8>,
        offset: usize,
        out: &mut [u8],
    ) -> Option<Result<()>> {
        let mut guard = match self.slots(dev, out.len()) {
            Ok(g) => g?,
            Err(e) => return Some(Err(e)),
        };
        let slots: &mut Slots = &mut guard;
        let queue = &dev.context().ok()?.queue;
        let len = out.len();
        let mut down = Down {
            queue,
            slots,
            src,
            offset,
            out,
        };
        let done = pipeline::read(len, pipeline::chunk_for(len), &mut down);
        Some(settle(dev, slots, done, "copying to the host", len))
    }

    /// The slots, locked, if a transfer of `len` bytes on `dev` is to be staged now; an
    /// error if `NUDA_CL_PINNED` has a bad value.
    fn slots(
        &self,
        dev: &ClDevice,
        len: usize,
    ) -> Result<Option<std::sync::MutexGuard<'_, Slots>>> {
        let scope = crate::config::config().pinned.clone()?;
        if len <= CHUNK || !scope.takes(super::gpu_like(dev.info.kind)) {
            return Ok(None);
        }
        let slots = self.slots.get_or_init(|| new_slots(dev).map(Mutex::new));
        // Busy: another thread's transfer goes on, and this one goes directly. Poisoned: a
        // transfer panicked mid-way and its copies may still run, so the slots are never used
        // again (staging then stays off for the device).
        let guard = slots.as_ref().and_then(|m| m.try_lock().ok());
        Ok(guard.filter(|g| !g.broken))
    }
}

/// Two pinned, mapped slots; `None` if the driver cannot make them (transfers then go
/// directly, as before).
fn new_slots(dev: &ClDevice) -> Option<Slots> {
    let ctx = dev.context().ok()?;
    let make = || {
        // SAFETY: no host pointer is passed; the driver allocates CHUNK bytes it may pin.
        unsafe {
            Buffer::<u8>::create(
                &ctx.context,
                CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                CHUNK,
                std::ptr::null_mut(),
            )
        }
        .ok()
    };
    let bufs = [make()?, make()?];
    let mut ptrs = [std::ptr::null_mut(); 2];
    for (b, p) in bufs.iter().zip(ptrs.iter_mut()) {
        let mut mapped = std::ptr::null_mut();
        // SAFETY: a blocking map of the whole buffer, which lives as long as the pointer is
        // used (both are in `Slots`).
        unsafe {
            ctx.queue.enqueue_map_buffer(
                b,
                CL_BLOCKING,
                CL_MAP_READ | CL_MAP_WRITE,
                0,
                CHUNK,
                &mut mapped,
                &[],
            )
        }
        .ok()?;
        *p = mapped.cast();
    }
    Some(Slots {
        _bufs: bufs,
        ptrs,
        events: [None, None],
        broken: false,
    })
}

/// The transfer's result, counted as staged. After a failure the device's copies may still
/// run into or out of the slots: the queue is drained first, and if even that fails the
/// slots are retired.
fn settle(
    dev: &ClDevice,
    slots: &mut Slots,
    done: std::result::Result<(), i32>,
    what: &str,
    bytes: usize,
) -> Result<()> {
    slots.events = [None, None];
    let Err(code) = done else {
        record(Some(dev.index), Stat::Staged(bytes as u64));
        return Ok(());
    };
    let drained = dev.context().map(|c| c.queue.finish().is_ok());
    slots.broken = drained != Ok(true);
    Err(dev.error(code, what))
}

/// The first `n` bytes of slot `s`.
///
/// # Safety
/// No device copy through the slot may be running, the caller holds the slots' lock, and
/// `n <= CHUNK`.
#[allow(clippy::mut_from_ref)]
unsafe fn slot(slots: &Slots, s: usize, n: usize) -> &mut [u8] {
    // SAFETY: each slot maps CHUNK bytes that only the lock's holder uses (the caller's
    // contract).
    unsafe { std::slice::from_raw_parts_mut(slots.ptrs[s], n) }
}

/// Waits for the last copy through slot `s`.
fn wait(slots: &mut Slots, s: usize) -> std::result::Result<(), i32> {
    match slots.events[s].take() {
        Some(e) => e.wait().map_err(|e| e.0),
        None => Ok(()),
    }
}

/// A write's steps: the host fills a slot, the device copies it out.
struct Up<'a> {
    queue: &'a opencl3::command_queue::CommandQueue,
    slots: &'a mut Slots,
    dst: &'a mut Buffer<u8>,
    offset: usize,
    data: &'a [u8],
}

impl Copies for Up<'_> {
    type Error = i32;

    fn start(&mut self, s: usize, at: usize, n: usize) -> std::result::Result<(), i32> {
        // SAFETY: the pipeline starts a copy out of a slot only after the host has filled it,
        // and touches the slot again only after `wait`; the caller checked that `dst` holds
        // `offset + data.len()` bytes, and n <= CHUNK.
        let e = unsafe {
            let from = slot(self.slots, s, n);
            let at = self.offset + at;
            self.queue
                .enqueue_write_buffer(self.dst, CL_NON_BLOCKING, at, from, &[])
        };
        self.slots.events[s] = Some(e.map_err(|e| e.0)?);
        Ok(())
    }

    fn wait(&mut self, s: usize) -> std::result::Result<(), i32> {
        wait(self.slots, s)
    }

    fn host(&mut self, s: usize, at: usize, n: usize) {
        // SAFETY: the pipeline calls `host` on a slot whose copy has finished; n <= CHUNK.
        copy(unsafe { slot(self.slots, s, n) }, &self.data[at..at + n]);
    }
}

/// A read's steps: the device fills a slot, the host copies it out.
struct Down<'a> {
    queue: &'a opencl3::command_queue::CommandQueue,
    slots: &'a mut Slots,
    src: &'a Buffer<u8>,
    offset: usize,
    out: &'a mut [u8],
}

impl Copies for Down<'_> {
    type Error = i32;

    fn start(&mut self, s: usize, at: usize, n: usize) -> std::result::Result<(), i32> {
        // SAFETY: the pipeline starts a copy into a slot the host is not reading (it reads a
        // slot only after `wait`); the caller checked that `src` holds the bytes; n <= CHUNK.
        let e = unsafe {
            let into = slot(self.slots, s, n);
            let at = self.offset + at;
            self.queue
                .enqueue_read_buffer(self.src, CL_NON_BLOCKING, at, into, &[])
        };
        self.slots.events[s] = Some(e.map_err(|e| e.0)?);
        Ok(())
    }

    fn wait(&mut self, s: usize) -> std::result::Result<(), i32> {
        wait(self.slots, s)
    }

    fn host(&mut self, s: usize, at: usize, n: usize) {
        // SAFETY: the pipeline calls `host` on a slot whose copy has finished; n <= CHUNK.
        copy(&mut self.out[at..at + n], unsafe { slot(self.slots, s, n) });
    }
}
