//! Reductions of `nuwork!` (see `README.md` here): what generated code calls to launch a
//! reduction kernel and fold its per-group partials (OpenCL) or per-task partials (native
//! engine) in a fixed order. Each scalar type's identity and combination (`Reduce`) is a
//! kernel trait, in `kernel/reduction.rs`.
//! Layer 5 of the runtime (see `backend/README.md`), with the launch, below `macro_support`.

mod copies;
mod launch;
mod lookback;
mod privatise;
mod scan;
#[cfg(test)]
mod test;

pub use copies::{CopyView, NativeCopies};
pub use launch::{native_nuwork_reduce, reduce_global, Partials};
pub use lookback::{dev_size, lookback_test, scan_tiling, ScanTickets, ScanTiles, ScanTiling};
pub use privatise::{privatised_global, NativeCopy, Privatised};
pub use scan::{
    native_scan_body, native_scan_totals, push_capacity, push_guard, push_len, push_start,
    scan_global, PushCount, ScanPlan, ScanPrefixes, ScanTotals,
};

pub use crate::kernel::{combine, identity, reduce_cl_type, reduced, reduction_var, Reduce};
pub use nuda_abi::RedOp;
