//! Launching a kernel on a CUDA device (layer 1, the CUDA backend): the parameters packed as
//! the CUDA dialect declares them, local memory as offsets into one dynamic shared buffer,
//! the block shape, timing through events, and the fault record read back, through a
//! reused slot (`slots.rs`).

use super::driver::error;
use super::slots::Slot;
use super::{CuDevice, SourceLaunch};
use crate::backend::c::cxx_launch;
use crate::backend::c::record::RECORD_WORDS;
use crate::backend::{IndexType, Timing};
use crate::error::{Error, Result};
use crate::stats::{record as record_stat, Event as StatEvent};
use cudarc::driver::result;
use cudarc::driver::sys;
use std::ffi::c_void;
use std::time::{Duration, Instant};

/// Runs `l` on `dev` and waits for it; a generated kernel's fault record is read back when
/// its program has a check compiled in. The record and the events are a reused slot's
/// (`slots.rs`): no allocation and one synchronisation per launch.
pub(crate) fn run(dev: &CuDevice, l: &mut SourceLaunch<'_, '_>) -> Result<Timing> {
    let start = Instant::now();
    let (function, moved) = dev.function(l.source, l.index, l.kernel)?;
    dev.enter()?;
    let read_back = matches!(&l.source.faults, Some(info) if info.read_back);
    let mut slot = dev.slot()?;
    let record = read_back.then_some(slot.record);
    let (params, shared) = cxx_launch::pack(l, dev.info.index, record, moved)?;
    let (grid, block) = cxx_launch::shape(l.geometry, l.kernel)?;
    let shape = Shape {
        grid,
        block,
        shared,
    };
    let kernel = launch(
        dev,
        function,
        &shape,
        params,
        l.kernel,
        (&mut slot, read_back),
    );
    // The kernel may have been enqueued and written, even if it failed.
    for arg in l.args.iter_mut() {
        arg.ran(dev.info.index);
    }
    let kernel = kernel?;
    let fault = match (read_back, l.source.faults.as_ref()) {
        (true, Some(info)) => cxx_launch::fault_of(slot.host(), info.sites),
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

/// A launch's grid, blocks and dynamic shared memory.
struct Shape {
    grid: [u32; 3],
    block: [u32; 3],
    shared: usize,
}

/// Launches `f` and waits for it; returns the kernel's time from events around it. With
/// `read_back`, the slot's record is zeroed before the kernel and copied into its host words
/// after it, on the same stream: one synchronisation (on the copy's event) waits for the
/// three.
fn launch(
    dev: &CuDevice,
    f: sys::CUfunction,
    shape: &Shape,
    mut params: Vec<Vec<u8>>,
    kernel: &str,
    (slot, read_back): (&mut Slot, bool),
) -> Result<Duration> {
    let threads = shape.block.iter().map(|&b| b as usize).product();
    let fail = |e: result::DriverError, what: &str| match (
        registers_short(f, e, threads),
        error(e, what, &dev.label),
    ) {
        (_, e @ Error::OutOfResources { .. }) => e,
        (Some(why), _) => Error::OutOfResources {
            device: dev.label.clone(),
            what: format!("launching {kernel}"),
            detail: why,
        },
        (None, Error::Backend { status_name, .. }) => Error::Launch {
            kernel: kernel.into(),
            device: dev.label.clone(),
            reason: format!("{what}: {status_name}"),
        },
        (None, e) => e,
    };
    opt_in(f, shape.shared).map_err(|(e, what)| fail(e, what))?;
    let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| p.as_mut_ptr().cast()).collect();
    let ([before, after, copied], record) = (slot.events, slot.record);
    let stream = std::ptr::null_mut();
    let (g, b) = (shape.grid, shape.block);
    // SAFETY: `f` takes exactly these parameters, in this order and of these sizes, as the
    // dialect declared them from the same launch; `ptrs` and `params` outlive the launch,
    // which the last event's synchronisation waits for. The record holds RECORD_WORDS words
    // and the host words as many, pinned; this launch alone uses the slot.
    let r = unsafe {
        let zero = match read_back {
            true => result::memset_d8_async(record, 0, RECORD_WORDS * 4, stream),
            false => Ok(()),
        };
        zero.and_then(|()| result::event::record(before, stream))
            .and_then(|()| {
                let (grid, block) = ((g[0], g[1], g[2]), (b[0], b[1], b[2]));
                result::launch_kernel(f, grid, block, shape.shared as u32, stream, &mut ptrs)
            })
            .and_then(|()| result::event::record(after, stream))
            .and_then(|()| match read_back {
                true => result::memcpy_dtoh_async(slot.host(), record, stream)
                    .and_then(|()| result::event::record(copied, stream)),
                false => Ok(()),
            })
            .and_then(|()| result::event::synchronize(if read_back { copied } else { after }))
    };
    if let Err(e) = r {
        // Whatever was queued has finished, or the context is lost (a sticky error), before
        // the slot serves another launch.
        let _ = result::ctx::synchronize();
        return Err(fail(e, "running the kernel"));
    }
    // SAFETY: both events were recorded and have completed.
    let ms = unsafe { result::event::elapsed(before, after) }
        .map_err(|e| fail(e, "timing the kernel"))?;
    Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
}

/// Why a launch of `threads` work-items that failed with `e` could not have run, where the
/// kernel's registers are the reason: a group of a run-time size gets a kernel compiled for
/// any group, whose registers may not fit 1,024 work-items (`NU_BOUNDS` bounds literal ones).
fn registers_short(f: sys::CUfunction, e: result::DriverError, threads: usize) -> Option<String> {
    if e.0 != sys::CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES {
        return None;
    }
    let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS;
    // SAFETY: `f` is a live function of a loaded module.
    let registers = unsafe { result::function::get_function_attribute(f, attr) }.ok()?;
    let fits = most_threads(registers.max(1) as u32);
    (threads > fits).then(|| too_many_registers(registers as u32, threads))
}

/// The most work-items a block of a kernel of `registers` registers each may have: an SM has
/// 65,536, allocated a warp at a time in units of 256 (every architecture since sm_50).
pub(crate) fn most_threads(registers: u32) -> usize {
    let per_warp = (registers.max(1) * 32).div_ceil(256) * 256;
    ((65_536 / per_warp) as usize * 32).min(1024)
}

/// What to do about a group of `threads` whose kernel takes `registers` registers each.
pub(crate) fn too_many_registers(registers: u32, threads: usize) -> String {
    format!(
        "the kernel takes {registers} registers a work-item, and a group of {threads} would need more than the 65,536 a multiprocessor has; a group of at most {} fits: use a smaller group, or, for a `nuwork!`, write its group sizes as integer literals (its kernels are then compiled for that group)",
        most_threads(registers)
    )
}

/// Past 48 KiB of shared memory in all, a kernel must opt in to its dynamic shared memory.
/// Only a launch with dynamic shared memory may need it: the others skip the driver call.
fn opt_in(
    f: sys::CUfunction,
    shared: usize,
) -> std::result::Result<(), (result::DriverError, &'static str)> {
    if shared == 0 {
        return Ok(());
    }
    let size = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
    // SAFETY: `f` is a live function of a loaded module.
    let declared = unsafe { result::function::get_function_attribute(f, size) }
        .map_err(|e| (e, "reading the kernel's shared memory"))?;
    if declared.max(0) as usize + shared <= 48 << 10 {
        return Ok(());
    }
    let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    // SAFETY: `f` is a live function of a loaded module.
    unsafe { result::function::set_function_attribute(f, attr, shared as i32) }
        .map_err(|e| (e, "allowing the kernel's shared memory"))
}

impl CuDevice {
    /// The mean wall time of `reps` launches of an empty kernel, each `cuLaunchKernel` then
    /// `cuStreamSynchronize` and nothing else: what nuda's launch is compared with.
    pub(crate) fn raw_launch(&self, reps: usize) -> Result<Duration> {
        let (f, _) = self.function(&crate::backend::source::RAW_NOP, IndexType::U32, "nop")?;
        self.enter()?;
        let mut n = 1u32;
        let mut ptrs: Vec<*mut c_void> = vec![(&mut n as *mut u32).cast()];
        let stream = std::ptr::null_mut();
        let fail = |e| error(e, "a raw launch", &self.label);
        let mut once = || {
            // SAFETY: `nop` takes one 32-bit index, which `ptrs` points to, alive until the
            // synchronisation returns.
            unsafe {
                result::launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, stream, &mut ptrs)
                    .and_then(|()| result::stream::synchronize(stream))
            }
            .map_err(fail)
        };
        once()?;
        let start = Instant::now();
        for _ in 0..reps {
            once()?;
        }
        Ok(start.elapsed() / reps.max(1) as u32)
    }
}
