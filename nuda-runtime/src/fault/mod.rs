//! Kernel faults: what a kernel did that safe Rust forbids (an index out of bounds, a division
//! by zero, a zero loop step), caught where it happens and reported as one `nuda::Error`.
//!
//! Every check in generated code names a [`Site`]: a static description of the access or
//! operation (the array as the user wrote it, the kind, `file:line:column`). A faulting
//! work-item touches no memory (a write is skipped, a read yields zero, a division yields
//! zero), records the *first* fault of the launch, and carries on; the launch then returns
//! `Err(Error::Kernel { .. })`. See `README.md` beside this file for the device-side record,
//! which the OpenCL backend keeps (`backend/opencl/record.rs`). Layer 0 of the runtime.

mod panic;
#[cfg(test)]
mod test;
mod unchecked;

pub use unchecked::{skip_bounds_checks, unchecked, unchecked_here};

use crate::error::{Error, KernelFault, OutOfBounds};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

pub use nuda_abi::SiteKind;

/// One place in a kernel's source where a check may fail. Generated code keeps a static table
/// of them; the device reports a fault by its index in that table.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Site {
    /// What is checked.
    pub kind: SiteKind,
    /// The array or image as the user wrote it (empty for arithmetic and steps).
    pub name: &'static str,
    /// The number of indices of the access (0 for arithmetic and steps).
    pub rank: u8,
    /// The source file (`file!()` of the macro invocation).
    pub file: &'static str,
    /// The line of the access in that file.
    pub line: u32,
    /// The column of the access.
    pub column: u32,
}

impl Site {
    /// A site; generated code builds its table with this.
    pub const fn new(
        kind: SiteKind,
        name: &'static str,
        rank: u8,
        file: &'static str,
        line: u32,
        column: u32,
    ) -> Site {
        Site {
            kind,
            name,
            rank,
            file,
            line,
            column,
        }
    }

    /// `file:line:column`, as Rust's panic messages give it.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.column)
    }

    /// Whether the site checks memory (the opt-out `#[unchecked]` skips these).
    pub fn is_bounds(&self) -> bool {
        matches!(
            self.kind,
            SiteKind::Read | SiteKind::Write | SiteKind::ImageWrite
        )
    }
}

/// The detail word of an arithmetic fault: the divisor was zero, or `MIN / -1` overflowed.
pub(crate) const DETAIL_ZERO: u32 = 0;
/// See [`DETAIL_ZERO`].
pub(crate) const DETAIL_OVERFLOW: u32 = 1;

/// The fault of a loop whose trip count does not fit a `usize` (2^64 iterations), where one
/// is needed (an annotated loop, a mapped one).
pub(crate) const TOO_MANY: &str = "attempt to count a loop's iterations with overflow";

/// The first fault of a launch, before it is turned into an `Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Where it happened.
    pub site: &'static Site,
    /// For arithmetic faults, [`DETAIL_ZERO`] or [`DETAIL_OVERFLOW`].
    pub detail: u32,
    /// The index, padded with zeros past the array's rank.
    pub index: [u64; 3],
    /// The dims, padded with zeros.
    pub dims: [u64; 3],
}

impl Record {
    /// The error a launch of `kernel` on `device` returns for this fault.
    pub fn error(&self, kernel: &str, device: String) -> Error {
        Error::Kernel {
            kernel: kernel.into(),
            device,
            location: self.site.location(),
            fault: self.fault(),
        }
    }

    fn fault(&self) -> KernelFault {
        let overflow = self.detail == DETAIL_OVERFLOW;
        match self.site.kind {
            SiteKind::Read | SiteKind::Write | SiteKind::ImageWrite | SiteKind::Private => {
                self.bounds()
            }
            SiteKind::Divide if overflow => {
                KernelFault::Arithmetic("attempt to divide with overflow")
            }
            SiteKind::Divide => KernelFault::Arithmetic("attempt to divide by zero"),
            SiteKind::Remainder if overflow => {
                KernelFault::Arithmetic("attempt to calculate the remainder with overflow")
            }
            SiteKind::Remainder => {
                KernelFault::Arithmetic("attempt to calculate the remainder with a divisor of zero")
            }
            SiteKind::Step if overflow => KernelFault::Arithmetic(TOO_MANY),
            SiteKind::Step => KernelFault::ZeroStep,
            SiteKind::Clamp => {
                KernelFault::Arithmetic("attempt to clamp with min > max, or with a NaN bound")
            }
        }
    }

    fn bounds(&self) -> KernelFault {
        let rank = usize::from(self.site.rank).clamp(1, 3);
        let signed = self.site.kind == SiteKind::ImageWrite;
        // Image coordinates are `i32`: show a negative one as the user wrote it.
        let show = |v: u64| {
            if signed {
                (v as i64).to_string()
            } else {
                v.to_string()
            }
        };
        KernelFault::OutOfBounds(Box::new(OutOfBounds {
            array: self.site.name.into(),
            index: self.index[..rank].iter().map(|&v| show(v)).collect(),
            dims: self.dims[..rank].to_vec(),
        }))
    }
}

/// What native kernel code checks with: the launch's recorder, and (`TRUST`) whether the
/// launch-time proof showed every access in range. The flag is part of the type, so the
/// native body is compiled twice and each copy has only its own path: a branch per access
/// inside a hot loop costs the native engine up to a third of its speed, and a bounds check
/// per access keeps LLVM from vectorising. Trusted accesses skip the check, exactly as the
/// OpenCL program the same proof compiled the checks out of does; so a trusting checker can
/// only be made in `unsafe` code ([`Checker::trusting`]), which the macros write only after
/// the proof (or the user's `unsafe` opt-out) cleared every bounds site of the kernel.
#[derive(Debug, Clone, Copy)]
pub struct Checker<'a, const TRUST: bool> {
    faults: &'a Faults,
}

