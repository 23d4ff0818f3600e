//! Point-to-point messages in flight (layer 5, see `dist/mod.rs`): the halo exchange's
//! non-blocking sends and receives to and from the neighbours only (MPI_Isend/MPI_Irecv
//! through the `mpi` crate), posted by `exchange_start` and completed later. Both sides know
//! every message's length from the split, so no length travels. Waiting polls with a
//! deadline: a neighbour that never sends (it died, and Open MPI did not end the job) is an
//! `Err`, not a hang.

use super::comm::Comm;
use crate::error::Result;
use std::cell::RefCell;
#[cfg(feature = "mpi")]
use std::time::{Duration, Instant};

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

/// How long a wait for a neighbour may take: `NUDA_DIST_TIMEOUT` seconds (0: for ever),
/// 300 by default.
#[cfg(feature = "mpi")]
fn patience() -> Option<Duration> {
    let secs = std::env::var("NUDA_DIST_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(300);
    (secs > 0).then(|| Duration::from_secs(secs))
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
            return p.wait(patience());
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
            let _ = p.wait(patience());
        }
    }
}

/// The error of a wait that ran out of patience.
#[cfg(feature = "mpi")]
fn timed_out(from: usize, waited: Duration) -> crate::error::Error {
    super::comm::dist_error(
        "completing a halo exchange",
        format!("rank {from} has not sent its halo rows in {} s: it may have died or be stuck before the matching exchange (every rank must exchange the same arrays in the same order); when a rank dies, Open MPI's mpirun normally ends the whole job; raise NUDA_DIST_TIMEOUT (seconds, 0 for no limit) if a rank is only slow", waited.as_secs()),
    )
}

#[cfg(feature = "mpi")]
mod mpi_impl {
    use super::{timed_out, Duration, Instant};
    use crate::error::Result;
    use mpi::point_to_point::{Destination, Source};
    use mpi::request::{Request, StaticScope};
    use mpi::topology::{Communicator, SimpleCommunicator};

    /// Halo messages carry their own tag: they match in posting order, apart from the
    /// collectives' traffic.
    const TAG: i32 = 0x6e75;

    /// One message: its request, its buffer (from `Box::into_raw`, freed once the request
    /// is complete), and the rank at the other end; `recv` for a receive.
    struct Message {
        request: Option<Request<'static, [u8]>>,
        buf: *mut [u8],
        peer: usize,
        recv: bool,
    }

    pub struct Posted {
        messages: Vec<Message>,
    }

    /// A heap buffer that outlives the call, for a request with a static scope.
    fn leaked(bytes: Vec<u8>) -> *mut [u8] {
        Box::into_raw(bytes.into_boxed_slice())
    }

    impl Posted {
        pub fn post(
            world: &SimpleCommunicator,
            sends: Vec<(usize, Vec<u8>)>,
            recvs: Vec<(usize, usize)>,
        ) -> Posted {
            let mut messages = Vec::with_capacity(sends.len() + recvs.len());
            for (peer, len) in recvs {
                let buf = leaked(vec![0u8; len]);
                // SAFETY: `buf` is a live allocation of `len` bytes that nothing else
                // references; it is freed only in `free`, after this request completes.
                let target: &'static mut [u8] = unsafe { &mut *buf };
                let p = world.process_at_rank(peer as i32);
                let request = p.immediate_receive_into_with_tag(StaticScope, target, TAG);
                messages.push(Message {
                    request: Some(request),
                    buf,
                    peer,
                    recv: true,
                });
            }
            for (peer, bytes) in sends {
                let buf = leaked(bytes);
                // SAFETY: as above; MPI only reads it.
                let source: &'static [u8] = unsafe { &*buf };
                let p = world.process_at_rank(peer as i32);
                let request = p.immediate_send_with_tag(StaticScope, source, TAG);
                messages.push(Message {
                    request: Some(request),
                    buf,
                    peer,
                    recv: false,
                });
            }
            Posted { messages }
        }

        /// Polls every request until all are complete, or `patience` runs out.
        pub fn wait(mut self, patience: Option<Duration>) -> Result<Vec<Vec<u8>>> {
            let began = Instant::now();
            loop {
                for m in &mut self.messages {
                    if let Some(r) = m.request.take() {
                        m.request = r.test().err();
                    }
                }
                let Some(late) = self.messages.iter().find(|m| m.request.is_some()) else {
                    break;
                };
                if patience.is_some_and(|p| began.elapsed() > p) {
                    return Err(timed_out(late.peer, began.elapsed()));
                }
                std::thread::yield_now();
            }
            let got = (self.messages.iter().filter(|m| m.recv))
                // SAFETY: the receive is complete, so MPI no longer writes the buffer.
                .map(|m| unsafe { (*m.buf).to_vec() })
                .collect();
            Ok(got)
        }
    }

    impl Drop for Posted {
        fn drop(&mut self) {
            for m in &mut self.messages {
                match m.request.take() {
                    // SAFETY: the request is complete and its reference is gone, so the
                    // buffer is ours again: it came from `Box::into_raw` in `leaked`.
                    None => drop(unsafe { Box::from_raw(m.buf) }),
                    // Abandoned after a timeout: MPI may still write the buffer, so both
                    // stay allocated (a leak, which is safe; the request's own drop would
                    // panic).
                    Some(r) => std::mem::forget(r),
                }
            }
        }
    }
}
