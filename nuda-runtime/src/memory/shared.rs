//! Shared writes: kernels on several devices, in several host threads, write one array at
//! once, and their writes merge on the host. This is the per-device write-back rule of
//! `README.md` ("Shared writes").
//!
//! A scope starts with `begin_shared` (through `NuArray::as_shared`, which borrows the array
//! mutably for the whole scope, so nothing else reads or writes it meanwhile). The contents at
//! that moment are the *base*, kept on the host. Each device that joins gets the base (only if
//! its copy is stale) and writes its own copy; the native engine writes a copy of its own.
//! The first access after the scope settles it: every element a writer changed (bitwise,
//! against the base) is taken from that writer. Writes to disjoint elements therefore merge
//! exactly; two writers changing one element leave one of their values, as a race in OpenCL.

use super::backend;
use super::host::HostBuf;
use super::{Storage, SyncState};
use crate::element::{bytes, download, Pod};
use crate::error::Result;
use std::collections::BTreeSet;
use std::sync::{OnceLock, PoisonError};

/// A shared-write scope in progress.
pub(crate) struct SharedWrites<T> {
    /// The contents when the scope began: what each writer's copy is compared with.
    base: HostBuf<T>,
    /// OpenCL devices whose copies kernels wrote.
    writers: BTreeSet<usize>,
    /// Whether native-engine kernels wrote the native copy.
    native: bool,
}

impl<T> SharedWrites<T> {
    /// The base, when the scope's writes are discarded.
    pub fn into_base(self) -> HostBuf<T> {
        self.base
    }
}

impl<T: Pod> Storage<T> {
    /// Starts a shared-write scope. The base is the current contents, made valid on the host
    /// first (one download if only a device had them).
    pub fn begin_shared(&mut self) -> Result<()> {
        let st = self.sync.get_mut().unwrap_or_else(PoisonError::into_inner);
        st.settle(&self.host, self.native.get().map(|c| &**c))?;
        self.native.take();
        let base = match self.host.take() {
            Some(v) => v,
            None => st.materialise(self.len, self.layout)?,
        };
        st.shared = Some(SharedWrites {
            base,
            writers: BTreeSet::new(),
            native: false,
        });
        Ok(())
    }

    /// Device memory for a kernel in the scope on `dev`: the base, uploaded only if this
    /// device's copy is stale. `write` records the device as a writer.
    pub fn prepare_shared(&self, i: usize, write: bool) -> Result<u64> {
        let mut guard = self.lock();
        let st = &mut *guard;
        st.allocate(i, self.len, self.layout)?;
        let Some(sh) = st.shared.as_mut() else {
            unreachable!("nuda bug: a shared launch outside a shared scope");
        };
        if !st.slots[i].valid {
            let whole = st.slots[i].cap == self.len;
            if let Some(mem) = st.slots[i].mem.as_deref_mut() {
                if st.zero {
                    backend(i).fill_zero(mem, self.len * size_of::<T>())?;
                } else {
                    super::write_start(i, mem, whole, &bytes(&sh.base))?;
                }
            }
            st.slots[i].valid = true;
        }
        if write {
            sh.writers.insert(i);
        }
        Ok(st.raw(i))
    }

    /// The native engine's copy in the scope, made from the base on first use.
    pub fn native_shared(&self, write: bool) -> &[T::Cell] {
        let mut st = self.lock();
        let Some(sh) = st.shared.as_mut() else {
            unreachable!("nuda bug: a shared native view outside a shared scope");
        };
        sh.native |= write;
        self.native
            .get_or_init(|| sh.base.iter().map(|&v| T::cell(v)).collect())
    }
}

impl<T: Pod> SyncState<T> {
    /// Ends a shared-write scope, if one is pending. No writer: the base is the data, and the
    /// device copies made from it stay valid. One OpenCL writer: its copy is the data, nothing
    /// moves. Otherwise each writer's copy is downloaded and merged into the host copy.
    pub(super) fn settle(
        &mut self,
        host: &OnceLock<HostBuf<T>>,
        native: Option<&[T::Cell]>,
    ) -> Result<()> {
        let Some(sh) = self.shared.take() else {
            return Ok(());
        };
        if sh.writers.is_empty() && !sh.native {
            // The host copy was moved into the base when the scope began, so the cell is empty.
            host.get_or_init(|| sh.base);
            return Ok(());
        }
        if let (1, false) = (sh.writers.len(), sh.native) {
            let w = sh.writers.first().copied();
            self.slots
                .iter_mut()
                .enumerate()
                .for_each(|(j, s)| s.valid = Some(j) == w);
            self.zero = false;
            self.spare = sh.base;
            return Ok(());
        }
        match self.merge(&sh, native) {
            Ok(merged) => {
                self.slots.iter_mut().for_each(|s| s.valid = false);
                self.zero = false;
                host.get_or_init(|| merged);
                Ok(())
            }
            Err(e) => {
                // Nothing was lost: the scope stays pending and the next access retries.
                self.shared = Some(sh);
                Err(e)
            }
        }
    }

    /// The base with every writer's changes applied, writers in device order, then native.
    fn merge(&mut self, sh: &SharedWrites<T>, native: Option<&[T::Cell]>) -> Result<HostBuf<T>> {
        let mut merged = HostBuf::new(sh.base.to_vec());
        let mut copy = super::alloc::overwritten(std::mem::take(&mut self.spare), sh.base.len())?;
        for &w in &sh.writers {
            let Some(mem) = self.slots[w].mem.as_deref() else {
                unreachable!("nuda bug: a shared writer without device memory");
            };
            let whole = self.slots[w].cap == sh.base.len();
            download(&mut copy, |b| super::read_start(w, mem, whole, b))?;
            apply(&mut merged, &sh.base, copy.iter().copied());
        }
        if let (true, Some(cells)) = (sh.native, native) {
            apply(&mut merged, &sh.base, cells.iter().map(T::load));
        }
        self.spare = copy;
        Ok(merged)
    }
}

/// Takes every element of `copy` that differs from `base` (bitwise) into `merged`.
fn apply<T: Pod>(merged: &mut [T], base: &[T], copy: impl Iterator<Item = T>) {
    for ((m, &b), c) in merged.iter_mut().zip(base).zip(copy) {
        if !T::same_bits(c, b) {
            *m = c;
        }
    }
}
