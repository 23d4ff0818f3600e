//! Launching a kernel on a CUDA device (layer 1, the CUDA backend): the parameters packed as
//! the CUDA dialect declares them, local memory as offsets into one dynamic shared buffer,
//! the block shape, timing through events, and the fault record read back.

use super::driver::error;
use super::{CuDevice, SourceLaunch};
use crate::backend::c::record::{decode, RECORD_WORDS};
use crate::backend::{Arg, Geometry, IndexType, Timing};
use crate::error::{Error, Result};
use crate::stats::{record as record_stat, Event as StatEvent};
use cudarc::driver::result;
use cudarc::driver::sys;
use std::ffi::c_void;
use std::time::{Duration, Instant};

/// Runs `l` on `dev` and waits for it; a generated kernel's fault record is read back when
/// its program has a check compiled in.
pub(crate) fn run(dev: &CuDevice, l: &mut SourceLaunch<'_, '_>) -> Result<Timing> {
    let start = Instant::now();
    let (function, moved) = dev.function(l.source, l.index, l.kernel)?;
    dev.enter()?;
    let record = match &l.source.faults {
        Some(info) if info.read_back => Some(dev.record()?),
        _ => None,
    };
    let (params, shared) = pack(dev, l, record.as_ref().map(|r| r.0), moved)?;
    let (grid, block) = shape(l.geometry, l.kernel)?;
    let kernel = launch(dev, function, grid, block, shared, params, l.kernel);
    // The kernel may have been enqueued and written, even if it failed.
    for arg in l.args.iter_mut() {
        arg.ran(dev.info.index);
    }
    let kernel = kernel?;
    let fault = match (record, l.source.faults.as_ref()) {
        (Some(r), Some(info)) => dev.read_record(r, info.sites)?,
        _ => None,
    };
    let timing = Timing {
        kernel: Some(kernel),
        wall: start.elapsed(),
    };
    record_stat(
        Some(dev.info.index),
        StatEvent::Launch(crate::stats::nanos(kernel)),
    );
    match (fault, l.source.faults.as_ref()) {
        (Some(r), Some(info)) => Err(r.error(info.label, dev.label.clone())),
        _ => Ok(timing),
    }
}

/// A fault record: 16 words of device memory.
pub(crate) struct Record(pub sys::CUdeviceptr);

impl CuDevice {
    /// A zeroed fault record.
    fn record(&self) -> Result<Record> {
        let bytes = RECORD_WORDS * 4;
        let e = |e| error(e, "allocating a fault record", &self.label);
        // SAFETY: a fresh allocation, zeroed here and freed in `read_record`.
        let p = unsafe { result::malloc_sync(bytes) }.map_err(e)?;
        // SAFETY: `p` holds `bytes` bytes.
        unsafe { result::memset_d8_sync(p, 0, bytes) }.map_err(e)?;
        Ok(Record(p))
    }

