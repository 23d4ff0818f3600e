//! `nudevs`: NUDA's loop over devices. Each iteration runs in its own scoped host thread, with
//! the iteration's value as that thread's current device, so every `nuwork!` or launch inside
//! it runs there. The call returns when every iteration has finished; then an iteration's
//! panic is resumed, or else the first error (in iteration order) is returned. Layer 2 of the
//! runtime (see `backend/README.md`), beside the registry.
//!
//! `annot!(nudevs; nfor!(d in ndev { .. }))` expands to a call of [`nudevs`].

#[cfg(test)]
mod test;

use crate::device::{devices, with_device};
use crate::error::{Error, Result};
use std::any::Any;
use std::fmt::Debug;
use std::thread::{Scope, ScopedJoinHandle};

/// How one iteration ended.
enum Outcome {
    Done(Result<()>),
    Panicked(Box<dyn Any + Send>),
}

/// Runs `body(d)` for every `d` of `devices` at once, each in its own thread whose current
/// device is `d`, and waits for all of them.
///
/// ```no_run
/// # use nuda_runtime::*;
/// nudevs(0..devices().len(), |d| {
///     assert_eq!(current_device()?.index(), d);
///     Ok(())
/// })?;
/// # Ok::<(), Error>(())
/// ```
pub fn nudevs<I, F>(devices: I, body: F) -> Result<()>
where
    I: IntoIterator,
    I::Item: TryInto<usize> + Copy + Debug + Send,
    F: Fn(I::Item) -> Result<()> + Sync,
{
    let items: Vec<I::Item> = devices.into_iter().collect();
    let outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let handles: Vec<_> = items.iter().map(|&d| spawn(s, d, &body)).collect();
        handles.into_iter().map(join).collect()
    });
    finish(outcomes)
}

type Handle<'s> = std::io::Result<ScopedJoinHandle<'s, Result<()>>>;

fn spawn<'s, 'e, D, F>(s: &'s Scope<'s, 'e>, d: D, body: &'e F) -> Handle<'s>
where
    D: TryInto<usize> + Copy + Debug + Send + 'e,
    F: Fn(D) -> Result<()> + Sync,
{
    std::thread::Builder::new()
        .name(format!("nuda nudevs {d:?}"))
        .spawn_scoped(s, move || {
            let index = d.try_into().map_err(|_| not_an_index(d))?;
            with_device(index, || body(d))?
        })
}

fn join(handle: Handle<'_>) -> Outcome {
    match handle {
        Ok(h) => h.join().map_or_else(Outcome::Panicked, Outcome::Done),
        Err(e) => Outcome::Done(Err(Error::NoDevice {
            reason: format!("nudevs could not start a host thread: {e}"),
        })),
    }
}

/// Every iteration has been joined: a panic wins over an error, the first of each.
fn finish(outcomes: Vec<Outcome>) -> Result<()> {
    let mut first_error = None;
    for outcome in outcomes {
        match outcome {
            Outcome::Panicked(p) => std::panic::resume_unwind(p),
            Outcome::Done(Err(e)) if first_error.is_none() => first_error = Some(e),
            Outcome::Done(_) => {}
        }
    }
    first_error.map_or(Ok(()), Err)
}

fn not_an_index(d: impl Debug) -> Error {
    let choices: Vec<String> = devices()
        .iter()
        .map(|i| format!("{} ({})", i.index, i.name))
        .collect();
    Error::BadSelection {
        source: "nudevs iteration".into(),
        value: format!("{d:?}"),
        reason: "not a device index".into(),
        choices: choices.join(", "),
    }
}
