//! Privatised atomics of `nuwork!` (a histogram's bins; the macros' `privatise`): whether a
//! launch gives each work-group a copy of the array in local memory, and its arguments.
//! Layer 5 of the runtime (see `backend/README.md`), with the reductions' launch.
//!
//! A copy is given where it is sound and pays: the elements are 32- or 64-bit integers, whose
//! atomics compose exactly in any order (floats would reassociate), and the copy fits in
//! `BUDGET` bytes and half the device's local memory, so that groups still share a compute
//! unit. Otherwise the kernel's atomics go to the array, as without privatisation.

use super::launch::capped_global;
use crate::device::Device;
use crate::kernel::desc::Input;
use crate::launch::Launch;

/// The largest copy a group keeps, in bytes: 8192 32-bit bins.
pub const BUDGET: usize = 32 << 10;

/// Work-groups per compute unit with privatised copies: enough to fill a GPU's compute unit
/// with groups of 256, few enough that each group counts many elements per element it adds
/// into the array.
const GROUPS_PER_UNIT: usize = 8;

/// One privatised array's arguments for one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Privatised {
    /// The bytes of the group's copy, or `None` where its atomics go to the array.
    bytes: Option<usize>,
}

impl Privatised {
    /// The decision for captured array `array` (its proof input) on `dev`.
    pub fn new(dev: &Device, array: Input) -> Privatised {
        let Input::Array(dims, rank, ty) = array else {
            return Privatised { bytes: None };
        };
        let width = match ty {
            "int" | "uint" => 4,
            "long" | "ulong" => 8,
            _ => 0,
        };
        let len: usize = dims[..rank.min(3)].iter().product();
        let room = usize::try_from(dev.info().local_memory / 2).unwrap_or(usize::MAX);
        let bytes = len.saturating_mul(width);
        let fits = width > 0 && len > 0 && bytes <= BUDGET.min(room);
        Privatised {
            bytes: fits.then_some(bytes),
        }
    }

    /// Whether the launch gives groups a copy.
    pub fn on(self) -> bool {
        self.bytes.is_some()
    }

    /// The kernel's two arguments: the flag, and local memory for the copy (8 bytes, never
    /// touched, without one: no launch takes an empty local buffer).
    pub fn push(self, l: Launch<'_>) -> Launch<'_> {
        l.arg(u32::from(self.on()))
            .local_array::<u8>(self.bytes.unwrap_or(8))
    }
}

/// The NDRange of a kernel with privatised arrays (and maybe reductions): as
/// [`reduce_global`](super::reduce_global), with fewer groups, since each group's copy costs
/// a zeroing and an atomic per element at its end.
pub fn privatised_global<const K: usize>(
    dev: &Device,
    trips: [usize; K],
    local: [usize; K],
) -> [usize; K] {
    capped_global(dev, trips, local, GROUPS_PER_UNIT)
}
