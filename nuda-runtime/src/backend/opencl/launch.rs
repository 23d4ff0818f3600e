//! Setting a kernel's arguments, enqueueing it and waiting for it. Arrays are prepared
//! (allocated, uploaded if stale) as their arguments are set, and arrays the kernel may write
//! are marked valid on this device alone once it has run.

use super::memory::from_handle;
use super::{ClDevice, SourceLaunch};
use crate::backend::{Arg, Geometry, IndexType, Timing};
use crate::error::{Error, Result};
use crate::stats::{record as record_stat, Event as StatEvent};
use opencl3::event::Event;
use opencl3::kernel::{set_kernel_arg, Kernel};
use opencl3::memory::cl_mem;
use std::ffi::c_void;
use std::time::{Duration, Instant};

/// Runs `l` on `dev` and waits for the kernel to complete; a generated kernel's fault record
/// is read back with its completion, in the same wait, when its program has a check compiled
/// in.
pub(crate) fn enqueue(dev: &ClDevice, l: &mut SourceLaunch<'_, '_>) -> Result<Timing> {
    let start = Instant::now();
    let ctx = dev.context()?;
    // A program whose checks the proof compiled out never writes its record: it gets a null
    // one (which OpenCL allows for a buffer argument), and no read-back follows.
    let mut record = match &l.source.faults {
        Some(info) if info.read_back => Some(ctx.faults.lease(dev)?),
        _ => None,
    };
    let arg = match (&record, &l.source.faults) {
        (Some(r), _) => Some(r.raw()),
        (None, Some(_)) => Some(std::ptr::null_mut()),
        (None, None) => None,
    };
    let event = launch(dev, l, arg)?;
    // The record's read queued behind the kernel: waiting for it waits for both.
    let fetched = record.as_mut().map(|r| r.fetch(dev));
    event
        .wait()
        .map_err(|e| failed(dev, l.kernel, e.0, "the kernel failed while running"))?;
    let timing = finish(dev, &event, start);
    let fault = match (fetched, &mut record, l.source.faults.as_ref()) {
        (Some(fetched), Some(r), Some(info)) => {
            fetched?;
            r.fault(dev, info.sites)
        }
        _ => None,
    };
    match (fault, l.source.faults.as_ref()) {
        (Some(r), Some(info)) => Err(r.error(info.label, dev.label.clone())),
        _ => Ok(timing),
    }
}

/// Builds (or finds) the program, sets the arguments (the fault record first, if any) and
/// enqueues the kernel. Arrays it may write are marked written on this device.
fn launch(dev: &ClDevice, l: &mut SourceLaunch<'_, '_>, record: Option<cl_mem>) -> Result<Event> {
    let built = dev.program(l.source, l.index, l.kernel)?;
    let event = built.with_kernel(dev, l.kernel, |k| {
        check_arity(dev, k, l)?;
        if let Some(r) = record {
            // A null handle passes a null pointer (see `enqueue`).
            set_value(dev, k, l.kernel, 0, Value::Bytes(&handle(r)))?;
        }
        set_args(dev, k, l, u32::from(record.is_some()))?;
        submit(dev, k, l.geometry, l.kernel)
    })?;
    // The kernel was enqueued and may have written, even if it fails while running.
    for arg in l.args.iter_mut() {
        arg.ran(dev.index);
    }
    Ok(event)
}

/// The launch's timing, counted in the statistics.
fn finish(dev: &ClDevice, event: &Event, start: Instant) -> Timing {
    let timing = Timing {
        kernel: kernel_time(event),
        wall: start.elapsed(),
    };
    let nanos = crate::stats::nanos(timing.kernel.unwrap_or(timing.wall));
    record_stat(Some(dev.index), StatEvent::Launch(nanos));
    timing
}

fn failed(dev: &ClDevice, kernel: &str, code: i32, what: &str) -> Error {
    match super::cl_error(code, what, &dev.label) {
        e @ Error::OutOfResources { .. } => e,
        _ => Error::Launch {
            kernel: kernel.into(),
            device: dev.label.clone(),
            reason: format!("{what}: {} ({code})", super::code_name(code)),
        },
    }
}

fn kernel_time(event: &Event) -> Option<Duration> {
    let start = event.profiling_command_start().ok()?;
    let end = event.profiling_command_end().ok()?;
    Some(Duration::from_nanos(end.saturating_sub(start)))
}

/// Kernel arguments an `Arg` takes: arrays pass a pointer plus one size per dim.
fn arity(arg: &Arg<'_>) -> usize {
    match arg {
        Arg::Mem { dims, .. } | Arg::MemMut { dims, .. } | Arg::MemShared { dims, .. } => {
            1 + dims.len()
        }
        _ => 1,
    }
}

fn check_arity(dev: &ClDevice, k: &Kernel, l: &SourceLaunch<'_, '_>) -> Result<()> {
    let record = usize::from(l.source.faults.is_some());
    let given: usize = l.args.iter().map(arity).sum::<usize>() + record;
    let declared = k
        .num_args()
        .map_err(|e| dev.error(e.0, "querying a kernel"))? as usize;
    if given == declared {
        return Ok(());
    }
    Err(Error::Launch {
        kernel: l.kernel.into(),
        device: dev.label.clone(),
        reason: format!(
            "the kernel declares {declared} parameters but the launch passes {given} \
             (each array passes a pointer followed by one nu_idx per dim)"
        ),
    })
}

