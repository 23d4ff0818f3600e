//! Pipelined transfers through pinned memory (layer 1, shared by the CUDA and OpenCL
//! backends). A transfer through one pinned buffer, a chunk at a time, runs the host's copy
//! and the device's one after the other: on the H200 that gave 6.3 GB/s down, the sum of both
//! times. Here the pinned buffer has two slots: while the device copies one chunk through one
//! slot, the host copies the next (a write) or the last (a read) through the other, so a
//! transfer takes about as long as the slower of the two. The order is kept apart from any
//! driver (`Copies`) so that it is tested on any machine; `cuda/transfer.rs` and
//! `opencl/staging.rs` supply the copies.

use rayon::prelude::*;

/// Bytes a chunk: large enough that a copy's fixed cost is small against its time (8 MiB
/// take about 300 µs at 25 GB/s), small enough that the first and last chunk, which do not
/// overlap, are a small part of a large transfer.
pub(crate) const CHUNK: usize = 8 << 20;

/// The chunk a transfer of `len` bytes takes: an eighth of it, from 1 MiB up to a slot's
/// `CHUNK`. A 16 MiB transfer in two 8 MiB chunks overlapped little of the host's copy with
/// the device's (18.9 GB/s up on the H200 where the driver's pinned copy ran at 54).
pub(crate) fn chunk_for(len: usize) -> usize {
    (len / 8).clamp(1 << 20, CHUNK)
}

/// Below this, the host copies a chunk on the calling thread alone; above, in pieces of this
/// size, so that a chunk is 16 pieces: one host thread's copy runs at about a fifth of the
/// H200's DMA rate, and at 1 MiB a piece only 8 of the machine's 16 threads took part
/// (29.8 GB/s up against the driver's 55 in `benchmarks/h200-s39/call1`).
const PARALLEL: usize = 512 << 10;

/// `to.copy_from_slice(from)`, by several threads when it is large. Not from a rayon
/// worker: it could steal another transfer to this device while it waits, which would wait
/// for the staging lock this one holds.
pub(crate) fn copy(to: &mut [u8], from: &[u8]) {
    if to.len() < 2 * PARALLEL || rayon::current_thread_index().is_some() {
        to.copy_from_slice(from);
        return;
    }
    to.par_chunks_mut(PARALLEL)
        .zip(from.par_chunks(PARALLEL))
        .for_each(|(t, f)| t.copy_from_slice(f));
}

/// The steps a pipelined transfer is made of, over two slots of pinned memory.
pub(crate) trait Copies {
    type Error;
    /// Starts the device's copy of bytes `at..at + n` through slot `s`: into the slot for a
    /// read, out of it for a write. It may still run when this returns.
    fn start(&mut self, s: usize, at: usize, n: usize) -> Result<(), Self::Error>;
    /// Waits until the copy last started through slot `s` has finished.
    fn wait(&mut self, s: usize) -> Result<(), Self::Error>;
    /// The host's side of bytes `at..at + n` through slot `s`: into the slot for a write, out
    /// of it for a read. Never while the device's copy through that slot runs.
    fn host(&mut self, s: usize, at: usize, n: usize);
}

/// The chunks of a transfer of `len` bytes, `chunk` bytes each (the last may be shorter).
fn chunks(len: usize, chunk: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..len)
        .step_by(chunk.max(1))
        .map(move |at| (at, chunk.max(1).min(len - at)))
}

/// Host to device: the host fills a slot, the device copies out of it; a slot is refilled
/// only once its copy has finished, and every copy has finished when this returns `Ok`.
pub(crate) fn write<C: Copies>(len: usize, chunk: usize, c: &mut C) -> Result<(), C::Error> {
    let mut busy = [false; 2];
    for (i, (at, n)) in chunks(len, chunk).enumerate() {
        let s = i % 2;
        if busy[s] {
            c.wait(s)?;
        }
        c.host(s, at, n);
        c.start(s, at, n)?;
        busy[s] = true;
    }
    for (s, &b) in busy.iter().enumerate() {
        if b {
            c.wait(s)?;
        }
    }
    Ok(())
}

/// Device to host: the device copies chunk `i + 1` into one slot while the host takes chunk
/// `i` out of the other; each slot is read only after its copy has finished.
pub(crate) fn read<C: Copies>(len: usize, chunk: usize, c: &mut C) -> Result<(), C::Error> {
    let all: Vec<(usize, usize)> = chunks(len, chunk).collect();
    for (i, &(at, n)) in all.iter().enumerate().take(2) {
        c.start(i, at, n)?;
    }
    for (i, &(at, n)) in all.iter().enumerate() {
        let s = i % 2;
        c.wait(s)?;
        c.host(s, at, n);
        if let Some(&(next, m)) = all.get(i + 2) {
            c.start(s, next, m)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Copies that run "on the device" only when waited for, as late as a real device may,
    /// and check that no slot is touched by the host while its copy is pending.
    struct Fake {
        src: Vec<u8>,
        dst: Vec<u8>,
        slots: [Vec<u8>; 2],
        pending: [Option<(usize, usize)>; 2],
        writing: bool,
    }

    impl Copies for Fake {
        type Error = String;
        fn start(&mut self, s: usize, at: usize, n: usize) -> Result<(), String> {
            if self.pending[s].is_some() {
                return Err(format!("slot {s} started twice"));
            }
            self.pending[s] = Some((at, n));
            Ok(())
        }
        fn wait(&mut self, s: usize) -> Result<(), String> {
            let (at, n) = self.pending[s]
                .take()
                .ok_or(format!("slot {s} waited idle"))?;
            if self.writing {
                self.dst[at..at + n].copy_from_slice(&self.slots[s][..n]);
            } else {
                self.slots[s][..n].copy_from_slice(&self.src[at..at + n]);
            }
            Ok(())
        }
        fn host(&mut self, s: usize, at: usize, n: usize) {
            assert!(
                self.pending[s].is_none(),
                "the host touched slot {s} mid-copy"
            );
            if self.writing {
                self.slots[s][..n].copy_from_slice(&self.src[at..at + n]);
            } else {
                self.dst[at..at + n].copy_from_slice(&self.slots[s][..n]);
            }
        }
    }

    fn fake(len: usize, chunk: usize, writing: bool) -> Fake {
        Fake {
            src: (0..len).map(|i| (i * 7 % 251) as u8).collect(),
            dst: vec![0; len],
            slots: [vec![0; chunk], vec![0; chunk]],
            pending: [None, None],
            writing,
        }
    }

    #[test]
    fn chunks_are_an_eighth_within_a_slot() {
        assert_eq!(chunk_for(0), 1 << 20);
        assert_eq!(chunk_for(16 << 20), 2 << 20);
        assert_eq!(chunk_for(1 << 30), CHUNK);
        assert!((0..40).all(|k| chunk_for(1 << k) <= CHUNK));
    }

    #[test]
    fn every_byte_arrives_in_both_directions() {
        for len in [0usize, 1, 7, 8, 9, 16, 17, 100] {
            for writing in [true, false] {
                let mut f = fake(len, 8, writing);
                let r = if writing {
                    write(len, 8, &mut f)
                } else {
                    read(len, 8, &mut f)
                };
                r.unwrap();
                assert_eq!(f.src, f.dst, "len {len}, writing {writing}");
                assert_eq!(f.pending, [None, None], "a copy still runs");
            }
        }
    }
}
