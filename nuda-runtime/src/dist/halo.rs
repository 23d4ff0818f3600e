//! The halo exchange of a distributed array (layer 5, see `dist/mod.rs`): each rank sends
//! the rows of its own that other ranks keep as halo rows, and receives its halo rows from
//! their owners, in one MPI_Alltoallv (which also serves a halo wider than a neighbour's
//! block, and ranks with no rows). Only those rows move between host and device too: a
//! device-resident local array is read and written row range by row range, never whole.

use super::array::{block, held, row_len, NuDist};
use super::decode;
use crate::element::Stored;
use crate::error::Result;
use crate::shape::Shape;
use std::ops::Range;

/// `a ∩ b` (empty where they do not meet).
fn meet(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
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

impl<T: Stored, S: Shape> NuDist<T, S> {
    /// Refreshes every rank's halo rows from the ranks that own them. Collective. Only the
    /// boundary rows move, between ranks and between each rank's device and host
    /// (`nuda::stats()` counts exactly those bytes).
    pub fn exchange(&mut self) -> Result<()> {
        let (dims, halo) = (self.dims(), self.halo());
        let row = row_len(dims);
        let first = self.held().start;
        let (local, world, n, owned) = self.local_and_rows();
        let (size, me) = (world.size(), world.rank());
        let mut out = vec![Vec::new(); size];
        for (q, o) in out.iter_mut().enumerate().filter(|(q, _)| *q != me) {
            for want in halo_rows(n, halo, &block(n, size, q)) {
                let part = meet(&want, &owned);
                if part.is_empty() {
                    continue;
                }
                let mut rows = crate::memory::zeros::<T>(part.len() * row)?;
                local.read_range((part.start - first) * row, &mut rows)?;
                o.extend_from_slice(&crate::element::bytes(&rows));
            }
        }
        let got = world.comm().all_to_all(&out)?;
        for (q, bytes) in got.iter().enumerate().filter(|(q, _)| *q != me) {
            let rows = decode::<T>(bytes)?;
            let mut at = 0;
            for want in halo_rows(n, halo, &owned) {
                let part = meet(&want, &block(n, size, q));
                if part.is_empty() {
                    continue;
                }
                let len = part.len() * row;
                local.write_range((part.start - first) * row, &rows[at..at + len])?;
                at += len;
            }
        }
        Ok(())
    }
}
