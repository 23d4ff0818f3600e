//! Evaluating a range once, as Rust does. The transformations use a loop's start, step and
//! bound many times (each copy's value, trip counts, remainders); pasting the expressions
//! would re-evaluate them where the body may have changed what they read (`s += 1` for a loop
//! over `s..s + 3`, or an array element the body writes). An expression that can change is
//! bound once to a fresh variable before the transformed nest: the *prelude*.
//!
//! Only nests inside a kernel (or on the host) have a place before them. A `nuwork!` nest's
//! mapped ranges are evaluated on the host before the launch; the kernel cannot assign what
//! they read (captures), so only an array read there, which the kernel may write, is refused.

use super::build::Gen;
use crate::base::ir::builtins::MethodKind;
use crate::base::ir::*;
use syn::Ident;

impl Gen<'_> {
    /// `e`, or a fresh variable bound to it in the prelude when the body may change its
    /// value. `slot` types the variable (a new slot if `None`); `stem` names it.
    pub fn hoist(&mut self, e: Expr, slot: Option<Slot>, stem: &str, like: &Ident) -> Expr {
        if self.stable(&e) {
            return e;
        }
        if self.prelude.is_none() {
            let msg = format!("annot!: the range of `{like}` reads an array or calls a function; the annotation evaluates it again inside the kernel, which may have changed it; compute it into a variable before nuwork!");
            self.cx.error(e.span, msg);
            return e;
        }
        let name = self.fresh(stem, like);
        let slot = slot.unwrap_or_else(|| self.slot());
        let span = e.span;
        let bind = Stmt::Let(Let {
            named: None,
            pat: Pat::Ident {
                name: name.clone(),
                mutable: false,
            },
            ty: None,
            init: Some(e),
            slots: vec![slot],
            span,
        });
        if let Some(p) = &mut self.prelude {
            p.push(bind);
        }
        self.var(&name)
    }

    /// Whether `e` has the same value wherever in the nest it is evaluated: it reads no array,
    /// image or function, and no variable the body assigns.
    fn stable(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Assoc { .. } => true,
            ExprKind::Var(v) => !self.assigned.contains(&v.to_string()),
            ExprKind::Index { .. } | ExprKind::If { .. } | ExprKind::Block(_) => false,
            ExprKind::Call { func, args } => {
                let builtin = crate::base::ir::builtins::builtin_of(func).is_some();
                builtin && args.iter().all(|a| self.stable(a))
            }
            // An image read or an atomic: memory other work-items change, or an effect.
            ExprKind::Method { method, .. }
                if MethodKind::of(&method.to_string()).is_some_and(|k| k.reads_memory()) =>
            {
                false
            }
            _ => e.operands().into_iter().all(|x| self.stable(x)),
        }
    }

    /// `let var = value;` (typed by `slot`), which the body starts with in place of the loop.
    pub fn bind(&self, var: &Ident, value: Expr, slot: Slot) -> Stmt {
        let span = value.span;
        Stmt::Let(Let {
            named: None,
            pat: Pat::Ident {
                name: var.clone(),
                mutable: false,
            },
            ty: None,
            init: Some(value),
            slots: vec![slot],
            span,
        })
    }
}
