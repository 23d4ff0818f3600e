//! The transport under `dist` (layer 5, see `dist/mod.rs`): one process alone, or MPI ranks
//! through the `mpi` crate (rsmpi) over the system's MPI. Everything here moves bytes; the
//! element types are encoded above. Every operation is collective over the world's ranks,
//! called by each rank in the same order, from the thread that called [`super::init`] (MPI
//! runs at the "funneled" threading level: the native engine's worker threads never call it).

use crate::error::{Error, Result};

/// The ranks a world talks to.
pub(crate) enum Comm {
    /// A program started without `mpirun`, or built without the `mpi` feature.
    #[cfg_attr(feature = "mpi", allow(dead_code))]
    Single,
    /// MPI's world communicator, and the node-local one that picks each rank's device.
    #[cfg(feature = "mpi")]
    Mpi {
        world: mpi::topology::SimpleCommunicator,
        node: mpi::topology::SimpleCommunicator,
    },
}

/// The MPI error every failed call becomes: MPI's default handler aborts the job, so this is
/// only reached for what nuda checks itself.
pub(crate) fn dist_error(during: &str, detail: impl Into<String>) -> Error {
    Error::Dist {
        during: during.into(),
        detail: detail.into(),
    }
}

impl Comm {
    /// This rank's number, from 0.
    pub fn rank(&self) -> usize {
        match self {
            Comm::Single => 0,
            #[cfg(feature = "mpi")]
            Comm::Mpi { world, .. } => {
                use mpi::traits::Communicator;
                world.rank() as usize
            }
        }
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        match self {
            Comm::Single => 1,
            #[cfg(feature = "mpi")]
            Comm::Mpi { world, .. } => {
                use mpi::traits::Communicator;
                world.size() as usize
            }
        }
    }

    /// This rank's number among the ranks of its node (shared memory).
    pub fn node_rank(&self) -> usize {
        match self {
            Comm::Single => 0,
            #[cfg(feature = "mpi")]
            Comm::Mpi { node, .. } => {
                use mpi::traits::Communicator;
                node.rank() as usize
            }
        }
    }

    /// Waits until every rank has called it.
    pub fn barrier(&self) {
        #[cfg(feature = "mpi")]
        if let Comm::Mpi { world, .. } = self {
            use mpi::collective::CommunicatorCollectives;
            world.barrier();
        }
    }

    /// Every rank's `mine`, in rank order, on every rank (MPI_Allgather of the lengths, then
    /// MPI_Allgatherv).
    pub fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        match self {
            Comm::Single => Ok(vec![mine.to_vec()]),
            #[cfg(feature = "mpi")]
            Comm::Mpi { world, .. } => mpi_impl::all_gather(world, mine),
        }
    }

    /// Sends `out[q]` to rank `q` and returns what every rank sent this one, in rank order
    /// (MPI_Ialltoall of the lengths, then MPI_Ialltoallv, polled within the deadline).
    pub fn all_to_all(&self, out: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        match self {
            Comm::Single => Ok(out.to_vec()),
            #[cfg(feature = "mpi")]
            Comm::Mpi { world, .. } => mpi_impl::all_to_all(world, out),
        }
    }
}

/// Starts MPI (or finds it absent): the communicator and what must live until the end.
pub(crate) fn start() -> Result<(Comm, Keep)> {
    #[cfg(feature = "mpi")]
    {
        mpi_impl::start()
    }
    #[cfg(not(feature = "mpi"))]
    {
        Ok((Comm::Single, Keep))
    }
}

/// What keeps MPI initialised: dropping it calls MPI_Finalize.
#[cfg(feature = "mpi")]
pub(crate) type Keep = mpi::environment::Universe;

/// Nothing to keep without MPI.
#[cfg(not(feature = "mpi"))]
pub(crate) struct Keep;

#[cfg(feature = "mpi")]
mod mpi_impl {
    use super::{dist_error, Comm, Keep};
    use crate::dist::held::{complete_or, Deadline, Held};
    use crate::error::Result;
    use mpi::collective::CommunicatorCollectives;
    use mpi::datatype::{Partition, PartitionMut};
    use mpi::request::StaticScope;
    use mpi::topology::{Communicator, SimpleCommunicator};
    use mpi::Count;

    pub fn start() -> Result<(Comm, Keep)> {
        // Funneled: only the thread that called `init` talks to MPI; the native engine's rayon
        // workers never do.
        let threading = mpi::Threading::Funneled;
        let Some((universe, _)) = mpi::initialize_with_threading(threading) else {
            return Err(dist_error(
                "nuda::dist::init",
                "MPI was already started in this process, by another thread or by a world \
                 since dropped (which ended it); call nuda::dist::init on one thread, keep the \
                 World it returns, and pass it along",
            ));
        };
        let world = universe.world();
        let node = world.split_shared(world.rank());
        Ok((Comm::Mpi { world, node }, universe))
    }

    fn count(n: usize, during: &str) -> Result<Count> {
        Count::try_from(n).map_err(|_| {
            dist_error(during, format!("{n} bytes in one message, more than MPI's 2^31 - 1 count allows; split the array over more ranks"))
        })
    }

