//! The flag idiom, `if changed { over = true; }` (Rodinia's bfs): an assignment of a
//! loop-invariant value to a captured variable that the body never reads. In parallel its
//! result is still the sequential loop's: the value if any iteration assigns it, else the
//! variable's old value, whatever the order. It is rewritten, before capture analysis, into
//! an `|=` of a synthetic flag, a reduction:
//!
//! ```text
//! over = true;    becomes    __nuda_set_over |= true;
//! ```
//!
//! and after the launch the host does `if __nuda_set_over { over = true; }`.

use crate::base::ir::visit::{shared, walk_stmt, Visit, VisitMut};
use crate::base::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;

/// A variable set by the flag idiom.
#[derive(Debug, Clone)]
pub struct Flag {
    /// The captured variable.
    pub var: Ident,
    /// The synthetic `bool` reduction variable.
    pub flag: Ident,
    /// The value, as host code.
    pub value: TokenStream,
}

/// Rewrites every variable of `body` set only by the flag idiom; `bound` are the names the
/// nest binds (its loop variables).
pub fn rewrite(body: &mut Block, bound: &[Ident]) -> Vec<Flag> {
    let mut facts = Facts::default();
    facts.bound.extend(bound.iter().map(ToString::to_string));
    facts.visit_block(body);
    let mut flags = Vec::new();
    for (var, value, span) in facts.candidates() {
        let flag = Ident::new(&format!("__nuda_set_{var}"), span);
        let var_ident = Ident::new(&var, span);
        flags.push(Flag {
            value: host_value(&value, span),
            var: var_ident,
            flag: flag.clone(),
        });
        Replace {
            var: &var,
            flag: &flag,
        }
        .visit_block(body);
    }
    flags
}

/// The host's spelling of a loop-invariant value: a literal, a negated one, or a name.
fn host_value(e: &Expr, span: Span) -> TokenStream {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, suffix }) | ExprKind::Lit(Lit::Float { text, suffix }) => {
            let suffix = suffix.map(Scalar::rust_name).unwrap_or("");
            let lit: TokenStream = format!("{text}{suffix}").parse().unwrap_or_default();
            quote_spanned!(span=> #lit)
        }
        ExprKind::Lit(Lit::Bool(b)) => quote!(#b),
        ExprKind::Unary {
            op: UnOp::Neg,
            expr,
        } => {
            let v = host_value(expr, span);
            quote!(-#v)
        }
        ExprKind::Paren(x) => host_value(x, span),
        ExprKind::Var(v) => quote!(#v),
        _ => quote!(compile_error!(
            "nuda bug: a flag's value is not loop-invariant"
        )),
    }
}

/// What the body does with each name.
#[derive(Default)]
struct Facts {
    /// Names the body binds (`let`, loops): locals, not captures.
    bound: Vec<String>,
    /// Names read anywhere.
    read: Vec<String>,
    /// Names assigned other than plainly, or plainly with a value that varies.
    spoiled: Vec<String>,
    /// Plain assignments `var = value` with a loop-invariant value.
    sets: Vec<(String, Expr, Span)>,
}

impl Facts {
    /// The variables set only by plain assignments of one loop-invariant value, never read.
    fn candidates(&self) -> Vec<(String, Expr, Span)> {
        let mut out: Vec<(String, Expr, Span)> = Vec::new();
        for (var, value, span) in &self.sets {
            let text = crate::base::ir::display::expr(value);
            let same = self
                .sets
                .iter()
                .filter(|s| s.0 == *var)
                .all(|s| crate::base::ir::display::expr(&s.1) == text);
            let free = !self.read.contains(var) && !self.spoiled.contains(var);
            let fresh = !self.bound.contains(var) && !out.iter().any(|o| o.0 == *var);
            if same && free && fresh && self.invariant(value) {
                out.push((var.clone(), value.clone(), *span));
            }
        }
        out
    }

    /// A literal, or a name the body neither binds nor assigns.
    fn invariant(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(_) => true,
            ExprKind::Paren(x)
            | ExprKind::Unary {
                op: UnOp::Neg,
                expr: x,
            } => self.invariant(x),
            ExprKind::Var(v) => {
                let v = v.to_string();
                let assigned = self.sets.iter().any(|s| s.0 == v) || self.spoiled.contains(&v);
                !self.bound.contains(&v) && !assigned
            }
            _ => false,
        }
    }
}

impl Visit for Facts {
    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => match &l.pat {
                Pat::Ident { name, .. } => self.bound.push(name.to_string()),
                Pat::Tuple(parts) => {
                    self.bound
                        .extend(parts.iter().flatten().map(|p| p.0.to_string()));
                }
            },
            Stmt::For { var, .. } => self.bound.push(var.to_string()),
            Stmt::Nest(n) => self.bound.extend(n.loops.iter().map(|l| l.var.to_string())),
            Stmt::Assign {
                place: Place::Var(v),
                op,
                value,
                span,
                ..
            } => match op {
                None => self.sets.push((v.to_string(), value.clone(), *span)),
                Some(_) => self.spoiled.push(v.to_string()),
            },
            _ => {}
        }
        shared::walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let ExprKind::Var(v) = &e.kind {
            self.read.push(v.to_string());
        }
        shared::walk_expr(self, e);
    }
}

/// Turns each `var = value;` into `flag |= true;`.
struct Replace<'a> {
    var: &'a str,
    flag: &'a Ident,
}

impl VisitMut for Replace<'_> {
    fn visit_stmt(&mut self, s: &mut Stmt) {
        if let Stmt::Assign {
            place: Place::Var(v),
            op: op @ None,
            value,
            span,
            ..
        } = s
        {
            if v == self.var {
                *v = self.flag.clone();
                *op = Some(BinOp::BitOr);
                *value = Expr::new(ExprKind::Lit(Lit::Bool(true)), *span);
                return;
            }
        }
        walk_stmt(self, s);
    }
}