impl<'a> Checker<'a, false> {
    /// Checks every access and records faults into `faults`.
    pub fn new(faults: &'a Faults) -> Self {
        Checker { faults }
    }
}

impl<'a> Checker<'a, true> {
    /// A checker that lets views skip their bounds checks.
    ///
    /// # Safety
    ///
    /// Every index passed with it to a view's `load`, `store` or `write_at` must lie within
    /// that view's dims: the launch-time proof showed it for every bounds site of the kernel,
    /// or the user promised it in an `unsafe` opt-out (`#[unchecked]`, `nuda::unchecked`).
    pub unsafe fn trusting(faults: &'a Faults) -> Self {
        Checker { faults }
    }
}

impl<'a, const TRUST: bool> Checker<'a, TRUST> {
    /// The same recorder, checking every access: for code the proof did not cover (the
    /// bodies of `#[nucode]` functions, whose sites are always checked).
    #[inline(always)]
    pub fn checking(self) -> Checker<'a, false> {
        Checker {
            faults: self.faults,
        }
    }

    /// Whether accesses may skip recording (the proof showed them in range).
    #[inline(always)]
    pub fn trusted(self) -> bool {
        TRUST
    }

    /// See [`Faults::bounds`].
    #[cold]
    pub fn bounds(self, site: &'static Site, index: [u64; 3], dims: [u64; 3]) {
        self.faults.bounds(site, index, dims)
    }

    /// See [`Faults::arith`].
    #[cold]
    pub fn arith(self, site: &'static Site, overflow: bool) {
        self.faults.arith(site, overflow)
    }
}

/// The first fault a native launch saw: at a check site, or a work-item's panic.
#[derive(Debug, Clone)]
enum First {
    Site(Record),
    Panic { message: String, location: String },
}

/// A native launch's fault recorder: the first fault wins, later ones are dropped. Shared by
/// every work-item (rayon threads) of one launch.
#[derive(Debug, Default)]
pub struct Faults {
    hit: AtomicBool,
    first: Mutex<Option<First>>,
}

impl Faults {
    /// A recorder with no fault yet.
    pub fn new() -> Faults {
        Faults::default()
    }

    /// Records an out-of-bounds access at `site` (index and dims padded to three).
    #[cold]
    pub fn bounds(&self, site: &'static Site, index: [u64; 3], dims: [u64; 3]) {
        self.put(First::Site(Record {
            site,
            detail: 0,
            index,
            dims,
        }));
    }

    /// Records an arithmetic fault or a zero step at `site`.
    #[cold]
    pub fn arith(&self, site: &'static Site, overflow: bool) {
        let detail = if overflow {
            DETAIL_OVERFLOW
        } else {
            DETAIL_ZERO
        };
        self.put(First::Site(Record {
            site,
            detail,
            index: [0; 3],
            dims: [0; 3],
        }));
    }

    /// Runs one piece of a native launch (a rayon task, a work-item thread): a panic in it is
    /// recorded as the launch's fault, with its message and location, and printed nowhere.
    /// Returns whether it panicked.
    pub fn catch(&self, work: impl FnOnce()) -> bool {
        match panic::quietly(work) {
            Ok(()) => false,
            Err((message, location)) => {
                self.put(First::Panic { message, location });
                true
            }
        }
    }

    fn put(&self, f: First) {
        // Only the first fault is kept; the flag spares later ones the lock.
        if self.hit.swap(true, Ordering::AcqRel) {
            return;
        }
        *self.first.lock().unwrap_or_else(PoisonError::into_inner) = Some(f);
    }

    /// The first fault at a check site, if the first fault was one.
    pub fn first(&self) -> Option<Record> {
        match self.first_any()? {
            First::Site(r) => Some(r),
            First::Panic { .. } => None,
        }
    }

    fn first_any(&self) -> Option<First> {
        if !self.hit.load(Ordering::Acquire) {
            return None;
        }
        self.first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// `Err` with the first fault of a launch of `kernel`, if there was one.
    pub fn check(&self, kernel: &str, device: impl FnOnce() -> String) -> Result<(), Error> {
        match self.first_any() {
            None => Ok(()),
            Some(First::Site(r)) => Err(r.error(kernel, device())),
            Some(First::Panic { message, location }) => Err(Error::Kernel {
                kernel: kernel.into(),
                device: device(),
                location,
                fault: KernelFault::Panic(message),
            }),
        }
    }
}

/// `text` with every `dir/../` in a path taken out (`benches/model_problems/../../examples/a.rs`
/// is `examples/a.rs`): a file included through `#[path = "../.."]` then names the same place
/// as when compiled where it is, in program text (so both builds share their compiled
/// programs) and in tuning seeds. `/../` appears in no C code outside a comment.
pub(crate) fn tidy_paths(text: &str) -> String {
    let mut t = text.to_string();
    let mut from = 0;
    while let Some(k) = t[from..].find("/../").map(|k| from + k) {
        let start = t[..k]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "_.-".contains(c)))
            .map_or(0, |s| s + 1);
        let dir = &t[start..k];
        if dir.is_empty() || dir == ".." || dir == "." {
            from = k + 1;
            continue;
        }
        t.replace_range(start..k + 4, "");
        // The `/` before the removed directory may now start another `/../`.
        from = start.saturating_sub(1);
    }
    t
}
