//! Launching a kernel on an AMD GPU through HIP (layer 1, the HIP backend): the parameters
//! packed as the C++ dialects declare them (`backend/c/cxx_launch.rs`, shared with CUDA),
//! timing through two events around the kernel, and the fault record zeroed before and read
//! back after it. The record and the events are the device's, made at its first launch and
//! held for the launch's length.

use super::runtime::{check, Api};
use super::{HipDevice, SourceLaunch};
use crate::backend::c::cxx_launch;
use crate::backend::c::record::RECORD_WORDS;
use crate::backend::Timing;
use crate::error::Result;
use crate::stats::{record as record_stat, Event as StatEvent};
use std::ffi::c_void;
use std::time::{Duration, Instant};

/// A device's fault record and the two events a launch is timed with.
pub(crate) struct Slot {
    record: *mut c_void,
    events: [*mut c_void; 2],
}

// SAFETY: device pointers and event handles, used only under the device's slot mutex.
unsafe impl Send for Slot {}

/// Runs `l` on `dev` and waits for it; a generated kernel's fault record is read back when
/// its program has a check compiled in.
pub(crate) fn run(dev: &HipDevice, l: &mut SourceLaunch<'_, '_>) -> Result<Timing> {
    let start = Instant::now();
    let function = dev.function(l.source, l.index, l.kernel)?;
    let api = dev.enter()?;
    let read_back = matches!(&l.source.faults, Some(info) if info.read_back);
    let mut guard = dev
        .slot
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if guard.is_none() {
        *guard = Some(new_slot(dev, api)?);
    }
    let slot = guard.as_ref().unwrap_or_else(|| unreachable!("made above"));
    let record = read_back.then_some(slot.record as u64);
    let (mut params, shared) = cxx_launch::pack(l, dev.info.index, record, 0)?;
    let (grid, block) = cxx_launch::shape(l.geometry, l.kernel)?;
    let kernel = launch(
        dev,
        api,
        function,
        (grid, block, shared),
        &mut params,
        (slot, read_back),
    );
    // The kernel may have been enqueued and written, even if it failed.
    for arg in l.args.iter_mut() {
        arg.ran(dev.info.index);
    }
    let kernel = kernel?;
    record_stat(
        Some(dev.info.index),
        StatEvent::Launch(crate::stats::nanos(kernel)),
    );
    let timing = Timing {
        kernel: Some(kernel),
        wall: start.elapsed(),
    };
    let Some(info) = l.source.faults.as_ref().filter(|_| read_back) else {
        return Ok(timing);
    };
    let mut words = [0u32; RECORD_WORDS];
    // SAFETY: the record holds RECORD_WORDS words; the kernel has finished (its event was
    // synchronised).
    let s = unsafe { (api.dtoh)(words.as_mut_ptr().cast(), slot.record, RECORD_WORDS * 4) };
    check(api, s, "reading the fault record", &dev.label)?;
    match cxx_launch::fault_of(&words, info.sites) {
        Some(r) => Err(r.error(info.label, dev.label.clone())),
        None => Ok(timing),
    }
}

/// The device's fault record and events, made once.
fn new_slot(dev: &HipDevice, api: &Api) -> Result<Slot> {
    let mut record = std::ptr::null_mut();
    let mut events = [std::ptr::null_mut(); 2];
    // SAFETY: out-parameters; the device is current. They live as long as the device.
    unsafe {
        check(
            api,
            (api.malloc)(&mut record, RECORD_WORDS * 4),
            "allocating the fault record",
            &dev.label,
        )?;
        for e in &mut events {
            check(api, (api.event_create)(e), "creating an event", &dev.label)?;
        }
    }
    Ok(Slot { record, events })
}

/// Launches `f` on the null stream between the slot's two events, zeroing the record first
/// with `read_back`, and waits; returns the kernel's time.
fn launch(
    dev: &HipDevice,
    api: &Api,
    f: *mut c_void,
    (g, b, shared): ([u32; 3], [u32; 3], usize),
    params: &mut [Vec<u8>],
    (slot, read_back): (&Slot, bool),
) -> Result<Duration> {
    let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| p.as_mut_ptr().cast()).collect();
    let [before, after] = slot.events;
    let stream = std::ptr::null_mut();
    let label = &dev.label;
    // SAFETY: `f` takes exactly these parameters, in this order and of these sizes, as the
    // dialect declared them from the same launch; `ptrs` and `params` outlive the launch,
    // which the event's synchronisation waits for. This launch alone uses the slot.
    let mut queued = || unsafe {
        if read_back {
            check(
                api,
                (api.memset)(slot.record, 0, RECORD_WORDS * 4),
                "zeroing the fault record",
                label,
            )?;
        }
        check(
            api,
            (api.event_record)(before, stream),
            "recording an event",
            label,
        )?;
        let s = (api.launch)(
            f,
            g[0],
            g[1],
            g[2],
            b[0],
            b[1],
            b[2],
            shared as u32,
            stream,
            ptrs.as_mut_ptr(),
            std::ptr::null_mut(),
        );
        check(api, s, "launching the kernel", label)?;
        check(
            api,
            (api.event_record)(after, stream),
            "recording an event",
            label,
        )?;
        check(api, (api.event_sync)(after), "running the kernel", label)
    };
    if let Err(e) = queued() {
        // Whatever was queued finishes before the slot serves another launch.
        // SAFETY: a plain wait on the current device.
        let _ = unsafe { (api.synchronize)() };
        return Err(e);
    }
    let mut ms = 0f32;
    // SAFETY: both events were recorded and have completed.
    let s = unsafe { (api.event_elapsed)(&mut ms, before, after) };
    check(api, s, "timing the kernel", label)?;
    Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
}
