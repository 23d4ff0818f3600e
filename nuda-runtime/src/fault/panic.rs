//! Quiet panics: a native work-item that panics becomes its launch's fault, with the panic's
//! message and location, instead of a message per rayon task on stderr.
//!
//! A process-wide panic hook is installed once, chaining to the hook that was there: on a
//! thread running a piece of a native launch it records the message and location in a
//! thread-local and prints nothing; on any other thread it defers to the previous hook.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

thread_local! {
    /// How many quiet regions this thread is in.
    static QUIET: Cell<usize> = const { Cell::new(0) };
    /// The last quiet panic on this thread: message and `file:line:column`.
    static LAST: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

fn install() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) > 0 {
                LAST.with(|l| *l.borrow_mut() = Some(describe(info)));
            } else {
                previous(info);
            }
        }));
    });
}

fn describe(info: &PanicHookInfo<'_>) -> (String, String) {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".into());
    let location = info.location().map_or_else(
        || "an unknown location".into(),
        |l| format!("{}:{}:{}", l.file(), l.line(), l.column()),
    );
    (message, location)
}

/// Runs `work`; a panic in it is caught silently and returned as (message, location).
pub(super) fn quietly(work: impl FnOnce()) -> Result<(), (String, String)> {
    install();
    QUIET.with(|q| q.set(q.get() + 1));
    let ran = catch_unwind(AssertUnwindSafe(work));
    QUIET.with(|q| q.set(q.get() - 1));
    ran.map_err(|payload| {
        LAST.with(|l| l.borrow_mut().take()).unwrap_or_else(|| {
            let msg = payload
                .downcast_ref::<&str>()
                .map_or_else(|| "a panic".to_string(), |s| s.to_string());
            (msg, "an unknown location".into())
        })
    })
}
