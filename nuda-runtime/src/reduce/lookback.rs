//! Single-pass scans of `nuwork!` on OpenCL and CUDA devices (the kernel is
//! `nuda-transforms/src/emit/cl/lookback.rs`): the tiling, each scan variable's tile
//! aggregates and inclusive prefixes, and the tickets and flags the tiles look back through.
//! Layer 5 of the runtime, beside the two-pass form in `scan.rs`.

use super::launch::GROUPS_PER_UNIT;
use super::{RedOp, Reduce};
use crate::array::NuArray1;
use crate::backend::DeviceKind;
use crate::device::Device;
use crate::element::{download, Pod};
use crate::error::{Error, Result};
use crate::launch::Launch;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// Local memory a GPU tile's contributions may take, all scan variables together: 16 KiB
/// leaves room for several groups per multiprocessor.
const GPU_TILE_BYTES: usize = 16 << 10;
/// The most iterations a GPU tile takes: past this the Blelloch tree's depth costs more than
/// the fewer look-backs save.
const GPU_TILE_MAX: usize = 4096;
/// The most iterations a CPU work-item takes per tile.
const CPU_PART_MAX: usize = 1024;

/// Every how many tiles publish their inclusive prefix ([`lookback_test`]; 1: all).
static EVERY: AtomicU32 = AtomicU32::new(1);
/// The most iterations a GPU tile takes ([`lookback_test`]).
static GPU_TILE_CAP: AtomicUsize = AtomicUsize::new(GPU_TILE_MAX);

/// A test's hook, process-wide: from now on only every `every`th tile (0, every, ..)
/// publishes its inclusive prefix, the others their aggregate alone, and a GPU tile takes at
/// most `gpu_tile_max` iterations (rounded down to a power of two, and at least the group). Each tile then walks
/// back over up to `every - 1` aggregates, which a simulator running one group at a time
/// never does on its own. Results do not change with `every` (each prefix is the same left
/// fold); with `gpu_tile_max`, floats reassociate as with any other tile size.
#[doc(hidden)]
pub fn lookback_test(every: u32, gpu_tile_max: usize) {
    EVERY.store(every.max(1), Ordering::Relaxed);
    // A power of two, as the kernel's scan of a tile assumes (it rounds the tile up).
    let cap = prev_power_of_two(gpu_tile_max.clamp(1, GPU_TILE_MAX));
    GPU_TILE_CAP.store(cap, Ordering::Relaxed);
}

/// How a single-pass scan launch cuts its iterations: `tiles` tiles of `tile` iterations,
/// taken by `groups` work-groups of `local`, each with `slots` elements of local memory per
/// scan variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanTiling {
    tile: usize,
    tiles: usize,
    slots: usize,
    groups: usize,
    local: usize,
}

impl ScanTiling {
    /// The launch's 1-D NDRange.
    pub fn global(&self) -> [usize; 1] {
        [self.groups.saturating_mul(self.local)]
    }

    /// Iterations per tile.
    pub fn tile(&self) -> usize {
        self.tile
    }

    /// Number of tiles.
    pub fn tiles(&self) -> usize {
        self.tiles
    }
}

/// The tiling of `trips` iterations in groups of `local`, for scan variables whose device
/// types take `sizes` bytes. GPUs: a power of two of iterations, at least the group (each
/// work-item one iteration per round), the contributions of all scan variables within
/// `GPU_TILE_BYTES`. CPUs: a contiguous part per work-item, long enough that the tiles are
/// about the number of groups the device runs at once. Either way it depends only on the
/// device and the sizes, so the results' association does too. A GPU group of more than
/// 1024 work-items is an error: a row's warp totals must fit one warp of 32.
pub fn scan_tiling<const K: usize>(
    dev: &Device,
    trips: [usize; K],
    local: usize,
    sizes: &[usize],
) -> Result<ScanTiling> {
    let n = trips
        .iter()
        .try_fold(1usize, |a, &t| a.checked_mul(t))
        .unwrap_or(usize::MAX);
    let local = local.max(1);
    let cap = (dev.info().compute_units.max(1) as usize).saturating_mul(GROUPS_PER_UNIT);
    let (tile, slots) = match dev.info().kind == DeviceKind::Cpu {
        true => {
            let part = (n / local.saturating_mul(cap)).clamp(1, CPU_PART_MAX);
            (local * part, local + 1)
        }
        false if local > 1024 => {
            return Err(Error::DimsMismatch {
                what: "nuwork!: the work-group of a scan on a GPU".into(),
                expected: "at most 1024 work-items (32 warps of 32, whose totals one warp scans)"
                    .into(),
                found: format!("{local} work-items; give the nuwork! a smaller group size"),
            })
        }
        false => {
            let bytes = sizes.iter().sum::<usize>().max(1);
            let cap = GPU_TILE_CAP.load(Ordering::Relaxed);
            let fit = prev_power_of_two(GPU_TILE_BYTES / bytes).min(cap);
            let tile = fit.max(local.next_power_of_two());
            // The tile with a word of padding every 32, its prefix, the warps' totals, a
            // scratch element per work-item (`emit/cl/rowscan.rs`).
            let slots = tile + tile / 32 + 33 + local;
            // And the ticket's and the look-back window's two words.
            let need = (bytes * slots + 8) as u64;
            if need > dev.info().local_memory {
                return Err(Error::DimsMismatch {
                    what: "nuwork!: the local memory of a scan's tile".into(),
                    expected: format!("at most {} bytes, the device's local memory", dev.info().local_memory),
                    found: format!("{need} bytes for {} scan variables of {bytes} bytes in all, in groups of {local}; give the nuwork! a smaller group size or fewer scan variables", sizes.len()),
                });
            }
            (tile, slots)
        }
    };
    let tiles = n.div_ceil(tile);
    // A CPU's groups take one tile each (the kernel says why); a GPU's loop over theirs.
    let groups = match dev.info().kind == DeviceKind::Cpu {
        true => tiles,
        false => tiles.min(cap),
    };
    Ok(ScanTiling {
        tile,
        tiles,
        slots,
        groups,
        local,
    })
}

