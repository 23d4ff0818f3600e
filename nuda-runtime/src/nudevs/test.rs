//! Tests of `nudevs` on whatever devices this machine lists (the native engine at least).

use super::nudevs;
use crate::device::{current_device, devices};
use crate::error::Error;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Mutex;

#[test]
fn each_iteration_runs_in_its_own_thread_on_its_device() {
    let n = devices().len();
    let seen = Mutex::new(Vec::new());
    nudevs(0..n, |d| {
        assert_eq!(current_device()?.index(), d);
        let thread = std::thread::current().name().map(String::from);
        seen.lock().unwrap().push((d, thread));
        Ok(())
    })
    .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    let want: Vec<_> = (0..n)
        .map(|d| (d, Some(format!("nuda nudevs {d}"))))
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn an_error_reaches_the_caller_after_the_others_finish() {
    let n = devices().len().max(2);
    let finished = AtomicUsize::new(0);
    let r = nudevs((0..n).map(|d| d % devices().len()), |d| {
        if d == 0 {
            return Err(Error::NoDevice {
                reason: "test".into(),
            });
        }
        // The others do some work first; the error must not cut them short.
        let work: u64 = (0..200_000u64).map(|x| x % 7).sum();
        assert!(work > 0);
        finished.fetch_add(1, SeqCst);
        Ok(())
    });
    assert!(matches!(r, Err(Error::NoDevice { .. })), "{r:?}");
    let others = (0..n).filter(|d| d % devices().len() != 0).count();
    assert_eq!(finished.load(SeqCst), others);
}

#[test]
fn a_panic_reaches_the_caller_after_the_others_finish() {
    let n = devices().len();
    let finished = AtomicUsize::new(0);
    let caught = std::panic::catch_unwind(|| {
        nudevs(0..n, |d| {
            if d == n - 1 {
                panic!("iteration {d} failed");
            }
            finished.fetch_add(1, SeqCst);
            Ok(())
        })
    });
    let payload = caught.expect_err("the panic is resumed in the caller");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert_eq!(msg, format!("iteration {} failed", n - 1));
    assert_eq!(finished.load(SeqCst), n - 1);
}

#[test]
fn a_value_that_is_no_device_index_is_an_error() {
    let r = nudevs([-1i32], |_| Ok(()));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("nudevs iteration=\"-1\""), "{e}");
    let r = nudevs([devices().len() + 5], |_| Ok(()));
    assert!(matches!(r, Err(Error::BadSelection { .. })), "{r:?}");
}
