//! Values on `vector(w)` lanes that need more than one C expression (the OpenCL C emitter,
//! beside `vector.rs`): a value `if` or block whose condition every lane shares, `clamp`
//! with shared bounds, and the one error a struct or private array whose parts differ
//! between lanes gets.

use super::ClEmitter;
use crate::base::ir::*;
use crate::checks::lanes::Kind;
use crate::checks::sites::SiteKind;
use crate::emit::template::Ph;

impl ClEmitter<'_> {
    /// A part of a struct or private array that differs between lanes: one error per local,
    /// the documented one, and none where its definition had one already.
    pub(super) fn aggregate_error(&mut self, base: &Expr, span: proc_macro2::Span) -> String {
        let ExprKind::Var(name) = &base.kind else {
            return self.lane_error(span, "this expression on values that differ between lanes");
        };
        let name = name.to_string();
        if self.poisoned.contains(&name) {
            return "0".into();
        }
        self.poisoned.push(name.clone());
        self.lane_error(
            span,
            &format!("a struct or array `{name}` whose parts differ between lanes"),
        )
    }

    /// Whether `e` reads a lane local whose definition had an error already.
    pub(super) fn mentions_poisoned(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(v) => self.poisoned.contains(&v.to_string()),
            _ => e.operands().into_iter().any(|x| self.mentions_poisoned(x)),
        }
    }

    /// A value `if` whose condition every lane shares: the branch taken stores its vector
    /// (a uniform tail broadcast) into a temporary, as a scalar value `if` does.
    pub(super) fn vector_if(&mut self, e: &Expr, cond: &Expr, then: &Block, els: &Expr) -> String {
        let s = e.slot.unwrap_or_default();
        let ty = format!("{}{}", Ph::ty(s), self.width());
        self.hoisted_as(e, ty, |em, tmp| {
            let c = em.expr(cond);
            em.line(format!("if ({}) {{", super::unparen(&c)));
            em.vector_value_block(then, tmp, s);
            em.line("} else {");
            match &els.kind {
                ExprKind::Block(b) => em.vector_value_block(b, tmp, s),
                _ => {
                    em.indent += 1;
                    let v = em.lane_operand(els, s);
                    em.line(format!("{tmp} = {v};"));
                    em.indent -= 1;
                }
            }
            em.line("}");
        })
    }

    /// A block's value on lanes: its statements, then its tail's vector.
    pub(super) fn vector_block(&mut self, e: &Expr, b: &Block) -> String {
        let s = e.slot.unwrap_or_default();
        if b.stmts.is_empty() {
            return match &b.tail {
                Some(t) => format!("({})", self.lane_operand(t, s)),
                None => self.lane_error(e.span, "a block without a value"),
            };
        }
        let ty = format!("{}{}", Ph::ty(s), self.width());
        self.hoisted_as(e, ty, |em, tmp| {
            em.line("{");
            em.vector_value_block(b, tmp, s);
            em.line("}");
        })
    }

    /// `b`'s statements, then `tmp = ` its tail as a vector of slot `s`'s type.
    fn vector_value_block(&mut self, b: &Block, tmp: &str, s: Slot) {
        self.names.push();
        self.indent += 1;
        self.stmts(&b.stmts);
        if let Some(t) = &b.tail {
            let v = self.lane_operand(t, s);
            self.line(format!("{tmp} = {v};"));
        }
        self.indent -= 1;
        self.names.pop();
    }

    /// `x.clamp(lo, hi)` on lanes, with bounds every lane shares: the prelude's
    /// `nu_vclamp_<floatN>`, which checks the bounds once (out of order, a fault where Rust
    /// panics) and keeps a NaN lane NaN, as Rust's `clamp` does.
    pub(super) fn vector_clamp(&mut self, recv: &Expr, args: &[Expr], e: &Expr) -> String {
        let uniform = args
            .iter()
            .all(|a| self.lane_kind(a) == Some(Kind::Uniform));
        if !uniform || args.len() != 2 {
            return self.lane_error(e.span, "`.clamp()` with bounds that differ between lanes; clamp to bounds every lane shares");
        }
        let s = recv.slot.or(e.slot).unwrap_or_default();
        let x = self.lane_operand(recv, s);
        let (lo, hi) = (self.expr(&args[0]), self.expr(&args[1]));
        let (c, q) = self.env.site_args(SiteKind::Clamp, "", 0, e.span);
        let (t, w) = (Ph::ty(s), self.width());
        format!("nu_vclamp_{t}{w}({x}, {lo}, {hi}, {c}, {q}, nu_err)")
    }
}
