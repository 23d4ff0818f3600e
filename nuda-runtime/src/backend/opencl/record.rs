//! The device-side fault record: a small buffer every generated kernel takes as its first
//! parameter (`global uint* nu_err`). The first faulting work-item claims it with an atomic
//! compare-and-swap and writes what happened; the host reads it back with the launch's
//! completion, and only when the program has a check that could fail.
//!
//! Words: `[0]` site number + 1 (0: no fault), `[1]` detail, `[2..8]` the index and
//! `[8..14]` the dims, each as three (low, high) halves of a 64-bit value.

use super::ClDevice;
use crate::backend::c::record::{decode, RECORD_WORDS};
use crate::error::Result;
use crate::fault::{Record, Site};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;
use std::sync::{Mutex, PoisonError};

/// A device's spare records: a launch takes one and gives it back zeroed, so host threads
/// launching at once on one device never share a record.
#[derive(Default)]
pub(crate) struct RecordPool {
    free: Mutex<Vec<Buffer<u32>>>,
}

impl RecordPool {
    /// A zeroed record, from the pool or new.
    pub fn take(&self, dev: &ClDevice) -> Result<Buffer<u32>> {
        let spare = self.lock().pop();
        match spare {
            Some(b) => Ok(b),
            None => new_record(dev),
        }
    }

    /// Returns a zeroed record to the pool.
    pub fn give(&self, b: Buffer<u32>) {
        self.lock().push(b);
    }

    /// A record for one launch, given back when the lease drops.
    pub fn lease<'a>(&'a self, dev: &ClDevice) -> Result<Lease<'a>> {
        Ok(Lease {
            pool: self,
            buf: Some(self.take(dev)?),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Buffer<u32>>> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A record one launch holds; it goes back to its pool, zeroed, when dropped.
pub(crate) struct Lease<'a> {
    pool: &'a RecordPool,
    buf: Option<Buffer<u32>>,
}

impl Lease<'_> {
    /// The buffer's handle, for `clSetKernelArg`.
    pub fn raw(&self) -> opencl3::memory::cl_mem {
        self.buf
            .as_ref()
            .map_or(std::ptr::null_mut(), opencl3::memory::ClMem::get)
    }

    /// The fault the kernel recorded, if any (see [`read`]).
    pub fn read(&mut self, dev: &ClDevice, sites: &[&'static Site]) -> Result<Option<Record>> {
        match self.buf.as_mut() {
            Some(b) => read(dev, b, sites),
            None => Ok(None),
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(b) = self.buf.take() {
            self.pool.give(b);
        }
    }
}

fn new_record(dev: &ClDevice) -> Result<Buffer<u32>> {
    let ctx = dev.context()?;
    // SAFETY: no host pointer is passed; the driver allocates RECORD_WORDS words.
    let mut b = unsafe {
        Buffer::<u32>::create(
            &ctx.context,
            CL_MEM_READ_WRITE,
            RECORD_WORDS,
            std::ptr::null_mut(),
        )
    }
    .map_err(|e| dev.error(e.0, "allocating a fault record"))?;
    write_zero(dev, &mut b)?;
    Ok(b)
}

fn write_zero(dev: &ClDevice, b: &mut Buffer<u32>) -> Result<()> {
    let zero = [0u32; RECORD_WORDS];
    let queue = &dev.context()?.queue;
    // SAFETY: blocking, so `zero` outlives the copy; the buffer holds RECORD_WORDS words.
    unsafe { queue.enqueue_write_buffer(b, CL_BLOCKING, 0, &zero, &[]) }
        .map_err(|e| dev.error(e.0, "clearing a fault record"))?;
    Ok(())
}

/// Reads the record after the kernel (the in-order queue runs the read after it) and, if a
/// fault was recorded, clears it and returns it with its site from `sites`.
pub(crate) fn read(
    dev: &ClDevice,
    b: &mut Buffer<u32>,
    sites: &[&'static Site],
) -> Result<Option<Record>> {
    let mut words = [0u32; RECORD_WORDS];
    let queue = &dev.context()?.queue;
    // SAFETY: blocking, and `words` has room for the buffer's RECORD_WORDS words.
    unsafe { queue.enqueue_read_buffer(b, CL_BLOCKING, 0, &mut words, &[]) }
        .map_err(|e| dev.error(e.0, "reading the fault record"))?;
    if words[0] == 0 {
        return Ok(None);
    }
    write_zero(dev, b)?;
    Ok(decode(&words, sites))
}
