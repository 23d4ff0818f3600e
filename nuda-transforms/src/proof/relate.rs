//! The one relation the interval proof follows (stage 6, the launch-time proof): a work-item's
//! global id is its group's first id plus its local id, `global_id(d) == group_id(d) *
//! local_size(d) + local_id(d)` (nuda launches with no global offset, and rounds the global
//! size up to whole groups on every engine). An interval of `global_id(d)` forgets which
//! work-item it is; written through the local id, a sum keeps what a guard on the local id
//! knew. A tree step's `scratch[g + s]` under `if l < s`, with `s <= local_size / 2`, is then
//! `group_id * local_size + (l + s)`, and `l + s < local_size`: below the group's end.

use super::{Proof, Reg};
use crate::base::paths::PRIVATE;
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// A register's value as a work-item builtin of a literal dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Origin {
    /// `true`: `global_id(d)`; `false`: `local_id(d)`.
    pub global: bool,
    /// The dimension, as written.
    pub dim: u128,
    /// The register holding the dimension.
    pub dim_reg: Reg,
}

impl Proof<'_> {
    /// `a + b` (whose plain interval is `plain`) where one side is `global_id(d)` and a
    /// `local_id(d)` is in scope: also as `group_id(d) * local_size(d) + (local + other)`, and
    /// the value is in both intervals.
    pub(super) fn related_sum(
        &mut self,
        a: Reg,
        b: Reg,
        ty: TokenStream,
        plain: Reg,
        span: Span,
    ) -> Reg {
        let global = |r: Reg| self.origins.get(&r).filter(|o| o.global).copied();
        let Some((g, other)) = global(a)
            .map(|g| (g, b))
            .or_else(|| global(b).map(|g| (g, a)))
        else {
            return plain;
        };
        let Some(local) = self.local_in_scope(g.dim) else {
            return plain;
        };
        let d = g.dim_reg;
        let first = self.push(quote!(Item(#PRIVATE::Item::GroupId, #d)));
        let size = self.push(quote!(Item(#PRIVATE::Item::LocalSize, #d)));
        let base = self.binary(crate::base::ir::BinOp::Mul, first, size, ty.clone(), span);
        let inner = self.binary(crate::base::ir::BinOp::Add, local, other, ty.clone(), span);
        let alt = self.binary(crate::base::ir::BinOp::Add, base, inner, ty, span);
        // Both intervals hold the value: their intersection, as two refinements.
        let below = self.push(quote!(Refine(#plain, #PRIVATE::Cmp::Le, #alt)));
        self.push(quote!(Refine(#below, #PRIVATE::Cmp::Ge, #alt)))
    }

    /// The innermost register in scope that holds `local_id(dim)`, refinements included.
    fn local_in_scope(&self, dim: u128) -> Option<Reg> {
        let local = |r: &Reg| {
            self.origins
                .get(r)
                .is_some_and(|o| !o.global && o.dim == dim)
        };
        let mut regs = self.scopes.iter().rev().flat_map(|s| s.iter().rev());
        regs.find(|(_, r)| local(r)).map(|(_, r)| *r)
    }
}
