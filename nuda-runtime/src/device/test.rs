//! Tests of device ordering and of `NUDA_DEVICE` / `NUDA_ENGINE` resolution, on made-up
//! device lists so no hardware is needed.

use super::select::{kind_rank, resolve_default};
use super::{DeviceInfo, DeviceKind};
use crate::config::{DeviceChoice, EngineChoice};
use crate::Error;

/// A made-up device description.
pub(crate) fn fake(name: &str, kind: DeviceKind, index: usize) -> DeviceInfo {
    DeviceInfo {
        index,
        backend: "test",
        name: name.into(),
        vendor: "test".into(),
        kind,
        platform: "test".into(),
        driver_version: "1.0".into(),
        compute_units: 1,
        global_memory: 1 << 30,
        max_alloc: 1 << 28,
        local_memory: 1 << 15,
        constant_memory: 1 << 16,
        max_work_group_size: 256,
        max_work_item_sizes: vec![256; 3],
        fp64: true,
        images: true,
        int64_atomics: true,
        private_memory: 1 << 16,
        private_group_memory: u64::MAX,
    }
}

fn list() -> Vec<DeviceInfo> {
    let mut l = vec![
        fake("pthread-cpu", DeviceKind::Cpu, 0),
        fake("GeForce RTX", DeviceKind::Gpu, 0),
        fake("native engine", DeviceKind::Native, 0),
    ];
    l.sort_by_key(|d| kind_rank(d.kind));
    for (i, d) in l.iter_mut().enumerate() {
        d.index = i;
    }
    l
}

#[test]
fn gpus_come_first_so_the_default_is_the_first_gpu() {
    let l = list();
    assert_eq!(l[0].kind, DeviceKind::Gpu);
    assert_eq!(l[1].kind, DeviceKind::Cpu);
    assert_eq!(resolve_default(&l, EngineChoice::Auto, None).unwrap(), 0);
}

#[test]
fn nuda_device_by_index_and_by_name() {
    let l = list();
    let by = |c: DeviceChoice| resolve_default(&l, EngineChoice::Auto, Some(&c));
    assert_eq!(by(DeviceChoice::Index(1)).unwrap(), 1);
    assert_eq!(by(DeviceChoice::Name("pthread".into())).unwrap(), 1);
    assert_eq!(by(DeviceChoice::Name("geforce".into())).unwrap(), 0);
    assert_eq!(by(DeviceChoice::Name("native".into())).unwrap(), 2);
}

#[test]
fn bad_selections_are_errors_that_list_the_choices() {
    let l = list();
    let e = resolve_default(&l, EngineChoice::Auto, Some(&DeviceChoice::Index(7))).unwrap_err();
    assert!(matches!(e, Error::BadSelection { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("NUDA_DEVICE") && msg.contains("0 = GeForce RTX"),
        "{msg}"
    );
    let e = resolve_default(
        &l,
        EngineChoice::Auto,
        Some(&DeviceChoice::Name("radeon".into())),
    );
    assert!(e
        .unwrap_err()
        .to_string()
        .contains("no device name contains it"));
}

#[test]
fn opencl_engine_without_devices_is_no_device() {
    let e = resolve_default(&[], EngineChoice::OpenCl, None).unwrap_err();
    assert!(matches!(e, Error::NoDevice { .. }), "{e}");
    assert!(e.to_string().contains("NUDA_ENGINE=opencl"));
}
