//! `nuda::dist`: NUDA's `nudevs` carried to a cluster, one MPI rank per device. Layer 5 of
//! the runtime (see `backend/README.md`), above arrays: a [`NuDist1`], [`NuDist2`] or
//! [`NuDist3`] splits its first dimension into one block of rows per rank, each block held
//! in an ordinary array with `halo` rows from the neighbours on either side, and
//! `annot!(nudist; nuwork!(..))` runs a loop nest over the rows this rank owns.
//!
//! The transport is MPI through the `mpi` crate, behind the `mpi` cargo feature. Without the
//! feature, or started without `mpirun`, a program runs as one rank and every call here is
//! local. Collective calls ([`World::barrier`], [`NuDist::exchange`], [`NuDist::gather`], every
//! `nudist` launch, ..) must be made by every rank in the same order, as MPI requires.
//!
//! Results do not depend on MPI's internal order: reductions gather every rank's partial in
//! rank order and fold them the same way on every rank ([`launch`]).

mod agree;
mod array;
mod comm;
mod halo;
#[cfg(feature = "mpi")]
mod held;
pub mod launch;
mod p2p;
pub(crate) mod phase;
mod rebalance;
mod split;
#[cfg(test)]
mod test;

pub use array::{DistMut, DistRef, NuDist, NuDist1, NuDist2, NuDist3};
pub use launch::step_time;
pub use p2p::{messages, Messages};
pub use phase::overlaps;
pub use split::Split;

use crate::device::{devices, set_device};
use crate::error::Result;
use comm::{Comm, Keep};
use std::rc::Rc;

/// The ranks of a distributed program: which one this process is, and how many there are.
/// Cheap to clone (every clone is the same world); MPI ends when the last clone is dropped,
/// so keep one until the program's distributed work is done.
#[derive(Clone)]
pub struct World {
    inner: Rc<Inner>,
}

struct Inner {
    comm: Comm,
    /// This rank's compute since the last measured rebalance (`Split::Measured`).
    meter: split::Meter,
    // Dropped after `comm`: MPI_Finalize runs once its communicators are gone.
    _keep: Keep,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "World(rank {} of {})", self.rank(), self.size())
    }
}

/// Starts the distributed program: `MPI_Init` under `mpirun` (with the `mpi` feature), one
/// rank otherwise. Each rank then picks its device by its rank on its node: the node's GPUs in
/// turn, unless `NUDA_DEVICE` or `NUDA_ENGINE` chose one (so `mpirun -x NUDA_ENGINE=native`
/// runs every rank on the native engine). Call it on the thread that runs the distributed
/// work; a second call there, while the first world lives, returns the same world. MPI starts
/// once per process, so with the `mpi` feature a call from another thread, or after the
/// world was dropped (which ended MPI), is an `Err`.
///
/// ```
/// let world = nuda_runtime::dist::init()?;
/// assert!(world.rank() < world.size());
/// # Ok::<(), nuda_runtime::Error>(())
/// ```
pub fn init() -> Result<World> {
    if let Some(inner) = LIVE.with(|l| l.borrow().upgrade()) {
        // A second call on the same thread while the first world lives: the same world.
        return Ok(World { inner });
    }
    let (comm, keep) = comm::start()?;
    let world = World {
        inner: Rc::new(Inner {
            comm,
            meter: split::Meter::default(),
            _keep: keep,
        }),
    };
    LIVE.with(|l| *l.borrow_mut() = Rc::downgrade(&world.inner));
    pick_device(world.inner.comm.node_rank());
    Ok(world)
}

thread_local! {
    /// The world `init` made on this thread, while it lives.
    static LIVE: std::cell::RefCell<std::rc::Weak<Inner>> = const { std::cell::RefCell::new(std::rc::Weak::new()) };
}

/// One GPU per rank of a node, when the user chose no device.
fn pick_device(node_rank: usize) {
    let chosen = ["NUDA_DEVICE", "NUDA_ENGINE"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if chosen {
        return;
    }
    let gpus: Vec<usize> = devices()
        .iter()
        .filter(|d| d.kind == crate::device::DeviceKind::Gpu)
        .map(|d| d.index)
        .collect();
    if !gpus.is_empty() {
        // Listed devices always select; a failure would leave the default, which also runs.
        let _ = set_device(gpus[node_rank % gpus.len()]);
    }
}

impl World {
    /// This rank's number, from 0 to `size() - 1`.
    pub fn rank(&self) -> usize {
        self.inner.comm.rank()
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.inner.comm.size()
    }

    /// This rank's number among the ranks on its node, which picks its GPU.
    pub fn node_rank(&self) -> usize {
        self.inner.comm.node_rank()
    }

    /// Waits until every rank has called it.
    pub fn barrier(&self) {
        self.inner.comm.barrier();
    }

    /// Every rank's `mine`, concatenated in rank order, on every rank: how a filter's
    /// `NuVec` (or any per-rank list) is gathered in rank order.
    pub fn all_gather_vec<T: crate::element::Stored>(&self, mine: &[T]) -> Result<Vec<T>> {
        let parts = self.comm().all_gather(&crate::element::bytes(mine))?;
        let mut out = Vec::new();
        for p in parts {
            out.extend(decode::<T>(&p)?);
        }
        Ok(out)
    }

    pub(crate) fn comm(&self) -> &Comm {
        &self.inner.comm
    }

    pub(crate) fn meter(&self) -> &split::Meter {
        &self.inner.meter
    }

    /// Whether two handles are the same world.
    pub(crate) fn same(&self, other: &World) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }
}

/// The elements of `T` in `bytes` (as `element::bytes` encoded them).
pub(crate) fn decode<T: crate::element::Pod>(bytes: &[u8]) -> Result<Vec<T>> {
    let n = bytes.len() / size_of::<T>().max(1);
    let mut out = crate::memory::zeros::<T>(n)?;
    crate::element::download(&mut out, |b| {
        b.copy_from_slice(&bytes[..b.len()]);
        Ok(())
    })?;
    Ok(out)
}
