//! Tuple values in kernel bodies: `let pair = (r, w);`, `pair.0`, `pair.1 = v`, `let q =
//! pair;` and `let (a, b) = pair;`. A tuple local becomes one local per component at
//! lowering, so neither emitter nor the witness sees a tuple type: OpenCL C has none, and
//! the components keep the slots (types) rustc gives each.
//!
//! The lowering keeps a scope of tuple locals: a later binding of the same name (a `let`, a
//! `for` or `nfor!` variable) shadows it, and leaving the block that declared it ends it.

use super::body::{Lower, TupleLocal};
use crate::base::ir::*;
use proc_macro2::Span;
use syn::spanned::Spanned;

/// The components of a tuple expression as written: `(a, b)`, possibly in parentheses.
fn tuple_elems(e: &syn::Expr) -> Option<Vec<&syn::Expr>> {
    match e {
        syn::Expr::Tuple(t) if t.elems.len() >= 2 => Some(t.elems.iter().collect()),
        syn::Expr::Paren(p) => tuple_elems(&p.expr),
        syn::Expr::Group(g) => tuple_elems(&g.expr),
        _ => None,
    }
}

fn path_ident(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        syn::Expr::Paren(p) => path_ident(&p.expr),
        _ => None,
    }
}

/// The local holding component `k` of tuple `name`, at the user's span. The `__nuda_`
/// prefix keeps it apart from the user's names and out of rustc's unused and naming lints.
fn part_name(name: &syn::Ident, k: usize) -> syn::Ident {
    syn::Ident::new(&format!("__nuda_{name}_{k}"), name.span())
}

