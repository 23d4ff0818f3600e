//! A third backend, for tests: one device that runs kernels' native form, each launch's tasks
//! one after another in reverse order on the calling thread (so a kernel that relied on
//! rayon's order or threads would show it), counting the tasks it ran. It is registered with
//! one line, `nuda_runtime::device::register(&dummy::DUMMY)`, before any other nuda call.

use nuda_runtime::backend::{private_limits, Backend, Form, Found, Provider};
use nuda_runtime::{DeviceInfo, DeviceKind, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The provider to register.
pub static DUMMY: Dummy = Dummy;

/// Tasks the dummy device has run, over every launch.
pub static TASKS: AtomicUsize = AtomicUsize::new(0);

/// The platform name `nuda::devices()` shows for the dummy device.
pub const PLATFORM: &str = "dummy";

/// Finds the one dummy device.
pub struct Dummy;

impl Provider for Dummy {
    fn name(&self) -> &'static str {
        PLATFORM
    }

    fn form(&self) -> Form {
        Form::Native
    }

    fn devices(&self) -> std::result::Result<Vec<Found>, String> {
        let info = DeviceInfo {
            // The registry sets it from `Provider::name`.
            backend: "",
            index: 0,
            name: "dummy sequential device".into(),
            vendor: "nuda tests".into(),
            kind: DeviceKind::Accelerator,
            platform: PLATFORM.into(),
            driver_version: "1".into(),
            compute_units: 1,
            global_memory: 1 << 30,
            max_alloc: 1 << 30,
            local_memory: 1 << 16,
            constant_memory: 1 << 16,
            max_work_group_size: 1024,
            max_work_item_sizes: vec![1024; 3],
            fp64: true,
            images: true,
            int64_atomics: true,
            private_memory: private_limits(DeviceKind::Native).0,
            private_group_memory: u64::MAX,
        };
        Ok(vec![Found {
            info,
            open: Box::new(|info| Arc::new(DummyDevice { info })),
        }])
    }
}

/// The dummy device.
struct DummyDevice {
    info: DeviceInfo,
}

impl Backend for DummyDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn form(&self) -> Form {
        Form::Native
    }

    fn run_tasks(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) -> Result<Duration> {
        let start = Instant::now();
        for t in (0..tasks).rev() {
            task(t);
        }
        TASKS.fetch_add(tasks, Ordering::Relaxed);
        Ok(start.elapsed())
    }
}

/// The dummy device's index in `nuda::devices()`.
pub fn index() -> usize {
    let listed = nuda_runtime::devices();
    let found = listed.iter().find(|d| d.platform == PLATFORM);
    found
        .map(|d| d.index)
        .expect("the dummy backend was registered")
}
