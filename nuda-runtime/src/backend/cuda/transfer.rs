//! Transfers between host memory and a linear buffer (layer 1, the CUDA backend): one copy
//! where the host memory is registered (`pins.rs`), else the CUDA side of
//! `../c/pipeline.rs`. The device's pinned staging buffer is two slots of `CHUNK` bytes; the
//! device's copies run on a stream of their own, an event per slot says when a slot's copy
//! has finished, and the host's side of each chunk is copied by several threads, as one
//! thread's `memcpy` is slower than the DMA engine.

use super::driver::error;
use super::CuDevice;
use crate::backend::c::pipeline::{self, copy, Copies};
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

pub(crate) use crate::backend::c::pipeline::CHUNK;

/// The pinned slots, the stream and the slots' events, created with the staging buffer and
/// kept for the device's life.
pub(crate) struct Lane {
    pub slots: [*mut u8; 2],
    pub stream: sys::CUstream,
    pub events: [sys::CUevent; 2],
}

impl Lane {
    /// The stream and events for the two `CHUNK`-byte slots at `slots`.
    pub(crate) fn new(slots: [*mut u8; 2]) -> Result<Lane, DriverError> {
        // A blocking stream: it also waits for work on the default stream, where kernels run.
        let stream = result::stream::create(result::stream::StreamKind::Default)?;
        match events() {
            Ok(events) => Ok(Lane {
                slots,
                stream,
                events,
            }),
            Err(e) => {
                // SAFETY: created above and not used since.
                let _ = unsafe { result::stream::destroy(stream) };
                Err(e)
            }
        }
    }

    /// `data` into device memory at `dst`: in one copy where `data` is registered
    /// (`pins.rs`), else pipelined through the slots.
    pub(crate) fn write(&self, dst: sys::CUdeviceptr, data: &[u8]) -> Result<(), DriverError> {
        let _settle = Settle(self.stream);
        if super::pins::covers(data.as_ptr(), data.len()) {
            // SAFETY: `dst` holds data.len() bytes (the caller checked); `data` is borrowed
            // until the stream has finished with it (the synchronisation below, or
            // `_settle`'s after an error).
            unsafe { result::memcpy_htod_async(dst, data, self.stream)? };
            // SAFETY: the lane's stream, live for the device's life.
            return unsafe { result::stream::synchronize(self.stream) };
        }
        let mut up = Up {
            lane: self,
            dst,
            data,
        };
        pipeline::write(data.len(), pipeline::chunk_for(data.len()), &mut up)
    }

    /// Device memory at `src` into `out`: in one copy where `out` is registered
    /// (`pins.rs`), else pipelined through the slots.
    pub(crate) fn read(&self, src: sys::CUdeviceptr, out: &mut [u8]) -> Result<(), DriverError> {
        let _settle = Settle(self.stream);
        let len = out.len();
        if super::pins::covers(out.as_ptr(), len) {
            // SAFETY: `src` holds `len` bytes (the caller checked); `out` is borrowed until
            // the stream has finished with it (the synchronisation below, or `_settle`'s).
            unsafe { result::memcpy_dtoh_async(out, src, self.stream)? };
            // SAFETY: the lane's stream, live for the device's life.
            return unsafe { result::stream::synchronize(self.stream) };
        }
        let mut down = Down {
            lane: self,
            src,
            out,
        };
        pipeline::read(len, pipeline::chunk_for(len), &mut down)
    }
}

/// The two slots' events.
fn events() -> Result<[sys::CUevent; 2], DriverError> {
    let flags = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING;
    let a = result::event::create(flags)?;
    match result::event::create(flags) {
        Ok(b) => Ok([a, b]),
        Err(e) => {
            // SAFETY: created above and not used since.
            let _ = unsafe { result::event::destroy(a) };
            Err(e)
        }
    }
}

/// Waits for a lane's stream when dropped: after a failed step or a panic, copies may still
/// run into or out of the slots, which the next transfer reuses once the staging lock is
/// released (after a whole transfer the stream is idle, and the wait returns at once).
struct Settle(sys::CUstream);

impl Drop for Settle {
    fn drop(&mut self) {
        // SAFETY: the stream is a lane's, live for the device's life.
        let _ = unsafe { result::stream::synchronize(self.0) };
    }
}

/// The first `n` bytes of the slot at `p`.
///
/// # Safety
/// `p` is one of a lane's slots, no copy through it may be running, nothing else may use it
/// for `'a`, and `n <= CHUNK`.
unsafe fn slot<'a>(p: *mut u8, n: usize) -> &'a mut [u8] {
    // SAFETY: each slot holds CHUNK bytes of pinned memory that only the caller, holding the
    // staging lock, uses; no device copy runs through it (the caller's contract).
    unsafe { std::slice::from_raw_parts_mut(p, n) }
}