    /// The fault `r` holds, if any; frees it.
    fn read_record(
        &self,
        r: Record,
        sites: &[&'static crate::fault::Site],
    ) -> Result<Option<crate::fault::Record>> {
        let mut words = [0u32; RECORD_WORDS];
        // SAFETY: the record holds RECORD_WORDS words; the kernel has finished (the launch
        // synchronised on its end event).
        let read = unsafe { result::memcpy_dtoh_sync(&mut words[..], r.0) };
        // SAFETY: allocated by `record` and freed once, here.
        let _ = unsafe { result::free_sync(r.0) };
        read.map_err(|e| error(e, "reading the fault record", &self.label))?;
        Ok(if words[0] == 0 {
            None
        } else {
            decode(&words, sites)
        })
    }
}

/// The parameters' bytes, in order, and the dynamic shared memory the launch needs: the
/// `moved` bytes of the kernel's own arrays first, then each local argument.
fn pack(
    dev: &CuDevice,
    l: &SourceLaunch<'_, '_>,
    record: Option<sys::CUdeviceptr>,
    moved: usize,
) -> Result<(Vec<Vec<u8>>, usize)> {
    let index = l.index;
    let mut out = Vec::new();
    if l.source.faults.is_some() {
        // A program whose checks are compiled out gets a null record.
        out.push(record.unwrap_or(0).to_ne_bytes().to_vec());
    }
    let mut shared = moved;
    for arg in l.args.iter() {
        match arg {
            Arg::Scalar(bytes) => out.push(bytes.clone()),
            Arg::Index(v) => out.push(index_bytes(*v, index)),
            Arg::SIndex(v) => out.push(index_bytes(*v as u64, index)),
            Arg::Local(bytes) => {
                // The dialect made each local pointer a `uint` offset into one buffer.
                shared = shared.next_multiple_of(16);
                out.push((shared as u32).to_ne_bytes().to_vec());
                shared += bytes;
            }
            _ => memory(dev, arg, index, &mut out)?,
        }
    }
    Ok((out, shared))
}

/// An array's pointer and dims, or an image's descriptor (`memory.rs`).
fn memory(dev: &CuDevice, arg: &Arg<'_>, index: IndexType, out: &mut Vec<Vec<u8>>) -> Result<()> {
    let handle = arg
        .prepare(dev.info.index)
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
fn shape(geo: &Geometry, kernel: &str) -> Result<([u32; 3], [u32; 3])> {
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

/// Launches `f` and waits for it; returns the kernel's time from events around it.
fn launch(
    dev: &CuDevice,
    f: sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared: usize,
    mut params: Vec<Vec<u8>>,
    kernel: &str,
) -> Result<Duration> {
    let fail = |e, what: &str| match error(e, what, &dev.label) {
        e @ Error::OutOfResources { .. } => e,
        Error::Backend { status_name, .. } => Error::Launch {
            kernel: kernel.into(),
            device: dev.label.clone(),
            reason: format!("{what}: {status_name}"),
        },
        e => e,
    };
    // Only a launch with dynamic shared memory may need the opt-in: the others skip the
    // driver call, on every launch's path.
    let declared = if shared == 0 {
        0
    } else {
        // SAFETY: `f` is a live function of a loaded module.
        unsafe {
            result::function::get_function_attribute(
                f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            )
        }
        .map_err(|e| fail(e, "reading the kernel's shared memory"))?
    };
    if declared.max(0) as usize + shared > 48 << 10 {
        // Past 48 KiB in all, a kernel must opt in to its dynamic shared memory.
        let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        // SAFETY: `f` is a live function of a loaded module.
        unsafe { result::function::set_function_attribute(f, attr, shared as i32) }
            .map_err(|e| fail(e, "allowing the kernel's shared memory"))?;
    }
    let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| p.as_mut_ptr().cast()).collect();
    let events = Events::new().map_err(|e| fail(e, "creating timing events"))?;
    let stream = std::ptr::null_mut();
    // SAFETY: `f` takes exactly these parameters, in this order and of these sizes, as the
    // dialect declared them from the same launch; `ptrs` and `params` outlive the launch,
    // which the end event's synchronisation waits for.
    let r = unsafe {
        result::event::record(events.0, stream)
            .and_then(|()| {
                result::launch_kernel(
                    f,
                    (grid[0], grid[1], grid[2]),
                    (block[0], block[1], block[2]),
                    shared as u32,
                    stream,
                    &mut ptrs,
                )
            })
            .and_then(|()| result::event::record(events.1, stream))
            .and_then(|()| result::event::synchronize(events.1))
    };
    r.map_err(|e| fail(e, "running the kernel"))?;
    // SAFETY: both events were recorded and have completed.
    let ms = unsafe { result::event::elapsed(events.0, events.1) }
        .map_err(|e| fail(e, "timing the kernel"))?;
    Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
}

/// Two events around a launch, destroyed when dropped.
struct Events(sys::CUevent, sys::CUevent);

impl Events {
    fn new() -> std::result::Result<Events, result::DriverError> {
        let flags = sys::CUevent_flags::CU_EVENT_DEFAULT;
        let a = result::event::create(flags)?;
        match result::event::create(flags) {
            Ok(b) => Ok(Events(a, b)),
            Err(e) => {
                // SAFETY: created above and not used since.
                let _ = unsafe { result::event::destroy(a) };
                Err(e)
            }
        }
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        // SAFETY: both were created by `new` and are destroyed once, here.
        unsafe {
            let _ = result::event::destroy(self.0);
            let _ = result::event::destroy(self.1);
        }
    }
}