impl Lower<'_> {
    /// The components of the tuple local `name`, if it is one in scope.
    pub(super) fn tuple_parts(&self, name: &syn::Ident) -> Option<Vec<syn::Ident>> {
        let t = self.tuples.iter().rev().find(|t| t.name == *name)?;
        (!t.parts.is_empty()).then(|| t.parts.clone())
    }

    /// Whether `e` names a tuple local in scope.
    pub(super) fn tuple_parts_of(&self, e: &syn::Expr) -> bool {
        path_ident(e).is_some_and(|n| self.tuple_parts(n).is_some())
    }

    /// A binding of `name` that is not a tuple hides any tuple of that name.
    pub(super) fn shadow(&mut self, name: &syn::Ident) {
        if self.tuples.iter().any(|t| t.name == *name) {
            let depth = self.depth;
            self.tuples.push(TupleLocal {
                name: name.clone(),
                parts: Vec::new(),
                mutable: false,
                depth,
            });
        }
    }

    /// A `#[nucode]` parameter of tuple type with `n` components: a tuple local whose parts
    /// are the function's parameters in OpenCL C. Returns the parts.
    pub fn tuple_param(&mut self, name: &syn::Ident, n: usize) -> Vec<syn::Ident> {
        let parts: Vec<syn::Ident> = (0..n).map(|k| part_name(name, k)).collect();
        self.tuples.push(TupleLocal {
            name: name.clone(),
            parts: parts.clone(),
            mutable: false,
            depth: self.depth,
        });
        parts
    }

    /// A call's argument naming a tuple local: its components, as a tuple expression that
    /// the OpenCL C passes component by component (a `#[nucode]` tuple parameter).
    pub(super) fn tuple_arg(&mut self, e: &syn::Expr) -> Option<Expr> {
        let parts = self.tuple_parts(path_ident(e)?)?;
        let span = e.span();
        let items = parts
            .into_iter()
            .map(|p| Expr::new(ExprKind::Var(p), span))
            .collect();
        Some(Expr::new(ExprKind::Tuple(items), span))
    }

    /// Ends the tuples declared in a block being left.
    pub(super) fn leave_block(&mut self) {
        let depth = self.depth;
        self.tuples.retain(|t| t.depth <= depth);
    }

    /// `let x = (a, b);`, `let x = t;` and `let (a, b) = t;` with `t` a tuple local: the
    /// per-component lets, or `None` if `l` is none of these.
    pub(super) fn tuple_let(&mut self, l: &syn::Local) -> Option<Vec<Stmt>> {
        let init = &l.init.as_ref()?.expr;
        if l.init.as_ref()?.diverge.is_some() {
            return None;
        }
        match &l.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let values = self.tuple_values(init)?;
                Some(self.bind_tuple(&pi.ident, pi.mutability.is_some(), values, l.span()))
            }
            syn::Pat::Tuple(pt) => {
                let parts = self.tuple_parts(path_ident(init)?)?;
                Some(self.destructure(pt, &parts, init.span(), l.span()))
            }
            _ => None,
        }
    }

    /// The component values of a tuple expression or a tuple local.
    fn tuple_values(&mut self, init: &syn::Expr) -> Option<Vec<Expr>> {
        if let Some(elems) = tuple_elems(init) {
            return Some(elems.into_iter().map(|e| self.expr(e)).collect());
        }
        let parts = self.tuple_parts(path_ident(init)?)?;
        let span = init.span();
        Some(
            parts
                .into_iter()
                .map(|p| Expr::new(ExprKind::Var(p), span))
                .collect(),
        )
    }

    fn bind_tuple(
        &mut self,
        name: &syn::Ident,
        mutable: bool,
        values: Vec<Expr>,
        span: Span,
    ) -> Vec<Stmt> {
        let parts: Vec<syn::Ident> = (0..values.len()).map(|k| part_name(name, k)).collect();
        let lets = parts.iter().zip(values).map(|(p, v)| {
            let pat = Pat::Ident {
                name: p.clone(),
                mutable,
            };
            Stmt::Let(Let {
                named: None,
                pat,
                ty: None,
                init: Some(v),
                slots: vec![self.slot()],
                span,
            })
        });
        let lets: Vec<Stmt> = lets.collect();
        let depth = self.depth;
        self.tuples.push(TupleLocal {
            name: name.clone(),
            parts,
            mutable,
            depth,
        });
        lets
    }

    fn destructure(
        &mut self,
        pt: &syn::PatTuple,
        parts: &[syn::Ident],
        at: Span,
        span: Span,
    ) -> Vec<Stmt> {
        if pt.elems.len() != parts.len() {
            let msg = format!(
                "this tuple has {} components, and the pattern names {}",
                parts.len(),
                pt.elems.len()
            );
            self.cx.error(pt.span(), msg);
            return Vec::new();
        }
        let mut out = Vec::new();
        for (p, part) in pt.elems.iter().zip(parts) {
            let syn::Pat::Ident(pi) = p else { continue };
            self.shadow(&pi.ident);
            let pat = Pat::Ident {
                name: pi.ident.clone(),
                mutable: pi.mutability.is_some(),
            };
            let init = Some(Expr::new(ExprKind::Var(part.clone()), at));
            out.push(Stmt::Let(Let {
                named: None,
                pat,
                ty: None,
                init,
                slots: vec![self.slot()],
                span,
            }));
        }
        out
    }

    /// `t.k` on a tuple local: its component's local. `None` if `base` is no tuple local.
    pub(super) fn tuple_field(&self, base: &syn::Expr, member: &syn::Member) -> Option<syn::Ident> {
        let parts = self.tuple_parts(path_ident(base)?)?;
        let syn::Member::Unnamed(i) = member else {
            self.cx
                .error(member.span(), "tuple components are `.0`, `.1`, ..");
            return Some(parts[0].clone());
        };
        match parts.get(i.index as usize) {
            Some(p) => Some(syn::Ident::new(&p.to_string(), i.span)),
            None => {
                let msg = format!(
                    "this tuple has {} components: `.0` to `.{}`",
                    parts.len(),
                    parts.len() - 1
                );
                self.cx.error(i.span, msg);
                Some(parts[0].clone())
            }
        }
    }

    /// `t.k = v`: the component's local, after checking that `t` was declared `mut` (rustc's
    /// own message would name the component's generated local).
    pub(super) fn tuple_place(&self, base: &syn::Expr, member: &syn::Member) -> Option<syn::Ident> {
        let part = self.tuple_field(base, member)?;
        let name = path_ident(base)?;
        let t = self.tuples.iter().rev().find(|t| t.name == *name)?;
        if !t.mutable {
            self.cx.error(base.span(), format!("cannot assign to a component of `{name}`, which is not `mut`: declare it `let mut {name} = ..`"));
        }
        Some(part)
    }

    /// A tuple local used whole where a value is needed: what it may be used as instead.
    pub(super) fn whole_tuple(&self, name: &syn::Ident) -> bool {
        if self.tuple_parts(name).is_none() {
            return false;
        }
        self.cx.error(name.span(), format!("`{name}` is a tuple: kernels use its components `{name}.0`, `{name}.1`, copy it with `let` or destructure it with `let (a, b) = {name};`"));
        true
    }
}
