//! Large transfers through the OpenCL backend's pinned slots (`backend/opencl/staging.rs`),
//! on a real OpenCL device: `NUDA_CL_PINNED=1` stages on PoCL's CPU device too, so the
//! two-slot pipeline runs here with real driver calls. Every byte must arrive, at every
//! offset, and the counters must say the transfers were staged (or, with `0`, that none was).

mod common;

use common::{child, is_child, opencl, probe};
use nuda_runtime::backend::Layout;
use nuda_runtime::{thread_stats, Device, DeviceKind};

/// The first OpenCL device: `common::opencl` takes the first device that is not the native
/// engine, which on a machine with a CUDA GPU is that GPU (CUDA does not count staged
/// transfers; `NUDA_ENGINE` picks the default device, not the list). Seen on the H200.
fn opencl_device() -> Option<Device> {
    let found = nuda_runtime::devices()
        .into_iter()
        .find(|d| d.backend == "OpenCL");
    match found {
        Some(info) => Some(nuda_runtime::device(info.index).expect("listed device")),
        None => opencl(),
    }
}

/// Three chunks of 8 MiB and an odd tail: two slots each reused, a short last chunk.
const LEN: usize = 3 * (8 << 20) + 4099;

fn pattern(len: usize, seed: usize) -> Vec<u8> {
    (0..len).map(|i| ((i * 131 + seed) % 251) as u8).collect()
}

/// Whole and partial uploads and downloads of one buffer; prints how many were staged.
#[test]
fn child_moves_large_buffers_whole_and_in_part() {
    if !is_child() {
        return;
    }
    let Some(dev) = opencl_device() else { return };
    let b = dev.backend();
    let before = thread_stats();
    let data = pattern(LEN, 0);
    let mut buf = b.alloc(LEN, Layout::Buffer).unwrap();
    b.upload(&mut *buf, &data).unwrap();
    let mut out = vec![0u8; LEN];
    b.download(&*buf, &mut out).unwrap();
    assert!(out == data, "a whole round trip changed bytes");
    // Offsets that are no multiple of anything, so each chunk lands off the slots' grain.
    let part = pattern(LEN - 1000, 7);
    b.upload_at(&mut *buf, 777, &part).unwrap();
    let mut want = data.clone();
    want[777..777 + part.len()].copy_from_slice(&part);
    let mut got = vec![0u8; LEN - 333];
    b.download_at(&*buf, 333, &mut got).unwrap();
    assert!(got == want[333..], "a partial round trip changed bytes");
    let staged = (thread_stats() - before).staged;
    println!("PROBE staged={}", staged.count);
    println!("PROBE staged_bytes={}", staged.bytes);
}

/// The children run on the first OpenCL device (`opencl_device`); by default only a GPU or
/// an accelerator stages.
#[test]
fn large_transfers_are_staged_exactly_when_asked_and_every_byte_arrives() {
    if is_child() || opencl().is_none() {
        return;
    }
    let found = nuda_runtime::devices()
        .into_iter()
        .find(|d| d.backend == "OpenCL");
    let Some(info) = found else { return };
    let gpu = matches!(info.kind, DeviceKind::Gpu | DeviceKind::Accelerator);
    let name = "child_moves_large_buffers_whole_and_in_part";
    let bytes = 2 * LEN + (LEN - 1000) + (LEN - 333);
    for (scope, staged) in [("1", true), ("auto", gpu), ("0", false)] {
        let out = child(
            name,
            &[("NUDA_CL_PINNED", scope), ("NUDA_ENGINE", "opencl")],
        );
        let (count, total) = if staged { (4, bytes) } else { (0, 0) };
        let got = probe(&out, "staged");
        assert_eq!(got, count.to_string(), "NUDA_CL_PINNED={scope}");
        assert_eq!(probe(&out, "staged_bytes"), total.to_string());
    }
}

/// A bad value is an error at the first transfer that would consult it, naming the variable.
#[test]
fn child_reports_a_bad_pinned_value() {
    if !is_child() {
        return;
    }
    let Some(dev) = opencl_device() else { return };
    let b = dev.backend();
    let mut buf = b.alloc(LEN, Layout::Buffer).unwrap();
    let e = b
        .upload(&mut *buf, &pattern(LEN, 1))
        .unwrap_err()
        .to_string();
    println!("PROBE error={e}");
}

#[test]
fn a_bad_pinned_value_is_an_error_naming_the_variable() {
    if is_child() || opencl().is_none() {
        return;
    }
    let out = child(
        "child_reports_a_bad_pinned_value",
        &[("NUDA_CL_PINNED", "gpu"), ("NUDA_ENGINE", "opencl")],
    );
    let e = probe(&out, "error");
    assert!(e.contains("NUDA_CL_PINNED") && e.contains("auto"), "{e}");
}
