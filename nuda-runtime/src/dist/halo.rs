//! The halo exchange of a distributed array (layer 5, see `dist/mod.rs`): each rank sends
//! the rows of its own that other ranks keep as halo rows, and receives its halo rows from
//! their owners, point to point with those ranks only (its neighbours, or more ranks where a
//! halo is wider than their blocks), never a collective over all ranks. Only those rows move
//! between host and device too: a device-resident local array is read and written row range
//! by row range, never whole.
//!
//! `exchange_start` reads the rows to send and posts the messages; the exchange completes at
//! `exchange_wait`, or in the next `nudist` launch that reads the array, after the rows that
//! need no halo ran (`dist/phase.rs`).

use super::array::{block_in, held, row_len, NuDist};
use super::decode;
use super::p2p::Flight;
use crate::element::Stored;
use crate::error::Result;
use crate::shape::Shape;
use std::ops::Range;

/// `a ∩ b` (empty where they do not meet).
pub(crate) fn meet(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
    let start = a.start.max(b.start);
    start..a.end.min(b.end).max(start)
}

/// The halo rows of a rank owning `owned` out of `n` with `halo`, above and below its block.
fn halo_rows(n: usize, halo: usize, owned: &Range<usize>) -> [Range<usize>; 2] {
    let h = held(n, halo, owned);
    [
        h.start..owned.start.max(h.start),
        owned.end.min(h.end)..h.end,
    ]
}

/// An exchange in flight: its messages, per receive the global rows it fills, and the first
/// error this rank met while starting it (kept for the wait, so that the neighbours still got
/// every message they expect).
pub(crate) struct Pending {
    flight: Flight,
    places: Vec<Vec<Range<usize>>>,
    failed: Option<crate::error::Error>,
}

/// The most bytes one MPI message may carry (its count is a C `int`).
const MAX_MESSAGE: usize = i32::MAX as usize;

/// The rows of `a`'s rank that rank `to` keeps as halo rows, and the reverse: per pair of
/// ranks, both sides compute the same ranges, in the same order.
fn rows_between(
    bounds: &[usize],
    n: usize,
    halo: usize,
    from: usize,
    to: usize,
) -> Vec<Range<usize>> {
    let owned = block_in(bounds, from);
    halo_rows(n, halo, &block_in(bounds, to))
        .iter()
        .map(|want| meet(want, &owned))
        .filter(|p| !p.is_empty())
        .collect()
}

/// The error of a message past MPI's count.
fn too_big(bytes: usize) -> crate::error::Error {
    let why = format!("{bytes} bytes of halo rows in one message, more than MPI's 2^31 - 1 allows; use a narrower halo or more ranks");
    super::comm::dist_error("exchanging halo rows", why)
}

impl<T: Stored, S: Shape> NuDist<T, S> {
    /// Refreshes every rank's halo rows from the ranks that own them. Collective. Only the
    /// boundary rows move, between neighbouring ranks and between each rank's device and
    /// host (`nuda::stats()` counts exactly those bytes; `nuda::dist::messages()` the
    /// messages).
    pub fn exchange(&mut self) -> Result<()> {
        self.exchange_start()?;
        // Collective: every rank has waited, so no later launch needs to overlap it.
        self.started.set(false);
        self.exchange_wait()
    }

    /// Starts the halo exchange and returns at once: the rows to send are read now, and the
    /// halo rows arrive while the rank computes. The next `annot!(nudist; ..)` launch that
    /// reads the array runs the rows that need no halo first, then completes the exchange,
    /// then the rows next to the halo; [`exchange_wait`](Self::exchange_wait), and every
    /// other call that needs the halo rows, complete it too. Collective, as `exchange`.
    /// Results are the same, bit for bit, as with `exchange`. Every message is posted even
    /// where this rank fails to read its rows (the neighbours would wait for it): the error
    /// is then the wait's, or the next launch's on every rank.
    pub fn exchange_start(&mut self) -> Result<()> {
        let mut failed = self.exchange_wait().err();
        let (n, halo, me) = (self.dims().extents()[0], self.halo(), self.world().rank());
        let row = row_len(self.dims());
        let bounds = self.bounds().to_vec();
        let (mut sends, mut recvs, mut places) = (Vec::new(), Vec::new(), Vec::new());
        for q in (0..self.world().size()).filter(|&q| q != me) {
            let parts = rows_between(&bounds, n, halo, me, q);
            let len: usize = parts.iter().map(|p| p.len() * row * size_of::<T>()).sum();
            let out = match (len > MAX_MESSAGE, self.send_rows(&parts)) {
                (true, _) => Err(too_big(len)),
                (false, out) => out,
            };
            sends.push((
                q,
                out.unwrap_or_else(|e| {
                    failed.get_or_insert(e);
                    // The length the receiver expects (none past MPI's count: it skips those).
                    vec![0; if len > MAX_MESSAGE { 0 } else { len }]
                }),
            ));
            let parts = rows_between(&bounds, n, halo, q, me);
            let len: usize = parts.iter().map(|p| p.len() * row * size_of::<T>()).sum();
            if len > MAX_MESSAGE {
                failed.get_or_insert(too_big(len));
            }
            let len = if len > MAX_MESSAGE { 0 } else { len };
            recvs.push((q, len));
            if len > 0 {
                places.push(parts);
            }
        }
        let flight = self.world().comm().post(sends, recvs);
        *self.pending.get_mut() = Some(Pending {
            flight,
            places,
            failed,
        });
        self.started.set(true);
        Ok(())
    }

    /// This rank's rows `parts`, as the bytes of one message.
    fn send_rows(&self, parts: &[Range<usize>]) -> Result<Vec<u8>> {
        let (row, first) = (row_len(self.dims()), self.held().start);
        let mut out = Vec::new();
        for part in parts {
            let mut rows = crate::memory::zeros::<T>(part.len() * row)?;
            self.local()
                .read_range((part.start - first) * row, &mut rows)?;
            out.extend_from_slice(&crate::element::bytes(&rows));
        }
        Ok(out)
    }

    /// Completes the exchange [`exchange_start`](Self::exchange_start) began, if one is in
    /// flight: its halo rows are written to the local array. Not collective: it waits for
    /// the messages of this rank's neighbours only.
    pub fn exchange_wait(&mut self) -> Result<()> {
        self.exchange_settle()
    }

    /// `exchange_wait` through `&self`, for a launch's view: the local array must not be
    /// borrowed.
    pub(crate) fn exchange_settle(&self) -> Result<()> {
        if self.pending.borrow().is_none() {
            return Ok(());
        }
        let Ok(mut local) = self.cell().try_borrow_mut() else {
            let why = "the local array is borrowed (a `local()` guard is alive); drop it first";
            return Err(super::comm::dist_error("completing a halo exchange", why));
        };
        let Some(p) = self.pending.borrow_mut().take() else {
            return Ok(());
        };
        let got = p.flight.wait()?;
        if let Some(e) = p.failed {
            return Err(e);
        }
        let (row, first) = (row_len(self.dims()), self.held().start);
        for (bytes, parts) in got.iter().zip(&p.places) {
            let rows = decode::<T>(bytes)?;
            let mut at = 0;
            for part in parts {
                let len = part.len() * row;
                local.write_range((part.start - first) * row, &rows[at..at + len])?;
                at += len;
            }
        }
        Ok(())
    }
}
