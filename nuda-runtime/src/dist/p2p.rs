//! Point-to-point messages in flight (layer 5, see `dist/mod.rs`): the halo exchange's
//! non-blocking sends and receives to and from the neighbours only (MPI_Isend/MPI_Irecv
//! through the `mpi` crate), posted by `exchange_start` and completed later. Both sides know
//! every message's length from the split, so no length travels. Waiting polls with a
//! deadline (`dist/held.rs`): a neighbour that never sends (it died, and Open MPI did not end
//! the job) is an `Err`, not a hang.

use super::comm::Comm;
use crate::error::Result;
use std::cell::RefCell;

/// What this thread's halo exchanges have sent and received, for tests and reports: an
/// exchange talks only to the ranks whose rows meet its halo rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Messages {
    /// Messages sent.
    pub sent: u64,
    /// Messages received.
    pub received: u64,
    /// Bytes sent.
    pub bytes: u64,
    /// The ranks the latest exchange sent to or received from, in order.
    pub peers: Vec<usize>,
}

thread_local! {
    static COUNT: RefCell<Messages> = RefCell::new(Messages::default());
}

/// What this thread's halo exchanges (`exchange`, `exchange_start`) have moved so far.
pub fn messages() -> Messages {
    COUNT.with(|c| c.borrow().clone())
}

fn count(sends: &[(usize, Vec<u8>)], recvs: &[(usize, usize)]) {
    COUNT.with(|c| {
        let mut c = c.borrow_mut();
        c.sent += sends.len() as u64;
        c.received += recvs.len() as u64;
        c.bytes += sends.iter().map(|(_, b)| b.len() as u64).sum::<u64>();
        let peers = sends.iter().map(|s| s.0).chain(recvs.iter().map(|r| r.0));
        c.peers = peers.collect();
        c.peers.sort_unstable();
        c.peers.dedup();
    });
}

/// Messages posted and not yet complete; dropping it waits for them.
pub(crate) struct Flight {
    #[cfg(feature = "mpi")]
    inner: Option<mpi_impl::Posted>,
}

impl Comm {
    /// Posts a receive of `len` bytes from each `(rank, len)` of `recvs` and sends each
    /// `(rank, bytes)` of `sends`, and returns at once. Empty messages are not sent; the
    /// other side must expect the same ones, in the same order.
    pub(crate) fn post(&self, sends: Vec<(usize, Vec<u8>)>, recvs: Vec<(usize, usize)>) -> Flight {
        let sends: Vec<_> = sends.into_iter().filter(|s| !s.1.is_empty()).collect();
        let recvs: Vec<_> = recvs.into_iter().filter(|r| r.1 > 0).collect();
        count(&sends, &recvs);
        match self {
            Comm::Single => Flight {
                #[cfg(feature = "mpi")]
                inner: None,
            },
            #[cfg(feature = "mpi")]
            Comm::Mpi { world, .. } => Flight {
                inner: Some(mpi_impl::Posted::post(world, sends, recvs)),
            },
        }
    }
}

impl Flight {
    /// Waits for every message; what each receive got, in the order they were posted.
    pub fn wait(mut self) -> Result<Vec<Vec<u8>>> {
        #[cfg(feature = "mpi")]
        if let Some(p) = self.inner.take() {
            return p.wait();
        }
        let _ = &mut self;
        Ok(Vec::new())
    }
}

impl Drop for Flight {
    fn drop(&mut self) {
        // An exchange never completed (its array dropped, or an error on the way): MPI
        // requires every request to finish before its buffer goes.
        #[cfg(feature = "mpi")]
        if let Some(p) = self.inner.take() {
            let _ = p.wait();
        }
    }
}

#[cfg(feature = "mpi")]
mod mpi_impl {
    use crate::dist::held::{complete_or, Deadline, Held};
    use crate::error::Result;
    use mpi::point_to_point::{Destination, Source};
    use mpi::request::{Request, StaticScope};
    use mpi::topology::{Communicator, SimpleCommunicator};

    /// Halo messages carry their own tag: they match in posting order, apart from the
    /// collectives' traffic.
    const TAG: i32 = 0x6e75;

    /// One message: its request until complete, its buffer, the rank at the other end, and
    /// whether it is a receive.
    struct Message {
        request: Option<Request<'static, [u8]>>,
        buf: Held<[u8]>,
        peer: usize,
        recv: bool,
    }

    pub struct Posted {
        messages: Vec<Message>,
    }

    impl Posted {
        pub fn post(
            world: &SimpleCommunicator,
            sends: Vec<(usize, Vec<u8>)>,
            recvs: Vec<(usize, usize)>,
        ) -> Posted {
            let mut messages = Vec::with_capacity(sends.len() + recvs.len());
            for (peer, len) in recvs {
                let buf = Held::new(vec![0u8; len].into_boxed_slice());
                let p = world.process_at_rank(peer as i32);
                // SAFETY: the buffer is lent to this request only, and read once it completes.
                let request =
                    p.immediate_receive_into_with_tag(StaticScope, unsafe { buf.lend() }, TAG);
                messages.push(Message {
                    request: Some(request),
                    buf,
                    peer,
                    recv: true,
                });
            }
            for (peer, bytes) in sends {
                let buf = Held::new(bytes.into_boxed_slice());
                let p = world.process_at_rank(peer as i32);
                // SAFETY: as above; MPI only reads it.
                let request = p.immediate_send_with_tag(StaticScope, unsafe { &*buf.lend() }, TAG);
                messages.push(Message {
                    request: Some(request),
                    buf,
                    peer,
                    recv: false,
                });
            }
            Posted { messages }
        }

        /// Waits for every message, within the deadline; what each receive got, in order.
        pub fn wait(mut self) -> Result<Vec<Vec<u8>>> {
            let deadline = Deadline::new();
            for m in &mut self.messages {
                if let Some(r) = m.request.take() {
                    let whom = format!("rank {}", m.peer);
                    complete_or(r, &deadline, "completing a halo exchange", &whom)?;
                    m.buf.done();
                }
            }
            let got = (self.messages.iter().filter(|m| m.recv))
                // SAFETY: every request is complete.
                .map(|m| unsafe { m.buf.read() }.to_vec())
                .collect();
            Ok(got)
        }
    }

    impl Drop for Posted {
        fn drop(&mut self) {
            // Requests left after a timeout: MPI may still use their buffers, which `Held`
            // leaks (the request's own drop would panic).
            for m in &mut self.messages {
                if let Some(r) = m.request.take() {
                    std::mem::forget(r);
                }
            }
        }
    }
}
