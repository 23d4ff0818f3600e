//! Lazily synchronised storage shared by `NuArray1/2/3` and `NuImage2`. Layer 3 of the
//! runtime (see `backend/README.md`): it keeps one buffer per device, allocated and filled
//! through that device's backend, without knowing which backend it is.
//!
//! The state machine is documented in `README.md` beside this file. In short: the data is
//! valid in any subset of {the host, each device}, or is still the all-zero value it was made
//! with and lives nowhere; memory is allocated where it is first needed; data moves only when a
//! reader finds its copy stale.
//!
//! Soundness: host references handed out by `&self` must stay valid, so the host copy sits in a
//! `OnceLock` that only `&self` readers initialise (always under the state lock, so readers and
//! launches never race), and that only `&mut self` methods clear. A device write therefore
//! needs `&mut` access, which proves that no host reference is alive when the host copy dies.

mod alloc;
pub(crate) use alloc::zeros;
mod host;
mod shared;
#[cfg(test)]
mod test;

use host::HostBuf;
use shared::SharedWrites;

use crate::backend::{ArgMemory, Backend, Buffer, Layout};
use crate::element::{bytes, download, Pod};
use crate::error::Result;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

/// The accessors of a container over a `storage: Storage<T>` field, arrays and images alike,
/// written once (inside the container's `impl` block).
macro_rules! storage_accessors {
    () => {
        /// Where the data is currently valid: the host, and which device indices.
        pub fn residency(&self) -> (bool, Vec<usize>) {
            self.storage.validity()
        }

        pub(crate) fn storage(&self) -> &$crate::memory::Storage<T> {
            &self.storage
        }

        pub(crate) fn storage_mut(&mut self) -> &mut $crate::memory::Storage<T> {
            &mut self.storage
        }
    };
}
pub(crate) use storage_accessors;

/// Elements plus where they are valid.
pub(crate) struct Storage<T: Pod> {
    len: usize,
    layout: Layout,
    /// The host copy, present exactly when it is valid.
    host: OnceLock<HostBuf<T>>,
    /// The native engine's copy during shared writes (see `shared.rs`): atomic cells, since
    /// native kernels in several host threads write it at once through `&self`.
    native: OnceLock<Box<[T::Cell]>>,
    sync: Mutex<SyncState<T>>,
}

struct SyncState<T> {
    /// The data is still the all-zero value the storage was created with.
    zero: bool,
    /// A stale host allocation kept so the next download needs no new allocation.
    spare: HostBuf<T>,
    /// Per nuda device index: device memory and whether it holds the current data.
    slots: Vec<Slot<T>>,
    /// Set between `begin_shared` and the next access that is not a shared launch.
    shared: Option<SharedWrites<T>>,
}

struct Slot<T> {
    mem: Option<Box<dyn Buffer>>,
    /// Elements the buffer holds: more than the storage's after a `truncate`, when
    /// transfers move the first elements only (by offset).
    cap: usize,
    valid: bool,
    elements: std::marker::PhantomData<T>,
}

/// Downloads the first `out.len()` bytes of device `i`'s buffer: the whole buffer, or (after
/// a `truncate`, `whole` false) its start by offset, since backends check a whole transfer's
/// size against the buffer's.
fn read_start(i: usize, mem: &dyn Buffer, whole: bool, out: &mut [u8]) -> Result<()> {
    match whole {
        true => backend(i).download(mem, out),
        false => backend(i).download_at(mem, 0, out),
    }
}

/// Uploads `data` to the start of device `i`'s buffer, as `read_start` reads.
fn write_start(i: usize, mem: &mut dyn Buffer, whole: bool, data: &[u8]) -> Result<()> {
    match whole {
        true => backend(i).upload(mem, data),
        false => backend(i).upload_at(mem, 0, data),
    }
}