/// One kernel argument's value: bytes to copy, or a local-memory size.
enum Value<'b> {
    Bytes(&'b [u8]),
    Local(usize),
}

fn set_args(dev: &ClDevice, k: &Kernel, l: &SourceLaunch<'_, '_>, mut at: u32) -> Result<()> {
    let index = l.index;
    let mut set = |v: Value<'_>| {
        set_value(dev, k, l.kernel, at, v)?;
        at += 1;
        Ok::<(), Error>(())
    };
    for arg in l.args.iter() {
        match (arg, arg.memory()) {
            (Arg::Scalar(bytes), _) => set(Value::Bytes(bytes))?,
            (Arg::Index(v), _) => set(Value::Bytes(&index_bytes(*v, index)))?,
            (Arg::SIndex(v), _) => set(Value::Bytes(&index_bytes(*v as u64, index)))?,
            (Arg::Local(bytes), _) => set(Value::Local(*bytes))?,
            (_, Some((_, dims))) => {
                let mem = arg
                    .prepare(dev.index)
                    .unwrap_or_else(|| unreachable!("memory argument"))?;
                set(Value::Bytes(&handle(from_handle(mem))))?;
                for d in dims {
                    set(Value::Bytes(&index_bytes(*d as u64, index)))?;
                }
            }
            (_, None) => unreachable!("every other argument refers to memory"),
        }
    }
    Ok(())
}

fn handle(mem: cl_mem) -> [u8; size_of::<usize>()] {
    (mem as usize).to_ne_bytes()
}

fn index_bytes(v: u64, index: IndexType) -> Vec<u8> {
    match index {
        IndexType::U32 => (v as u32).to_le_bytes().to_vec(),
        IndexType::U64 => v.to_le_bytes().to_vec(),
    }
}

fn set_value(dev: &ClDevice, k: &Kernel, name: &str, at: u32, v: Value<'_>) -> Result<()> {
    let (size, ptr) = match v {
        Value::Bytes(b) => (b.len(), b.as_ptr() as *const c_void),
        // A null value with a size is how OpenCL reserves local memory.
        Value::Local(bytes) => (bytes.max(1), std::ptr::null()),
    };
    // SAFETY: `ptr` is null or points to `size` readable bytes, which the driver copies
    // before returning.
    let r = unsafe { set_kernel_arg(k.get(), at, size, ptr) };
    r.map_err(|code| bad_arg(dev, name, at, code, size))
}

fn bad_arg(dev: &ClDevice, kernel: &str, at: u32, code: i32, size: usize) -> Error {
    Error::Launch {
        kernel: kernel.into(),
        device: dev.label.clone(),
        reason: format!(
            "parameter {at} does not accept the {size}-byte value nuda passes ({}); check its \
             type: arrays are `global T*` plus nu_idx dims, images `image2d_t`",
            super::code_name(code)
        ),
    }
}

fn submit(dev: &ClDevice, k: &Kernel, geo: &Geometry, name: &str) -> Result<Event> {
    // `Geometry`'s fields are public: the driver reads `dims` sizes from each pointer.
    let dims = geo.global.len();
    if !(1..=3).contains(&dims) || geo.local.as_ref().is_some_and(|l| l.len() != dims) {
        return Err(Error::DimsMismatch {
            what: format!("launch of `{name}`"),
            expected: "1 to 3 global sizes and as many local sizes".into(),
            found: format!("{:?} / {:?}", geo.global, geo.local),
        });
    }
    let queue = &dev.context()?.queue;
    let local = geo.local.as_ref().map_or(std::ptr::null(), |l| l.as_ptr());
    // SAFETY: the sizes point to `dims` valid values (or null for local), alive for the call;
    // every argument was set above.
    let r = unsafe {
        queue.enqueue_nd_range_kernel(
            k.get(),
            geo.global.len() as u32,
            std::ptr::null(),
            geo.global.as_ptr(),
            local,
            &[],
        )
    };
    r.map_err(|e| failed(dev, name, e.0, "enqueueing the kernel"))
}

/// The bench's raw peer of an empty launch: the bench's empty kernel, built once, then
/// `reps` times `clEnqueueNDRangeKernel` and `clFinish` and nothing else; the mean wall time.
pub(crate) fn raw_launch(dev: &ClDevice, reps: usize) -> Result<Duration> {
    let nop = &crate::backend::source::RAW_NOP;
    let built = dev.program(nop, IndexType::U32, "nop")?;
    let queue = &dev.context()?.queue;
    built.with_kernel(dev, "nop", |k| {
        set_value(dev, k, "nop", 0, Value::Bytes(&1u32.to_le_bytes()))?;
        let geo = Geometry {
            global: vec![1],
            local: None,
        };
        let once = || {
            submit(dev, k, &geo, "nop")?;
            queue
                .finish()
                .map_err(|e| failed(dev, "nop", e.0, "waiting for a raw launch"))
        };
        once()?;
        let start = Instant::now();
        for _ in 0..reps {
            once()?;
        }
        Ok(start.elapsed() / reps.max(1) as u32)
    })
}
