//! Check sites: every place in a kernel where a check may fail (an array access, an image
//! write, an integer division, a loop step evaluated in the kernel). The OpenCL C and native
//! emitters number them through one table, so site `k` means the same access on every engine;
//! the glue emits the table as a static array of `nuda::__private::Site`, which the runtime
//! turns into the error's array name and `file:line:column`.
//!
//! Sites are interned by (kind, name, line, column): the copies of one access that the
//! annotations make share its site, since the error names the same source location.
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

use crate::base::paths::PRIVATE;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use std::cell::RefCell;

pub use nuda_abi::SiteKind;

/// One site.
#[derive(Debug, Clone)]
pub struct Site {
    /// What it checks.
    pub kind: SiteKind,
    /// The array or image as written (empty for arithmetic and steps).
    pub name: String,
    /// Indices of the access (0 for arithmetic and steps).
    pub rank: u8,
    /// Where it was written.
    pub span: Span,
}

impl Site {
    fn key(&self) -> (SiteKind, &str, u8, usize, usize) {
        let at = self.span.start();
        (self.kind, &self.name, self.rank, at.line, at.column)
    }
}

/// The sites of one program, in number order.
#[derive(Debug, Default)]
pub struct Sites {
    list: RefCell<Vec<Site>>,
}

impl Sites {
    /// An empty table.
    pub fn new() -> Sites {
        Sites::default()
    }

    /// The number of the site for (kind, name, rank, span), adding it if new.
    pub fn intern(&self, kind: SiteKind, name: &str, rank: usize, span: Span) -> usize {
        let site = Site {
            kind,
            name: name.to_string(),
            rank: rank as u8,
            span,
        };
        let mut list = self.list.borrow_mut();
        if let Some(k) = list.iter().position(|s| s.key() == site.key()) {
            return k;
        }
        list.push(site);
        list.len() - 1
    }

    /// How many sites there are.
    pub fn len(&self) -> usize {
        self.list.borrow().len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sites, in number order.
    pub fn all(&self) -> Vec<Site> {
        self.list.borrow().clone()
    }

    /// `[Site::new(..), ..]`: the table as a Rust array expression. `file!()` names the
    /// file of the macro invocation; line and column come from the access's own span.
    pub fn table(&self) -> TokenStream {
        let sites = self.list.borrow();
        let entries = sites.iter().map(|s| {
            let kind = quote::format_ident!("{}", s.kind.name());
            let (name, rank) = (&s.name, s.rank);
            let at = s.span.start();
            let (line, column) = (at.line as u32, at.column as u32 + 1);
            quote_spanned!(s.span=> #PRIVATE::Site::new(
                #PRIVATE::SiteKind::#kind, #name, #rank, file!(), #line, #column))
        });
        let n = sites.len();
        quote!([#PRIVATE::Site; #n] = [#(#entries),*])
    }
}

/// A reference to site `k` of the static table `__NUDA_SITES`, for native code.
pub fn site_ref(k: usize) -> TokenStream {
    quote!(&__NUDA_SITES[#k])
}
