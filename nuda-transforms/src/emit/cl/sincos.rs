//! `x.sin()` and `x.cos()` of one local, fused into one `sincos` (the OpenCL C emitter, stage
//! 5): a CPU OpenCL such as PoCL runs a range reduction per call, so a loop needing both, as
//! Parboil's mri-q does, pays it twice. `sincos` returns both from one reduction, within the
//! same ULP bounds as `sin` and `cos` (OpenCL C 1.2, 7.4), so nothing is loosened. The
//! CUDA and HIP dialects spell it through `sincosf` (`opencl_in_cxx.h`).
//!
//! Only an immutable `let` whose name the rest of its block reads with both methods, and
//! does not bind again, is fused; in a `vector(w)` nest, whose lanes are `floatN` values
//! spelled elsewhere, nothing is.

use super::ClEmitter;
use crate::base::ir::builtins::MethodKind;
use crate::base::ir::visit::shared::{walk_expr, walk_stmt, Visit};
use crate::base::ir::*;
use crate::emit::template::Ph;

/// What the rest of a block does with one name.
#[derive(Default)]
struct Uses<'n> {
    name: &'n str,
    sin: bool,
    cos: bool,
    rebound: bool,
}

impl Visit for Uses<'_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        let binds = match s {
            Stmt::Let(l) => match &l.pat {
                Pat::Ident { name, .. } => *name == self.name,
                Pat::Tuple(names) => names.iter().flatten().any(|(n, _)| *n == self.name),
            },
            // Loop variables are integers, which have no `sin`; excluded all the same.
            Stmt::For { var, .. } => *var == self.name,
            Stmt::Nest(n) => n.loops.iter().any(|l| l.var == self.name),
            _ => false,
        };
        self.rebound |= binds;
        walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let Some(k) = trig_of(e, self.name) {
            self.sin |= k == MethodKind::Sin;
            self.cos |= k == MethodKind::Cos;
        }
        walk_expr(self, e);
    }
}

/// `Sin` or `Cos` where `e` is `name.sin()` or `name.cos()` (or `f32::sin(name)`).
fn trig_of(e: &Expr, name: &str) -> Option<MethodKind> {
    let ExprKind::Method {
        recv, method, args, ..
    } = &e.kind
    else {
        return None;
    };
    let kind = MethodKind::of(&method.to_string())?;
    let on_name = matches!(&strip(recv).kind, ExprKind::Var(v) if *v == name);
    (args.is_empty() && on_name && matches!(kind, MethodKind::Sin | MethodKind::Cos))
        .then_some(kind)
}

/// `e` without its parentheses.
fn strip(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Paren(x) => strip(x),
        _ => e,
    }
}

impl ClEmitter<'_> {
    /// After `let`, `l`, of statements `rest` and the block's `tail`: declares its sine and
    /// cosine from one `sincos` where the rest reads both.
    pub(super) fn fuse_sincos(&mut self, l: &Let, rest: &[Stmt], tail: Option<&Expr>) {
        let Pat::Ident {
            name,
            mutable: false,
        } = &l.pat
        else {
            return;
        };
        let text = name.to_string();
        let mut uses = Uses {
            name: &text,
            ..Uses::default()
        };
        rest.iter().for_each(|s| uses.visit_stmt(s));
        tail.into_iter().for_each(|t| uses.visit_expr(t));
        let Some(c) = self.names.lookup(name) else {
            return;
        };
        if !(uses.sin && uses.cos) || uses.rebound || l.init.is_none() || self.lanes.is_some() {
            return;
        }
        let t =
            l.ty.map_or_else(|| Ph::ty(l.slots[0]), |t| t.cl_name().to_string());
        let (s, co) = (
            self.names.fresh(&format!("{c}_sin")),
            self.names.fresh(&format!("{c}_cos")),
        );
        self.line(format!("{t} {co};"));
        self.line(format!("{t} {s} = sincos({c}, &{co});"));
        self.sincos.insert(c, (s, co));
    }

    /// The fused value standing for `recv.sin()` or `recv.cos()`, if `recv` is a fused local.
    pub(super) fn fused_trig(&mut self, recv: &Expr, kind: MethodKind) -> Option<String> {
        let ExprKind::Var(v) = &strip(recv).kind else {
            return None;
        };
        let (s, c) = self.sincos.get(&self.names.lookup(v)?)?;
        match kind {
            MethodKind::Sin => Some(s.clone()),
            MethodKind::Cos => Some(c.clone()),
            _ => None,
        }
    }
}
