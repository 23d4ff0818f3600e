//! Transfer and launch counters: `nuda::stats()` for the process, `nuda::thread_stats()` for
//! the calling thread. Layer 0 of the runtime (see `backend/README.md`).
//!
//! Tests and benches use them to prove that lazy synchronisation moved no byte it did not have
//! to. Transfers and launches run on the calling thread (launches are synchronous), so the
//! per-thread view is exact even while other tests run in parallel threads of the same process.

use std::cell::Cell;
use std::sync::{Mutex, PoisonError};

/// A count of transfers and the bytes they moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transfers {
    /// Number of transfers.
    pub count: u64,
    /// Bytes moved.
    pub bytes: u64,
}

/// A snapshot of counters. Subtract two snapshots to see what happened in between.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Host to device uploads.
    pub to_device: Transfers,
    /// Device to host downloads.
    pub to_host: Transfers,
    /// Device memory filled with zeros in place (no bytes cross the bus).
    pub fills: Transfers,
    /// Device allocations.
    pub allocations: Transfers,
    /// Of the uploads and downloads, those the OpenCL backend staged through its pinned slots
    /// (`NUDA_CL_PINNED`; CUDA stages every linear transfer and does not count them here).
    pub staged: Transfers,
    /// Kernel launches (OpenCL and native).
    pub launches: u64,
    /// Summed run time of those kernels in nanoseconds: profiling events on OpenCL (the wall
    /// time of the launch where the driver gives none), the parallel loop on the native engine.
    /// Benches read it as a delta, so a variant that launches several kernels is timed whole.
    pub kernel_nanos: u64,
    /// Programs compiled from source.
    pub programs_compiled: u64,
    /// Programs loaded from the on-disk binary cache.
    pub programs_from_disk: u64,
    /// Launches that found their program in the in-memory cache.
    pub programs_from_memory: u64,
}

/// Process-wide counters, plus one set per device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Totals over all devices and threads.
    pub total: Counts,
    /// Per device, by nuda device index.
    pub per_device: Vec<Counts>,
}

/// One kind of event the runtime counts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Event {
    ToDevice(u64),
    ToHost(u64),
    Fill(u64),
    Alloc(u64),
    /// A transfer, also counted as `ToDevice` or `ToHost`, that went through pinned slots.
    Staged(u64),
    /// A finished launch and its kernel time in nanoseconds.
    Launch(u64),
    Compiled,
    FromDisk,
    FromMemory,
}

impl Counts {
    fn add(&mut self, event: Event) {
        let t = |tr: &mut Transfers, b: u64| *tr += Transfers { count: 1, bytes: b };
        match event {
            Event::ToDevice(b) => t(&mut self.to_device, b),
            Event::ToHost(b) => t(&mut self.to_host, b),
            Event::Fill(b) => t(&mut self.fills, b),
            Event::Alloc(b) => t(&mut self.allocations, b),
            Event::Staged(b) => t(&mut self.staged, b),
            Event::Launch(nanos) => {
                self.launches += 1;
                self.kernel_nanos += nanos;
            }
            Event::Compiled => self.programs_compiled += 1,
            Event::FromDisk => self.programs_from_disk += 1,
            Event::FromMemory => self.programs_from_memory += 1,
        }
    }
}

// Each event is a transfer, a build or a launch, all far dearer than an uncontended lock.
static GLOBAL: Mutex<Stats> = Mutex::new(Stats {
    total: ZERO,
    per_device: Vec::new(),
});
const ZERO: Counts = Counts {
    to_device: Transfers { count: 0, bytes: 0 },
    to_host: Transfers { count: 0, bytes: 0 },
    fills: Transfers { count: 0, bytes: 0 },
    allocations: Transfers { count: 0, bytes: 0 },
    staged: Transfers { count: 0, bytes: 0 },
    launches: 0,
    kernel_nanos: 0,
    programs_compiled: 0,
    programs_from_disk: 0,
    programs_from_memory: 0,
};

thread_local! {
    static THREAD: Cell<Counts> = const { Cell::new(ZERO) };
}

/// Counts one event on `device` (a nuda device index), for the process and this thread.
pub(crate) fn record(device: Option<usize>, event: Event) {
    let mut global = GLOBAL.lock().unwrap_or_else(PoisonError::into_inner);
    global.total.add(event);
    if let Some(d) = device {
        if global.per_device.len() <= d {
            global.per_device.resize(d + 1, ZERO);
        }
        global.per_device[d].add(event);
    }
    THREAD.with(|t| {
        let mut c = t.get();
        c.add(event);
        t.set(c);
    });
}

/// A duration in whole nanoseconds, saturating (585 years fit).
pub(crate) fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Counters for the whole process.
pub fn stats() -> Stats {
    GLOBAL
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// Counters for the calling thread only: exact even while other threads use nuda.
pub fn thread_stats() -> Counts {
    THREAD.with(Cell::get)
}

impl std::ops::AddAssign for Transfers {
    fn add_assign(&mut self, o: Self) {
        self.count += o.count;
        self.bytes += o.bytes;
    }
}

impl std::ops::Sub for Transfers {
    type Output = Transfers;
    fn sub(self, o: Self) -> Transfers {
        Transfers {
            count: self.count - o.count,
            bytes: self.bytes - o.bytes,
        }
    }
}

impl std::ops::Sub for Counts {
    type Output = Counts;
    fn sub(self, o: Self) -> Counts {
        Counts {
            to_device: self.to_device - o.to_device,
            to_host: self.to_host - o.to_host,
            fills: self.fills - o.fills,
            allocations: self.allocations - o.allocations,
            staged: self.staged - o.staged,
            launches: self.launches - o.launches,
            kernel_nanos: self.kernel_nanos - o.kernel_nanos,
            programs_compiled: self.programs_compiled - o.programs_compiled,
            programs_from_disk: self.programs_from_disk - o.programs_from_disk,
            programs_from_memory: self.programs_from_memory - o.programs_from_memory,
        }
    }
}

impl Counts {
    /// Summed kernel time, as a `Duration`.
    pub fn kernel_time(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.kernel_nanos)
    }

    /// Whether no byte moved between host and device.
    pub fn no_transfers(&self) -> bool {
        self.to_device.count == 0 && self.to_host.count == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_see_only_this_thread() {
        let before = thread_stats();
        std::thread::spawn(|| record(Some(3), Event::ToHost(100)))
            .join()
            .unwrap();
        record(Some(3), Event::ToDevice(64));
        let d = thread_stats() - before;
        assert_eq!(
            d.to_device,
            Transfers {
                count: 1,
                bytes: 64
            }
        );
        assert_eq!(d.to_host.count, 0);
        assert!(stats().per_device[3].to_host.bytes >= 100);
    }
}