/// The backend of device `index`: storage only ever has slots for devices the registry listed.
fn backend(index: usize) -> &'static dyn Backend {
    match crate::device::backend(index) {
        Some(b) => b,
        None => unreachable!("nuda bug: device memory on device {index}, which is not listed"),
    }
}

impl<T: Pod> Storage<T> {
    /// All-zero data that lives nowhere yet: neither host nor device memory is allocated.
    pub fn zeroed(len: usize, layout: Layout) -> Self {
        Self::with(len, layout, OnceLock::new(), true)
    }

    /// Data that starts on the host.
    pub fn from_vec(data: Vec<T>, layout: Layout) -> Self {
        Self::with(
            data.len(),
            layout,
            OnceLock::from(HostBuf::new(data)),
            false,
        )
    }

    fn with(len: usize, layout: Layout, host: OnceLock<HostBuf<T>>, zero: bool) -> Self {
        let sync = Mutex::new(SyncState {
            zero,
            spare: HostBuf::default(),
            slots: Vec::new(),
            shared: None,
        });
        Storage {
            len,
            layout,
            host,
            native: OnceLock::new(),
            sync,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    fn lock(&self) -> MutexGuard<'_, SyncState<T>> {
        // State changes complete before any call that can panic, so a poisoned lock still
        // guards consistent state.
        self.sync.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The host copy for reading: downloads only if a device wrote since the host last had it.
    pub fn host(&self) -> Result<&[T]> {
        if let Some(v) = self.host.get() {
            return Ok(v);
        }
        let mut st = self.lock();
        st.settle(&self.host, self.native_cells())?;
        if let Some(v) = self.host.get() {
            return Ok(v);
        }
        let data = st.materialise(self.len, self.layout)?;
        // Every initialisation happens under the lock, so the cell is still empty here.
        Ok(self.host.get_or_init(|| data))
    }

    /// The host copy for writing: every device copy becomes stale.
    pub fn host_mut(&mut self) -> Result<&mut [T]> {
        let st = self.sync.get_mut().unwrap_or_else(PoisonError::into_inner);
        st.settle(&self.host, self.native.get().map(|c| &**c))?;
        self.native.take();
        if self.host.get().is_none() {
            let data = st.materialise(self.len, self.layout)?;
            self.host.get_or_init(|| data);
        }
        st.host_written();
        Ok(self.host.get_mut().map(|v| &mut v[..]).unwrap_or_default())
    }

    /// The host copy about to be overwritten whole: allocated but never downloaded.
    pub fn host_overwrite(&mut self) -> Result<&mut [T]> {
        let st = self.sync.get_mut().unwrap_or_else(PoisonError::into_inner);
        // Shared writes not yet merged are overwritten too: nothing to merge.
        if let Some(sh) = st.shared.take() {
            st.spare = sh.into_base();
        }
        self.native.take();
        if self.host.get().is_none() {
            let buf = alloc::buffer(std::mem::take(&mut st.spare), self.len)?;
            self.host.get_or_init(|| buf);
        }
        st.host_written();
        Ok(self.host.get_mut().map(|v| &mut v[..]).unwrap_or_default())
    }

    /// Makes the data valid on `dev`, allocating and uploading only if needed, and returns
    /// the device memory for a kernel argument. It stays valid while `self` lives.
    pub fn prepare(&self, device: usize) -> Result<u64> {
        let mut st = self.lock();
        st.settle(&self.host, self.native_cells())?;
        st.allocate(device, self.len, self.layout)?;
        if !st.slots[device].valid {
            self.refresh(&mut st, device)?;
        }
        Ok(st.raw(device))
    }

    /// Copies elements `start..start + out.len()` into `out`, moving only those: from the
    /// host copy when it is valid, else from a device that holds the data (its bytes at that
    /// offset only), else zeros. Nothing becomes valid or stale.
    pub fn read_range(&self, start: usize, out: &mut [T]) -> Result<()> {
        self.check_range(start, out.len())?;
        if let Some(v) = self.host.get() {
            out.copy_from_slice(&v[start..start + out.len()]);
            return Ok(());
        }
        let mut st = self.lock();
        st.settle(&self.host, self.native_cells())?;
        if let Some(v) = self.host.get() {
            out.copy_from_slice(&v[start..start + out.len()]);
            return Ok(());
        }
        if st.zero {
            out.copy_from_slice(&alloc::zeros::<T>(out.len())?);
            return Ok(());
        }
        let (index, mem) = st.valid_device();
        let offset = start * size_of::<T>();
        download(out, |b| backend(index).download_at(mem, offset, b))
    }

    /// Writes `data` at elements `start..`, into every copy that is valid (the host's and
    /// each device's, moving only those bytes), so none becomes stale.
    pub fn write_range(&mut self, start: usize, data: &[T]) -> Result<()> {
        self.check_range(start, data.len())?;
        let st = self.sync.get_mut().unwrap_or_else(PoisonError::into_inner);
        st.settle(&self.host, self.native.get().map(|c| &**c))?;
        self.native.take();
        if st.zero && self.host.get().is_none() {
            let zeros = st.materialise(self.len, self.layout)?;
            self.host.get_or_init(|| zeros);
            st.host_written();
        }
        if let Some(v) = self.host.get_mut() {
            v[start..start + data.len()].copy_from_slice(data);
        }
        let encoded = bytes(data);
        for (i, slot) in st.slots.iter_mut().enumerate().filter(|(_, s)| s.valid) {
            if let Some(m) = slot.mem.as_deref_mut() {
                backend(i).upload_at(m, start * size_of::<T>(), &encoded)?;
            }
        }
        Ok(())
    }

    fn check_range(&self, start: usize, n: usize) -> Result<()> {
        match start.checked_add(n) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(crate::error::Error::DimsMismatch {
                what: "a partial copy".into(),
                expected: format!("elements within 0..{}", self.len),
                found: format!("{n} elements from {start}"),
            }),
        }
    }

    /// The native engine's shared copy, if a shared scope made one.
    fn native_cells(&self) -> Option<&[T::Cell]> {
        self.native.get().map(|c| &**c)
    }

    fn refresh(&self, st: &mut SyncState<T>, i: usize) -> Result<()> {
        if st.zero {
            let mem = st.slots[i].mem.as_deref_mut();
            let size = self.len * size_of::<T>();
            mem.map_or(Ok(()), |m| backend(i).fill_zero(m, size))?;
        } else {
            // Another device may hold the only valid copy: it travels through the host, which
            // keeps the copy, so a later host read downloads nothing.
            if self.host.get().is_none() {
                let data = st.materialise(self.len, self.layout)?;
                self.host.get_or_init(|| data);
            }
            let whole = st.slots[i].cap == self.len;
            if let (Some(host), Some(m)) = (self.host.get(), st.slots[i].mem.as_deref_mut()) {
                host.moving(backend(i), self.layout);
                write_start(i, m, whole, &bytes(host))?;
            }
        }
        st.slots[i].valid = true;
        Ok(())
    }

    /// Keeps the first `len` elements (a `NuVec` that reserved room for its pushes): every
    /// copy stays where it is valid, device buffers keep their size and are read and written
    /// from their start from then on. No transfer.
    pub fn truncate(&mut self, len: usize) -> Result<()> {
        if len >= self.len {
            return Ok(());
        }
        let st = self.sync.get_mut().unwrap_or_else(PoisonError::into_inner);
        st.settle(&self.host, self.native.get().map(|c| &**c))?;
        // Settled: the native mirror of shared writes holds nothing the others lack.
        self.native.take();
        if let Some(v) = self.host.get_mut() {
            v.truncate(len);
        }
        self.len = len;
        Ok(())
    }

    /// Records that a kernel on device `device` wrote the data: only that copy stays valid.
    pub fn device_wrote(&mut self, device: usize) {
        let st = self.sync.get_mut().unwrap_or_else(PoisonError::into_inner);
        debug_assert!(st.shared.is_none(), "prepare settles shared writes first");
        self.native.take();
        for (j, slot) in st.slots.iter_mut().enumerate() {
            slot.valid = j == device;
        }
        st.zero = false;
        if let Some(old) = self.host.take() {
            st.spare = old;
        }
    }

    /// Where the data is valid: (host, devices), for tests and `Debug`.
    pub fn validity(&self) -> (bool, Vec<usize>) {
        let mut st = self.lock();
        // A failed merge leaves the shared writes pending; report what is valid now.
        let _ = st.settle(&self.host, self.native_cells());
        let devices = st
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.valid)
            .map(|(i, _)| i);
        (self.host.get().is_some(), devices.collect())
    }
}