/// The largest power of two at most `x` (1 for 0).
fn prev_power_of_two(x: usize) -> usize {
    match x {
        0 | 1 => 1,
        _ => 1 << (usize::BITS - 1 - x.leading_zeros()),
    }
}

/// The bytes of `T` as kernels hold it.
pub fn dev_size<T: Reduce>(_like: &T) -> usize {
    size_of::<T::Dev>()
}

/// One scan variable's tiles: their aggregates (which also give the contributions' total)
/// and inclusive prefixes, written by the launch.
pub struct ScanTiles<T: Reduce> {
    op: RedOp,
    start: T,
    tiles: usize,
    slots: usize,
    /// Two 32-bit words per tile, the value's bytes first (the kernel writes them by
    /// atomics where other groups read them; the packed look-back reads its own words, and
    /// writes these for the host alone, plainly).
    aggregates: NuArray1<u32>,
    /// The same; or, where a GPU's look-back packs a tile's state and value into one 64-bit
    /// word (`nuda-transforms`' `emit/cl/packed.rs`), that word, whose state 0 (nothing yet)
    /// needs the zeros `NuArray1::new` starts with.
    inclusive: NuArray1<u32>,
}

impl<T: Reduce> ScanTiles<T> {
    /// The tiles of a launch cut as `tiling`, of a variable worth `start` before the loop.
    pub fn new(op: RedOp, start: T, tiling: &ScanTiling) -> Self {
        let n = tiling.tiles.max(1) * 2;
        ScanTiles {
            op,
            start,
            tiles: tiling.tiles,
            slots: tiling.slots,
            aggregates: NuArray1::new(n),
            inclusive: NuArray1::new(n),
        }
    }

    /// The kernel's arguments: aggregates, prefixes, identity, start, local memory.
    pub fn push<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        l.array_mut(&mut self.aggregates)
            .array_mut(&mut self.inclusive)
            .arg(T::identity(self.op).to_dev())
            .arg(self.start.to_dev())
            .local_array::<T::Dev>(self.slots)
    }

    /// Every contribution combined from the identity, the tiles' aggregates in order (as the
    /// two-pass form's group totals).
    pub fn total(&self) -> Result<T> {
        let words = self.aggregates.try_as_slice()?;
        let op = self.op;
        let mut total = T::identity(op);
        for w in words[..2 * self.tiles].chunks_exact(2) {
            total = T::combine(op, total, T::from_dev(from_words::<T::Dev>(w[0], w[1])?));
        }
        Ok(total)
    }
}

/// A value from the two words a kernel published it in: its bytes first, little-endian (as
/// every device nuda runs on).
fn from_words<D: Pod>(lo: u32, hi: u32) -> Result<D> {
    let bytes = (u64::from(lo) | u64::from(hi) << 32).to_le_bytes();
    let mut out = [D::default()];
    download(&mut out, |raw| {
        raw.copy_from_slice(&bytes[..raw.len()]);
        Ok(())
    })?;
    Ok(out[0])
}

/// The launch's ticket (element 0) and the tiles' flags (0 none yet, 1 aggregate, 2
/// inclusive prefix), all zero before it; the tile size; every how many tiles publish
/// their inclusive prefix.
pub struct ScanTickets {
    flags: NuArray1<u32>,
    tile: u64,
    every: u32,
}

impl ScanTickets {
    /// Zeroed tickets and flags for `tiling`.
    pub fn new(tiling: &ScanTiling) -> Self {
        ScanTickets {
            flags: NuArray1::new(tiling.tiles.saturating_add(1)),
            tile: tiling.tile as u64,
            every: EVERY.load(Ordering::Relaxed),
        }
    }

    /// The kernel's arguments: the flags, the tile size, the publishing stride, the
    /// ticket's and the look-back window's local slots.
    pub fn push<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        l.array_mut(&mut self.flags)
            .arg(self.tile)
            .arg(self.every)
            .local_array::<u32>(2)
    }
}
