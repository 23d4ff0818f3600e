//! A launch of a C++ dialect's kernel (layer 1, shared by the CUDA and HIP backends): the
//! parameters packed as the dialect's marks declared them (`cxx.rs`: a `local` parameter
//! is a `uint` offset into the one dynamic shared buffer), the grid of blocks, and the
//! fault record's words read.

use super::record::{decode, RECORD_WORDS};
use crate::backend::{Arg, Geometry, IndexType, SourceLaunch};
use crate::error::{Error, Result};

/// The parameters' bytes, in order, and the dynamic shared memory the launch needs: the
/// `moved` bytes of the kernel's own arrays first, then each local argument. `record` is
/// the fault record's device address (a program whose checks are compiled out gets null).
pub(crate) fn pack(
    l: &SourceLaunch<'_, '_>,
    device: usize,
    record: Option<u64>,
    moved: usize,
) -> Result<(Vec<Vec<u8>>, usize)> {
    let index = l.index;
    let mut out = Vec::new();
    if l.source.faults.is_some() {
        out.push(record.unwrap_or(0).to_ne_bytes().to_vec());
    }
    let mut shared = moved;
    for arg in l.args.iter() {
        match arg {
            Arg::Scalar(bytes) => out.push(bytes.clone()),
            Arg::Index(v) => out.push(index_bytes(*v, index)),
            Arg::SIndex(v) => out.push(index_bytes(*v as u64, index)),
            Arg::Local(bytes) => {
                shared = shared.next_multiple_of(16);
                out.push((shared as u32).to_ne_bytes().to_vec());
                shared += bytes;
            }
            _ => memory(arg, device, index, &mut out)?,
        }
    }
    Ok((out, shared))
}

/// An array's pointer and dims, or an image's descriptor.
fn memory(arg: &Arg<'_>, device: usize, index: IndexType, out: &mut Vec<Vec<u8>>) -> Result<()> {
    let handle = arg
        .prepare(device)
        .unwrap_or_else(|| unreachable!("memory argument"))?;
    out.push(handle.to_ne_bytes().to_vec());
    for d in arg.memory().map(|(_, dims)| dims).unwrap_or(&[]) {
        out.push(index_bytes(*d as u64, index));
    }
    Ok(())
}

fn index_bytes(v: u64, index: IndexType) -> Vec<u8> {
    match index {
        IndexType::U32 => (v as u32).to_ne_bytes().to_vec(),
        IndexType::U64 => v.to_ne_bytes().to_vec(),
    }
}

/// Blocks and threads per block. With no work-group size given, each dimension's block is
/// the largest divisor of its size that keeps the block within 256 threads, so the grid
/// covers exactly the global size, as OpenCL's does.
pub(crate) fn shape(geo: &Geometry, kernel: &str) -> Result<([u32; 3], [u32; 3])> {
    let dims = geo.global.len();
    if !(1..=3).contains(&dims) || geo.local.as_ref().is_some_and(|l| l.len() != dims) {
        return Err(Error::DimsMismatch {
            what: format!("launch of `{kernel}`"),
            expected: "1 to 3 global sizes and as many local sizes".into(),
            found: format!("{:?} / {:?}", geo.global, geo.local),
        });
    }
    let (mut grid, mut block) = ([1u32; 3], [1u32; 3]);
    let mut room = 256usize;
    for d in 0..dims {
        let g = geo.global[d];
        let b = match &geo.local {
            Some(l) => l[d],
            None => (1..=room.min(g))
                .rev()
                .find(|b| g.is_multiple_of(*b))
                .unwrap_or(1),
        };
        room = (room / b.max(1)).max(1);
        block[d] = b as u32;
        grid[d] = (g / b.max(1)) as u32;
    }
    Ok((grid, block))
}

/// The fault the record's words hold, if any.
pub(crate) fn fault_of(
    words: &[u32],
    sites: &[&'static crate::fault::Site],
) -> Option<crate::fault::Record> {
    let words: &[u32; RECORD_WORDS] = words.try_into().ok()?;
    match words[0] {
        0 => None,
        _ => decode(words, sites),
    }
}
