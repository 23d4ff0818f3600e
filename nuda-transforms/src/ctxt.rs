//! `Ctxt`: collects every error a macro input has, as serde_derive does, so one compile
//! reports them all at their own spans instead of stopping at the first.

use proc_macro2::Span;
use std::cell::RefCell;
use std::fmt::Display;

/// An error collector. `check` must be called before it is dropped.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// A collector with no errors yet.
    pub fn new() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error at `span`.
    pub fn error(&self, span: Span, msg: impl Display) {
        self.push(syn::Error::new(span, msg));
    }

    /// Records a `syn` error as it is.
    pub fn push(&self, e: syn::Error) {
        if let Some(list) = self.errors.borrow_mut().as_mut() {
            list.push(e);
        }
    }

    /// Whether an error has been recorded.
    pub fn has_errors(&self) -> bool {
        self.errors.borrow().as_ref().is_some_and(|l| !l.is_empty())
    }

    /// All errors combined into one, or `Ok` if there were none.
    pub fn check(self) -> syn::Result<()> {
        let list = self.errors.borrow_mut().take().unwrap_or_default();
        let mut iter = list.into_iter();
        let Some(mut first) = iter.next() else {
            return Ok(());
        };
        for e in iter {
            first.combine(e);
        }
        Err(first)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("nuda-transforms bug: Ctxt dropped without check()");
        }
    }
}
