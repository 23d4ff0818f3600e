//! Buffers and waits for MPI's non-blocking calls (layer 5, see `dist/mod.rs`): the halo
//! exchange's messages and the collective steps are posted with the `mpi` crate's static
//! scope, whose buffers must outlive the call, and completed by polling with a deadline, so
//! that a rank that died (when Open MPI did not end the job) is an `Err`, not a hang.

use super::comm::dist_error;
use crate::error::Result;
use mpi::request::Request;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// A heap buffer lent to MPI. It is freed on drop only once marked [`Held::done`] (every
/// request that used it complete); otherwise it is leaked, which is safe where MPI may still
/// write it.
pub(crate) struct Held<T: ?Sized> {
    ptr: *mut T,
    done: Cell<bool>,
}

impl<T: ?Sized> Held<T> {
    pub fn new(b: Box<T>) -> Self {
        Held {
            ptr: Box::into_raw(b),
            done: Cell::new(false),
        }
    }

    /// The buffer for one request.
    ///
    /// # Safety
    /// Lend it to one request at a time, and use [`Held::read`] only once that request is
    /// complete.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn lend(&self) -> &'static mut T {
        // SAFETY: `ptr` is a live allocation from `Box::into_raw`, freed only on drop after
        // `done`; the caller lends it to one request at a time.
        unsafe { &mut *self.ptr }
    }

    /// The buffer's contents.
    ///
    /// # Safety
    /// Every request it was lent to is complete.
    pub unsafe fn read(&self) -> &T {
        // SAFETY: as in `lend`; no request holds it any more.
        unsafe { &*self.ptr }
    }

    /// Every request that used the buffer is complete: drop may free it.
    pub fn done(&self) {
        self.done.set(true);
    }
}

impl<T: ?Sized> Drop for Held<T> {
    fn drop(&mut self) {
        if self.done.get() {
            // SAFETY: from `Box::into_raw` in `new`, and no request uses it any more.
            drop(unsafe { Box::from_raw(self.ptr) });
        }
    }
}

/// When waiting for other ranks gives up: `NUDA_DIST_TIMEOUT` seconds from now (0: never),
/// 300 by default.
pub(crate) struct Deadline {
    began: Instant,
    patience: Option<Duration>,
}

impl Deadline {
    pub fn new() -> Self {
        let secs = std::env::var("NUDA_DIST_TIMEOUT")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(300);
        Deadline {
            began: Instant::now(),
            patience: (secs > 0).then(|| Duration::from_secs(secs)),
        }
    }

    fn passed(&self) -> bool {
        self.patience.is_some_and(|p| self.began.elapsed() > p)
    }

    /// The error of a wait that ran out of patience, `during` what, for `whom`.
    pub fn error(&self, during: &str, whom: &str) -> crate::error::Error {
        dist_error(during, format!("{whom} did not answer within {} s: a rank may have died, or be stuck before the matching call (every rank must make the same collective calls in the same order); when a rank dies, Open MPI's mpirun normally ends the whole job; raise NUDA_DIST_TIMEOUT (seconds, 0 for no limit) if a rank is only slow", self.began.elapsed().as_secs()))
    }
}

/// Polls `request` until it completes (`Ok`), or the deadline passes (`Err(())`, the request
/// abandoned: its buffers must stay allocated).
pub(crate) fn complete<D: ?Sized>(
    request: Request<'static, D>,
    deadline: &Deadline,
) -> std::result::Result<(), ()> {
    let mut r = request;
    loop {
        match r.test() {
            Ok(_) => return Ok(()),
            Err(again) if deadline.passed() => {
                // Its drop would panic; MPI may still use its buffers, which stay leaked.
                std::mem::forget(again);
                return Err(());
            }
            Err(again) => r = again,
        }
        std::thread::yield_now();
    }
}

/// [`complete`] as this module's `Result`, with the error `during` what, for `whom`.
pub(crate) fn complete_or<D: ?Sized>(
    request: Request<'static, D>,
    deadline: &Deadline,
    during: &str,
    whom: &str,
) -> Result<()> {
    complete(request, deadline).map_err(|()| deadline.error(during, whom))
}
