//! Checks layer: which captured arrays of a `nuwork!` body are privatised atomic targets
//! (a histogram's bins). Such an array is only ever updated by atomics whose value the body
//! drops, all of one commutative family; then each work-group may count in a copy in local
//! memory and add its copy into the array once (see `README.md`, `emit/cl/privatise.rs` and
//! the runtime's `reduce/privatise.rs`, which decides per launch whether the copy fits).
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

#[cfg(test)]
mod test;

use crate::base::ir::builtins::MethodKind;
use crate::base::ir::visit::shared::{walk_expr, walk_place, walk_stmt, Visit};
use crate::base::ir::*;
use syn::Ident;

/// A privatised array: its name and the prelude's atomic that adds a group's copy into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Privatised {
    /// The captured array.
    pub name: Ident,
    /// `add`, `or` or `xor`: the operation its updates compose into, whose identity is zero.
    pub flush: &'static str,
}

impl Privatised {
    /// The flush as a path to the runtime's `AtomicOp`, for the native engine's copies.
    pub fn atomic_op(&self) -> proc_macro2::TokenStream {
        let op = match self.flush {
            "or" => quote::quote!(Or),
            "xor" => quote::quote!(Xor),
            _ => quote::quote!(Add),
        };
        let nuda = crate::base::paths::NUDA;
        quote::quote!(#nuda::AtomicOp::#op)
    }
}

/// The flush operation an atomic composes into, if a private copy starting at zero can stand
/// in for the array: `a - v` is `a + (0 - v)` in wrapping integers, so `sub` flushes by `add`.
fn flush_of(kind: MethodKind) -> Option<&'static str> {
    match kind.atomic_op()? {
        "add" | "sub" => Some("add"),
        "or" => Some("or"),
        "xor" => Some("xor"),
        _ => None,
    }
}

/// The captures among `names` that every body in `bodies` uses only as privatisable atomic
/// targets (and through `len()` / `dims()`), each in one flush family.
pub fn arrays(names: &[Ident], bodies: &[&Block]) -> Vec<Privatised> {
    names
        .iter()
        .filter_map(|name| {
            let mut uses = Uses::new(name);
            for b in bodies {
                uses.visit_block(b);
            }
            uses.verdict()
        })
        .collect()
}

/// How a body uses one name.
struct Uses<'a> {
    name: &'a Ident,
    /// Every `name` as a value, but the receivers of atomics in statement position.
    vars: usize,
    /// Receivers of `len()` / `dims()`.
    allowed: usize,
    /// Indexing with `name[..]`, reads or writes: never privatisable.
    indexed: bool,
    /// The flush operations of its atomics.
    flushes: Vec<&'static str>,
}

impl<'a> Uses<'a> {
    fn new(name: &'a Ident) -> Self {
        Uses {
            name,
            vars: 0,
            allowed: 0,
            indexed: false,
            flushes: Vec::new(),
        }
    }

    fn verdict(self) -> Option<Privatised> {
        let first = *self.flushes.first()?;
        // "none" marks an atomic no private copy can answer.
        let one_family = first != "none" && self.flushes.iter().all(|f| *f == first);
        (one_family && !self.indexed && self.vars == self.allowed).then(|| Privatised {
            name: self.name.clone(),
            flush: first,
        })
    }

    /// The method kind of `e` if it is a method called on `name`.
    fn method_on_name(&self, e: &Expr) -> Option<MethodKind> {
        let ExprKind::Method { recv, method, .. } = &e.kind else {
            return None;
        };
        match &recv.kind {
            ExprKind::Var(v) if v == self.name => MethodKind::of(&method.to_string()),
            _ => None,
        }
    }
}

impl Visit for Uses<'_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        // An atomic whose old value is dropped: only then may a private copy answer it. Its
        // receiver is this use; its arguments are walked as any other expression.
        if let Stmt::Expr(Expr {
            kind: ExprKind::Method {
                recv, method, args, ..
            },
            ..
        }) = s
        {
            let kind = MethodKind::of(&method.to_string()).filter(|k| k.is_atomic());
            if let (ExprKind::Var(v), Some(kind)) = (&recv.kind, kind) {
                if v == self.name {
                    self.flushes.push(flush_of(kind).unwrap_or("none"));
                    args.iter().for_each(|a| self.visit_expr(a));
                    return;
                }
            }
        }
        walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(v) if v == self.name => self.vars += 1,
            ExprKind::Index { base, .. } if base == self.name => self.indexed = true,
            _ => {}
        }
        match self.method_on_name(e) {
            Some(MethodKind::Len | MethodKind::Dims) => self.allowed += 1,
            // An atomic whose old value is used: a private copy would answer it wrongly.
            Some(k) if k.is_atomic() => self.flushes.push("none"),
            _ => {}
        }
        walk_expr(self, e);
    }

    fn visit_place(&mut self, p: &Place) {
        let base = match p {
            Place::Index { base, .. } | Place::Member { base, .. } | Place::Var(base) => base,
        };
        if base == self.name {
            self.indexed = true;
        }
        walk_place(self, p);
    }
}
