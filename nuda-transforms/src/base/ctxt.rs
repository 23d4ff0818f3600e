//! `Ctxt`: collects every error a macro input has, as serde_derive does, so one compile
//! reports them all at their own spans instead of stopping at the first.
//!
//! Stage 1 of the pipeline in `lib.rs` (the base).

use proc_macro2::Span;
use std::cell::RefCell;
use std::fmt::Display;

/// An error collector. `check` must be called before it is dropped.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
    /// Names the transformations made from the user's (`j_0_1` for `j` in a `dmine` copy),
    /// with the user's name: a message says the user's.
    generated: RefCell<Vec<(String, String)>>,
}

impl Ctxt {
    /// A collector with no errors yet.
    pub fn new() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
            generated: RefCell::default(),
        }
    }

    /// Records an error at `span`, naming the user's variables where a transformation
    /// renamed them.
    pub fn error(&self, span: Span, msg: impl Display) {
        self.push(syn::Error::new(span, self.users_words(&msg.to_string())));
    }

    /// Notes that `new` is a transformation's name for the user's `user`.
    pub fn generated(&self, new: &str, user: &str) {
        self.generated.borrow_mut().push((new.into(), user.into()));
    }

    /// `text` with each generated name replaced by the user's.
    pub fn users_words(&self, text: &str) -> String {
        let generated = self.generated.borrow();
        if generated.is_empty() {
            return text.into();
        }
        let user = |word: &str| {
            let found = generated.iter().find(|(new, _)| new == word);
            found.map_or(word.to_string(), |(_, old)| old.clone())
        };
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        for ch in text.chars() {
            if ch.is_alphanumeric() || ch == '_' {
                word.push(ch);
            } else {
                out.push_str(&user(&std::mem::take(&mut word)));
                out.push(ch);
            }
        }
        out + &user(&word)
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
