//! A launch's shape, whatever backend runs it: the NDRange checked against a device's limits,
//! the index type of its sizes, and how long it took. Layer 0 of the runtime (see `README.md`
//! in this folder).

use super::info::DeviceInfo;
use crate::error::{Error, Result};
use std::time::Duration;

/// The integer type of dims and `.index()` arguments in a kernel: `nu_idx` in the prelude.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexType {
    /// `uint`: chosen whenever every size fits in 32 bits.
    U32,
    /// `ulong`: for arrays or NDRanges beyond 2^32 - 1.
    U64,
}

impl IndexType {
    /// The OpenCL C type name.
    pub fn cl_name(self) -> &'static str {
        match self {
            IndexType::U32 => "uint",
            IndexType::U64 => "ulong",
        }
    }

    /// The signed type of the same width: `nu_sidx`.
    pub fn signed_cl_name(self) -> &'static str {
        match self {
            IndexType::U32 => "int",
            IndexType::U64 => "long",
        }
    }

    /// The narrowest type that holds `max`.
    pub fn for_max(max: u64) -> IndexType {
        if max <= u64::from(u32::MAX) {
            IndexType::U32
        } else {
            IndexType::U64
        }
    }
}

/// How long a launch took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Timing {
    /// The kernel's own run time from profiling events (native engine: the parallel loop).
    pub kernel: Option<Duration>,
    /// Wall time of the whole launch, transfers and argument setting included.
    pub wall: Duration,
}

/// NDRange sizes, checked, with the global size rounded up to the work-group size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Global size per dimension, rounded up.
    pub global: Vec<usize>,
    /// Work-group size per dimension, if given.
    pub local: Option<Vec<usize>>,
}

impl Geometry {
    /// Checks the sizes against each other and against the device's limits.
    pub fn new(global: &[usize], local: Option<&[usize]>, info: &DeviceInfo) -> Result<Self> {
        let bad = |found: String, expected: &str| Error::DimsMismatch {
            what: "a launch's work sizes".into(),
            expected: expected.into(),
            found,
        };
        if !(1..=3).contains(&global.len()) {
            return Err(bad(
                format!("{} global sizes", global.len()),
                "1 to 3 global sizes",
            ));
        }
        let Some(local) = local else {
            check_group_count(global, None)?;
            return Ok(Geometry {
                global: global.to_vec(),
                local: None,
            });
        };
        if local.len() != global.len() {
            let found = format!(
                "{} local sizes for {} global sizes",
                local.len(),
                global.len()
            );
            return Err(bad(found, "one local size per global size"));
        }
        if local.contains(&0) {
            return Err(bad(
                format!("local sizes {local:?}"),
                "local sizes of at least 1",
            ));
        }
        check_group_limits(local, info)?;
        let global = round_up(global, local)?;
        check_group_count(&global, Some(local))?;
        Ok(Geometry {
            global,
            local: Some(local.to_vec()),
        })
    }

    /// Whether the NDRange holds no work-item at all.
    pub fn is_empty(&self) -> bool {
        self.global.contains(&0)
    }
}

/// Each global size rounded up to a multiple of its local size; a size that would pass
/// `usize::MAX` is an error rather than a wrapped (or, in debug builds, panicking) product.
fn round_up(global: &[usize], local: &[usize]) -> Result<Vec<usize>> {
    let up = |(g, l): (&usize, &usize)| g.div_ceil(*l).checked_mul(*l);
    global
        .iter()
        .zip(local)
        .map(up)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::DimsMismatch {
            what: "a launch's work sizes".into(),
            expected: "global sizes that round up to a multiple of the local size".into(),
            found: format!("global sizes {global:?}, local sizes {local:?}"),
        })
}

/// At most `u32::MAX` work-groups per launch, counting a work-group per work-item where the
/// driver picks the local size: PoCL numbers work-groups in 32 bits and aborts the process
/// past that, and a launch that large is better split anyway.
fn check_group_count(global: &[usize], local: Option<&[usize]>) -> Result<()> {
    let per_group = |d: usize| local.map_or(1, |l| l[d]);
    let groups = (0..global.len())
        .map(|d| global[d] / per_group(d))
        .try_fold(1u64, |t, g| t.checked_mul(g as u64));
    if groups.is_some_and(|g| g <= u32::MAX.into()) {
        return Ok(());
    }
    Err(Error::DimsMismatch {
        what: "a launch's work sizes".into(),
        expected: format!(
            "at most {} work-groups; give a larger local size or split the launch",
            u32::MAX
        ),
        found: match local {
            Some(l) => format!("global sizes {global:?} in work-groups of {l:?}"),
            None => format!("global sizes {global:?} with no local size"),
        },
    })
}

fn check_group_limits(local: &[usize], info: &DeviceInfo) -> Result<()> {
    // A product past usize::MAX is certainly past the device's limit.
    let total = local.iter().try_fold(1usize, |t, l| t.checked_mul(*l));
    let per_dim = local
        .iter()
        .zip(&info.max_work_item_sizes)
        .find(|(l, m)| l > m);
    if total.is_some_and(|t| t <= info.max_work_group_size) && per_dim.is_none() {
        return Ok(());
    }
    let total = total.map_or("more than usize::MAX".to_string(), |t| t.to_string());
    Err(Error::DimsMismatch {
        what: format!("a launch on device {} ({})", info.index, info.name),
        expected: format!(
            "a work-group of at most {} work-items, at most {:?} per dimension",
            info.max_work_group_size, info.max_work_item_sizes
        ),
        found: format!("local sizes {local:?} ({total} work-items)"),
    })
}
