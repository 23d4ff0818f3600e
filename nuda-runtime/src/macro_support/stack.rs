//! A work-item's private memory, checked at launch (layer 6, the macros' support). A
//! kernel's `let`s live on the work-item's stack: PoCL runs a work-group's items on one
//! worker thread's stack, GPUs spill them to a small per-thread memory, and the native engine
//! runs them on rayon's workers, whose stacks are 2 MiB. A private array too large for that
//! crashed the process (SIGSEGV on PoCL, a stack overflow natively); the launch refuses it
//! with an error naming the array, its size and the device's limit.

use super::program::{once_per_function, Known, Nucode};
use crate::device::Device;
use crate::error::{Error, Result};

/// A `let` of a kernel: its name, the size of its type, and `file:line`.
pub type PrivateLet = (&'static str, usize, &'static str);

/// The size of a witness slot's type.
pub fn slot_bytes<T>(_: &crate::kernel::TypeSlot<T>) -> usize {
    size_of::<T>()
}

/// The private memory of a launch in work-groups of `group` work-items, against `dev`'s
/// limits: the largest kernel's `let`s, the captured private arrays (passed by value), and
/// the `let`s of every `#[nucode]` function the kernels reach (counted once each).
pub fn check_private(
    dev: &Device,
    label: &str,
    kernels: &[&[PrivateLet]],
    captured: &[(&'static str, usize)],
    calls: &[&'static Nucode],
    group: usize,
) -> Result<()> {
    let sum = |lets: &[PrivateLet]| lets.iter().map(|l| l.1 as u128).sum::<u128>();
    let main = kernels
        .iter()
        .copied()
        .max_by_key(|k| sum(k))
        .unwrap_or(&[]);
    let callees = calls.iter().map(|&c| reach_bytes(c) as u128).sum::<u128>();
    let item = sum(main) + captured.iter().map(|c| c.1 as u128).sum::<u128>() + callees;
    let info = dev.info();
    let per_group = item.saturating_mul(group.max(1) as u128);
    if item <= info.private_memory as u128 && per_group <= info.private_group_memory as u128 {
        return Ok(());
    }
    let largest = main.iter().max_by_key(|l| l.1);
    let what = match largest {
        Some((name, bytes, at)) => {
            format!("running {label}, whose private array `{name}` at {at} takes {bytes} bytes")
        }
        None => format!(
            "running {label}, whose captured arrays and functions' locals take {item} bytes"
        ),
    };
    Err(Error::OutOfResources {
        device: dev.label(),
        what,
        detail: format!(
            "a work-item's locals take {item} bytes, and this device holds at most {} bytes of private arrays per work-item{}; keep large tables in a NuArray and index it",
            info.private_memory,
            group_limit(info.private_group_memory, group),
        ),
    })
}

/// The per-group limit, where the device has one.
fn group_limit(limit: u64, group: usize) -> String {
    match limit {
        u64::MAX => String::new(),
        l => format!(" and {l} bytes per work-group (here {group} work-items)"),
    }
}

/// The `let`s of `f` and of every function it reaches, each once, once per process (each
/// function's size runs its witness).
fn reach_bytes(f: &'static Nucode) -> usize {
    static KNOWN: Known<usize> = std::sync::Mutex::new(Vec::new());
    once_per_function(&KNOWN, f, || {
        reachable(&[f]).iter().map(|n| (n.private)()).sum()
    })
}

/// Every `#[nucode]` function `calls` reach, each once.
fn reachable(calls: &[&'static Nucode]) -> Vec<&'static Nucode> {
    let mut seen: Vec<&'static Nucode> = Vec::new();
    let mut todo: Vec<&'static Nucode> = calls.to_vec();
    while let Some(n) = todo.pop() {
        if !seen.iter().any(|m| std::ptr::eq(*m, n)) {
            seen.push(n);
            todo.extend((n.calls)());
        }
    }
    seen
}