/// A write's steps: the host fills a slot, the device copies it out.
struct Up<'a> {
    lane: &'a Lane,
    dst: sys::CUdeviceptr,
    data: &'a [u8],
}

impl Copies for Up<'_> {
    type Error = DriverError;

    fn start(&mut self, s: usize, at: usize, n: usize) -> Result<(), DriverError> {
        // SAFETY: the pipeline starts a copy of a chunk (n <= CHUNK) only after the host has
        // filled the slot, and touches the slot again only after `wait`; `dst` holds the
        // transfer's bytes (the caller checked), so at + n of them.
        unsafe {
            let slot = std::slice::from_raw_parts(self.lane.slots[s].cast_const(), n);
            result::memcpy_htod_async(self.dst + at as u64, slot, self.lane.stream)?;
            result::event::record(self.lane.events[s], self.lane.stream)
        }
    }

    fn wait(&mut self, s: usize) -> Result<(), DriverError> {
        // SAFETY: the event is the lane's, recorded after the slot's last copy.
        unsafe { result::event::synchronize(self.lane.events[s]) }
    }

    fn host(&mut self, s: usize, at: usize, n: usize) {
        // SAFETY: the pipeline calls `host` on a slot whose copy has finished; n <= CHUNK.
        copy(
            unsafe { slot(self.lane.slots[s], n) },
            &self.data[at..at + n],
        );
    }
}

/// A read's steps: the device fills a slot, the host copies it out.
struct Down<'a> {
    lane: &'a Lane,
    src: sys::CUdeviceptr,
    out: &'a mut [u8],
}

impl Copies for Down<'_> {
    type Error = DriverError;

    fn start(&mut self, s: usize, at: usize, n: usize) -> Result<(), DriverError> {
        // SAFETY: the pipeline starts a copy into a slot the host is not reading (it reads a
        // slot only after `wait`, and starts the next copy into it after reading); n <= CHUNK;
        // `src` holds the transfer's bytes.
        unsafe {
            let into = slot(self.lane.slots[s], n);
            result::memcpy_dtoh_async(into, self.src + at as u64, self.lane.stream)?;
            result::event::record(self.lane.events[s], self.lane.stream)
        }
    }

    fn wait(&mut self, s: usize) -> Result<(), DriverError> {
        // SAFETY: the event is the lane's, recorded after the slot's last copy.
        unsafe { result::event::synchronize(self.lane.events[s]) }
    }

    fn host(&mut self, s: usize, at: usize, n: usize) {
        // SAFETY: the pipeline calls `host` on a slot whose copy has finished; n <= CHUNK.
        copy(&mut self.out[at..at + n], unsafe {
            slot(self.lane.slots[s], n)
        });
    }
}

/// A pinned host buffer and a device buffer of the same size, freed when dropped.
struct Raw(*mut u8, sys::CUdeviceptr, usize);

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: both were allocated by `raw_rates` for this value alone (null or 0: not
        // allocated) and are freed once, here.
        unsafe {
            if self.1 != 0 {
                let _ = result::free_sync(self.1);
            }
            if !self.0.is_null() {
                let _ = result::free_host(self.0.cast());
            }
        }
    }
}

impl CuDevice {
    /// The best of `reps` synchronous `cuMemcpy`s of `bytes` from pinned memory to the
    /// device and back, in GB/s: the raw copy an array's transfers are measured against.
    pub(crate) fn raw_rates(&self, bytes: usize, reps: usize) -> crate::error::Result<(f64, f64)> {
        self.enter()?;
        let e = |e| error(e, "timing a raw pinned copy", &self.label);
        let mut raw = Raw(std::ptr::null_mut(), 0, bytes.max(1));
        // SAFETY: fresh allocations of `raw.2` bytes each, freed by `raw`'s drop.
        unsafe {
            raw.0 = result::malloc_host(raw.2, 0).map_err(e)? as *mut u8;
            raw.1 = result::malloc_sync(raw.2).map_err(e)?;
        }
        // SAFETY: `raw.0` holds `raw.2` bytes of pinned memory, used by nothing else.
        let host = unsafe { std::slice::from_raw_parts_mut(raw.0, raw.2) };
        host.fill(1);
        let (mut up, mut down) = (f64::MAX, f64::MAX);
        for _ in 0..reps.max(1) {
            let t = std::time::Instant::now();
            // SAFETY: the device buffer holds as many bytes as `host`.
            unsafe { result::memcpy_htod_sync(raw.1, &host[..]) }.map_err(e)?;
            up = up.min(t.elapsed().as_secs_f64());
            let t = std::time::Instant::now();
            // SAFETY: as above.
            unsafe { result::memcpy_dtoh_sync(&mut host[..], raw.1) }.map_err(e)?;
            down = down.min(t.elapsed().as_secs_f64());
        }
        Ok((raw.2 as f64 / up / 1e9, raw.2 as f64 / down / 1e9))
    }
}
