//! The opt-out of bounds checks. It needs an `unsafe` block at the call site, which rustc
//! enforces: `#[unchecked]` in `nuwork!` and `nucall!` expands to a call of the `unsafe fn`
//! [`skip_bounds_checks`], and [`unchecked`] is itself an `unsafe fn`.

use std::cell::Cell;

thread_local! {
    /// How many `unchecked` scopes this thread is in.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// The contract of `#[unchecked]` in `nuwork!` and `nucall!`, which call this function so that
/// rustc asks for an `unsafe` block around them. It does nothing itself.
///
/// Without `#[unchecked]`, every array index and image write coordinate a kernel evaluates is
/// checked against the dims where the launch-time proof cannot show it in range, and an
/// out-of-range access touches no memory and makes the launch return
/// [`Error::Kernel`](crate::Error::Kernel). With it, the bounds checks are left out, on
/// OpenCL devices and on the native engine alike.
///
/// # Safety
///
/// The caller promises that every array index and every image write coordinate the kernel
/// evaluates is within the dims of its array or image. An access outside them reads or writes
/// memory that belongs to something else: undefined behaviour, which may corrupt other arrays,
/// the driver's state or the host process. Division by zero and
/// zero loop steps are still checked.
pub unsafe fn skip_bounds_checks() {}

/// Runs `f` with the bounds checks of every kernel it launches on this thread left out, as
/// if each `nuwork!` and `nucall!` in it said `#[unchecked]`. Benches use it to measure what
/// the checks cost.
///
/// # Safety
///
/// The contract of [`skip_bounds_checks`], for every kernel `f` launches on this thread.
pub unsafe fn unchecked<R>(f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            DEPTH.with(|d| d.set(d.get() - 1));
        }
    }
    DEPTH.with(|d| d.set(d.get() + 1));
    let _leave = Leave;
    f()
}

/// Whether this thread is inside [`unchecked`].
pub fn unchecked_here() -> bool {
    DEPTH.with(Cell::get) > 0
}