    /// Offsets of consecutive parts of the given lengths.
    fn displs(counts: &[Count]) -> Vec<Count> {
        counts
            .iter()
            .scan(0, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect()
    }

    /// Splits `buf` into parts of `counts` bytes.
    fn parts(buf: &[u8], counts: &[Count]) -> Vec<Vec<u8>> {
        let mut at = 0usize;
        counts
            .iter()
            .map(|&c| {
                let part = buf[at..at + c as usize].to_vec();
                at += c as usize;
                part
            })
            .collect()
    }

    /// MPI_Iallgather of the lengths, then MPI_Iallgatherv, each polled within the deadline
    /// (`dist/held.rs`): a dead rank is an `Err`, not a hang.
    pub fn all_gather(world: &SimpleCommunicator, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        let during = "gathering from every rank";
        let deadline = Deadline::new();
        let n = count(mine.len(), during)?;
        let (one, counts) = (
            Held::new(vec![n].into_boxed_slice()),
            Held::new(vec![0 as Count; world.size() as usize].into_boxed_slice()),
        );
        // SAFETY: each buffer is lent to this request only, and read once it completes.
        let r = world.immediate_all_gather_into(StaticScope, unsafe { &*one.lend() }, unsafe {
            counts.lend()
        });
        complete_or(r, &deadline, during, "a rank")?;
        one.done();
        counts.done();
        // SAFETY: the gather is complete.
        let counts: Vec<Count> = unsafe { counts.read() }.to_vec();
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        count(total, during)?;
        // One byte at least in each buffer: MPI refuses an empty buffer's dangling pointer.
        let send = Held::new([mine, &[0]].concat().into_boxed_slice());
        let buf = Held::new(vec![0u8; total.max(1)].into_boxed_slice());
        let (c, d) = (
            Held::new(counts.clone().into_boxed_slice()),
            Held::new(displs(&counts).into_boxed_slice()),
        );
        // SAFETY: as above; the partition is lent whole to the one request.
        let part = Held::new(Box::new(unsafe {
            PartitionMut::new(buf.lend(), &*c.lend(), &*d.lend())
        }));
        // SAFETY: as above.
        let (s, p) = unsafe { (&send.lend()[..mine.len()], part.lend()) };
        let r = world.immediate_all_gather_varcount_into(StaticScope, s, p);
        complete_or(r, &deadline, during, "a rank")?;
        send.done();
        buf.done();
        c.done();
        d.done();
        part.done();
        // SAFETY: the gather is complete.
        Ok(parts(unsafe { buf.read() }, &counts))
    }

    /// MPI_Ialltoall of the lengths, then MPI_Ialltoallv, each polled within the deadline, as
    /// `all_gather`.
    pub fn all_to_all(world: &SimpleCommunicator, out: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        let during = "moving rows between the ranks";
        let deadline = Deadline::new();
        let sc: Vec<Count> = out
            .iter()
            .map(|o| count(o.len(), during))
            .collect::<Result<_>>()?;
        let (lens, rc) = (
            Held::new(sc.clone().into_boxed_slice()),
            Held::new(vec![0 as Count; sc.len()].into_boxed_slice()),
        );
        // SAFETY: each buffer is lent to this request only, and read once it completes.
        let r = world
            .immediate_all_to_all_into(StaticScope, unsafe { &*lens.lend() }, unsafe { rc.lend() });
        complete_or(r, &deadline, during, "a rank")?;
        lens.done();
        rc.done();
        // SAFETY: the exchange of lengths is complete.
        let rc: Vec<Count> = unsafe { rc.read() }.to_vec();
        count(rc.iter().map(|&c| c as usize).sum(), during)?;
        // One byte at least in each buffer: MPI refuses an empty buffer's dangling pointer.
        let send = Held::new([out.concat(), vec![0]].concat().into_boxed_slice());
        let buf = Held::new(
            vec![0u8; rc.iter().map(|&c| c as usize).sum::<usize>() + 1].into_boxed_slice(),
        );
        let tables = [sc.clone(), displs(&sc), rc.clone(), displs(&rc)]
            .map(|t| Held::new(t.into_boxed_slice()));
        // SAFETY: as above; each partition is lent whole to the one request.
        let (s, r) = unsafe {
            let [c, d, rcs, rd] = &tables;
            (
                Held::new(Box::new(Partition::new(
                    &*send.lend(),
                    &*c.lend(),
                    &*d.lend(),
                ))),
                Held::new(Box::new(PartitionMut::new(
                    buf.lend(),
                    &*rcs.lend(),
                    &*rd.lend(),
                ))),
            )
        };
        // SAFETY: as above.
        let req =
            world.immediate_all_to_all_varcount_into(StaticScope, unsafe { &*s.lend() }, unsafe {
                r.lend()
            });
        complete_or(req, &deadline, during, "a rank")?;
        send.done();
        buf.done();
        tables.iter().for_each(Held::done);
        s.done();
        r.done();
        // SAFETY: the exchange is complete.
        Ok(parts(unsafe { buf.read() }, &rc))
    }
}
