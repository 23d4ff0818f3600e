//! `annot!(nudevs; nfor!(d in ndev { .. }))`: NUDA's loop over devices. Each iteration runs in
//! its own host thread with device `d` as that thread's current device, so the `nuwork!`s
//! inside run there. The body is ordinary host Rust, not the kernel subset, and is not
//! transformed; `?` inside it propagates a `nuda::Error` out of its iteration, and the whole
//! loop evaluates to `nuda::Result<()>` once every iteration has finished.
//!
//! An array that a `nuwork!` in the body writes, and that comes from outside the body, is
//! shared automatically, as NUDA wrote it: before the iterations start it is rebound to its
//! shared-write handle (`c.as_shared()`), whose merge rule then applies.

use crate::base::ctxt::Ctxt;
use crate::base::ir::{Block, Stmt};
use crate::base::paths::{KERNEL, NUDA};
use crate::checks::capture::{self, Context};
use crate::entry::nuwork::NuworkInput;
use crate::syntax::annot::{AnnotInput, NUDEVS};
use crate::syntax::nfor::NforSyntax;
use crate::syntax::Lower;
use proc_macro2::TokenStream;
use quote::quote_spanned;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::Ident;

/// Whether the chain asks for `nudevs`.
pub fn wanted(input: &AnnotInput) -> bool {
    input.chain.iter().any(|a| a.name == NUDEVS)
}

/// Expands a `nudevs` loop into a call of `nuda::nudevs`.
pub fn expand(input: &AnnotInput) -> syn::Result<TokenStream> {
    check_chain(input)?;
    let nest = &input.nest;
    if !nest.path.is_ident("nfor") {
        let msg = "annot!: nudevs applies to an `nfor!` loop over device indices, as in `annot!(nudevs; nfor!(d in ndev { .. }))`";
        return Err(syn::Error::new(nest.path.span(), msg));
    }
    let n: NforSyntax = syn::parse2(nest.tokens.clone())?;
    if n.vars.len() != 1 {
        let msg = "annot!: nudevs takes a loop with one variable, the device index, as in `nfor!(d in ndev { .. })`";
        return Err(syn::Error::new(n.vars[1].span(), msg));
    }
    let (var, body, span) = (&n.vars[0], &n.body, nest.span());
    let range = crate::entry::nfor::range(&n.ranges[0]);
    let shared = written_from_outside(body, var);
    Ok(quote_spanned! {span=>
        (|| -> #NUDA::Result<()> {
            #[allow(unused_imports)]
            use #KERNEL::{ShareCopy as _, ShareMut as _};
            #( let #shared = #shared.__nuda_share()?; )*
            #NUDA::nudevs(#range, |#var| -> #NUDA::Result<()> {
                let () = #body;
                ::core::result::Result::Ok(())
            })
        })()
    })
}

/// The arrays that `nuwork!`s in `body` write and that the body does not bind itself.
fn written_from_outside(body: &syn::Block, var: &Ident) -> Vec<Ident> {
    let mut scan = Scan::default();
    scan.visit_block(body);
    let mut out: Vec<Ident> = Vec::new();
    for m in &scan.nuworks {
        for name in written_by(m) {
            let inside = scan.bound.contains(&name.to_string()) || name == *var;
            if !inside && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// What a `nuwork!` writes, from its capture analysis (its own errors are left to it).
pub(super) fn written_by(m: &syn::Macro) -> Vec<Ident> {
    let Ok(input) = syn::parse2::<NuworkInput>(m.tokens.clone()) else {
        return Vec::new();
    };
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    let nest = crate::syntax::annot::lower_nest_macro(&mut lower, &input.nest, "nuwork!");
    let written = nest.map_or_else(Vec::new, |n| {
        let mut block = Block {
            stmts: vec![Stmt::Nest(Box::new(n))],
            tail: None,
        };
        let a = capture::analyze(&cx, &mut block, &[], Context::Nuwork);
        a.captures
            .into_iter()
            .filter(|c| c.written)
            .map(|c| c.name)
            .collect()
    });
    let _ = lower;
    let _ = cx.check();
    written
}

/// The `nuwork!`s of a host body, and every name it binds.
#[derive(Default)]
struct Scan {
    nuworks: Vec<syn::Macro>,
    bound: HashSet<String>,
}

impl<'ast> Visit<'ast> for Scan {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.is_ident("nuwork") {
            self.nuworks.push(m.clone());
        }
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.bound.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}

/// `nudevs` stands alone: its iterations are threads, which no other annotation can rewrite.
fn check_chain(input: &AnnotInput) -> syn::Result<()> {
    for a in &input.chain {
        if a.args.is_some() && a.name == NUDEVS {
            let msg = "annot!: nudevs takes no parameters: the loop's values are the devices";
            return Err(syn::Error::new(a.name.span(), msg));
        }
        if input.chain.len() > 1 {
            let msg = "annot!: nudevs cannot be combined with other annotations: its iterations run as host threads on separate devices; annotate the loops inside it instead";
            return Err(syn::Error::new(a.name.span(), msg));
        }
    }
    Ok(())
}
