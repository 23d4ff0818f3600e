//! The device-side fault record: a small buffer every generated kernel takes as its first
//! parameter (`global uint* nu_err`). The first faulting work-item claims it with an atomic
//! compare-and-swap and writes what happened; the host reads it back with the launch's
//! completion (one wait for both), and only when the program has a check that could fail.
//!
//! Words: `[0]` site number + 1 (0: no fault), `[1]` detail, `[2..8]` the index and
//! `[8..14]` the dims, each as three (low, high) halves of a 64-bit value.

use super::ClDevice;
use crate::backend::c::record::{decode, RECORD_WORDS};
use crate::error::Result;
use crate::fault::{Record, Site};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::{CL_BLOCKING, CL_NON_BLOCKING};
use std::sync::{Mutex, PoisonError};

/// A device record and the host words its read lands in, reused together: the words are a
/// heap allocation so that a read the driver still holds never points into a moved value.
pub(crate) struct Slot {
    buf: Buffer<u32>,
    words: Box<[u32; RECORD_WORDS]>,
}

/// A device's spare records: a launch takes one and gives it back zeroed, so host threads
/// launching at once on one device never share a record.
#[derive(Default)]
pub(crate) struct RecordPool {
    free: Mutex<Vec<Slot>>,
}

impl RecordPool {
    /// A record for one launch, given back when the lease drops.
    pub fn lease<'a>(&'a self, dev: &ClDevice) -> Result<Lease<'a>> {
        let spare = self.lock().pop();
        let slot = match spare {
            Some(s) => s,
            None => new_slot(dev)?,
        };
        Ok(Lease {
            pool: self,
            slot: Some(slot),
            pending: false,
            clean: true,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Slot>> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A record one launch holds; it goes back to its pool, zeroed, when dropped.
pub(crate) struct Lease<'a> {
    pool: &'a RecordPool,
    slot: Option<Slot>,
    /// A read into the slot's words was queued and has not been seen to complete.
    pending: bool,
    /// The device record is known to be zero: only then does the slot go back to the pool,
    /// since a record left set would report its fault again at the next launch.
    clean: bool,
}

impl Lease<'_> {
    /// The buffer's handle, for `clSetKernelArg`.
    pub fn raw(&self) -> opencl3::memory::cl_mem {
        self.slot.as_ref().map_or(std::ptr::null_mut(), |s| {
            opencl3::memory::ClMem::get(&s.buf)
        })
    }

    /// Queues the record's read behind the kernel and waits for it: the queue is in order, so
    /// this one wait covers the kernel too (a launch used to wait for the kernel and then make
    /// a second, blocking round trip for the read).
    pub fn fetch(&mut self, dev: &ClDevice) -> Result<()> {
        let Some(slot) = self.slot.as_mut() else {
            return Ok(());
        };
        let queue = &dev.context()?.queue;
        // The kernel before the read may have claimed the record.
        self.clean = false;
        // SAFETY: `words` has room for the buffer's RECORD_WORDS words, and it is a heap
        // allocation this lease keeps until the read is seen complete: `pending` makes `Drop`
        // drain the queue first, or leak the slot if even that fails.
        let read = unsafe {
            queue.enqueue_read_buffer(&slot.buf, CL_NON_BLOCKING, 0, &mut slot.words[..], &[])
        }
        .map_err(|e| dev.error(e.0, "reading the fault record"))?;
        self.pending = true;
        match read.wait() {
            Ok(()) => {
                self.pending = false;
                Ok(())
            }
            Err(e) => {
                self.settle(dev);
                Err(dev.error(e.0, "reading the fault record"))
            }
        }
    }

    /// The fault the fetched words hold, if any; a recorded fault is then cleared on the
    /// device (if that fails, the fault is still reported and the slot is not reused).
    pub fn fault(&mut self, dev: &ClDevice, sites: &[&'static Site]) -> Option<Record> {
        let s = self.slot.as_mut().filter(|_| !self.pending)?;
        if s.words[0] == 0 {
            self.clean = true;
            return None;
        }
        let record = decode(&s.words, sites);
        self.clean = write_zero(dev, &mut s.buf).is_ok();
        record
    }

    /// Waits until every command queued on the device, the read included, has ended.
    fn settle(&mut self, dev: &ClDevice) {
        let drained = dev.context().map(|c| c.queue.finish().is_ok());
        if drained == Ok(true) {
            self.pending = false;
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        match self.slot.take() {
            Some(s) if !self.pending && self.clean => self.pool.lock().push(s),
            // Possibly set (the kernel failed, or clearing did): released, never reused.
            Some(s) if !self.pending => drop(s),
            // The driver may still write into the words: they must outlive it.
            Some(s) => std::mem::forget(s),
            None => {}
        }
    }
}

fn new_slot(dev: &ClDevice) -> Result<Slot> {
    let ctx = dev.context()?;
    // SAFETY: no host pointer is passed; the driver allocates RECORD_WORDS words.
    let mut buf = unsafe {
        Buffer::<u32>::create(
            &ctx.context,
            CL_MEM_READ_WRITE,
            RECORD_WORDS,
            std::ptr::null_mut(),
        )
    }
    .map_err(|e| dev.error(e.0, "allocating a fault record"))?;
    write_zero(dev, &mut buf)?;
    Ok(Slot {
        buf,
        words: Box::new([0; RECORD_WORDS]),
    })
}

fn write_zero(dev: &ClDevice, b: &mut Buffer<u32>) -> Result<()> {
    let zero = [0u32; RECORD_WORDS];
    let queue = &dev.context()?.queue;
    // SAFETY: blocking, so `zero` outlives the copy; the buffer holds RECORD_WORDS words.
    unsafe { queue.enqueue_write_buffer(b, CL_BLOCKING, 0, &zero, &[]) }
        .map_err(|e| dev.error(e.0, "clearing a fault record"))?;
    Ok(())
}