impl<T: Pod> SyncState<T> {
    /// Allocates device memory on device `i` on its first use.
    fn allocate(&mut self, i: usize, len: usize, layout: Layout) -> Result<()> {
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || Slot {
                mem: None,
                cap: 0,
                valid: false,
                elements: std::marker::PhantomData,
            });
        }
        if self.slots[i].mem.is_none() {
            let Some(size) = len.checked_mul(size_of::<T>()) else {
                return Err(crate::error::Error::OutOfResources {
                    device: format!("device {i}"),
                    what: format!("allocating {len} elements of {} bytes", size_of::<T>()),
                    detail: "the size does not fit in usize".into(),
                });
            };
            self.slots[i].mem = Some(backend(i).alloc(size, layout)?);
            self.slots[i].cap = len;
        }
        Ok(())
    }

    /// The device memory handle of slot `i` (allocated).
    fn raw(&self, i: usize) -> u64 {
        self.slots[i].mem.as_ref().map_or(0, |m| m.handle())
    }

    /// Builds a valid host copy: zeros if never written, else a download from a valid device.
    fn materialise(&mut self, len: usize, layout: Layout) -> Result<HostBuf<T>> {
        let spare = std::mem::take(&mut self.spare);
        if self.zero {
            return match spare.capacity() >= len {
                true => alloc::buffer(spare, len),
                false => alloc::zeros(len).map(HostBuf::new),
            };
        }
        let mut buf = alloc::overwritten(spare, len)?;
        let Some((index, slot)) = self.slots.iter().enumerate().find(|(_, s)| s.valid) else {
            unreachable!("nuda bug: data valid neither on the host nor on any device");
        };
        let Some(mem) = slot.mem.as_deref() else {
            unreachable!("nuda bug: a valid slot without device memory");
        };
        buf.moving(backend(index), layout);
        download(&mut buf, |b| read_start(index, mem, slot.cap == len, b))?;
        Ok(buf)
    }

    /// A device holding the only valid copies (the host's is not valid, nor is the data
    /// all zero), and its memory.
    fn valid_device(&self) -> (usize, &dyn Buffer) {
        let Some((index, slot)) = self.slots.iter().enumerate().find(|(_, s)| s.valid) else {
            unreachable!("nuda bug: data valid neither on the host nor on any device");
        };
        match slot.mem.as_deref() {
            Some(mem) => (index, mem),
            None => unreachable!("nuda bug: a valid slot without device memory"),
        }
    }

    /// The host changed (or may have): every device copy is stale.
    fn host_written(&mut self) {
        self.zero = false;
        self.slots.iter_mut().for_each(|s| s.valid = false);
    }
}

impl<T: Pod> crate::backend::sealed::Storage for Storage<T> {}

impl<T: Pod> ArgMemory for Storage<T> {
    fn prepare(&self, device: usize) -> Result<u64> {
        Storage::prepare(self, device)
    }
    fn prepare_shared(&self, device: usize, write: bool) -> Result<u64> {
        Storage::prepare_shared(self, device, write)
    }
    fn wrote(&mut self, device: usize) {
        self.device_wrote(device);
    }
    fn bytes(&self) -> u64 {
        (self.len() * size_of::<T>()) as u64
    }
}
