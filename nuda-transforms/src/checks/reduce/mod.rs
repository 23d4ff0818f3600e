//! Reductions in `nuwork!` (see `README.md` here): recognising a reduction variable's
//! updates. Capture analysis calls [`update_of`] on every assignment to a captured scalar;
//! an update in one of the forms below makes the scalar a reduction variable, any other
//! assignment is an error naming the forms, and a read anywhere else in the body is an error
//! too (`capture` checks that once the body is walked).
//!
//! The forms: `s += e`, `s -= e`, `s *= e`, `s |= e`, `s &= e`, `s ^= e`, `s = s.max(e)`,
//! `s = s.min(e)`, each possibly under `if`, where `e` does not read `s`.
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

pub mod flag;
pub mod push;
mod slice;
#[cfg(test)]
mod test;

pub use slice::slice;

use crate::base::ir::*;
use crate::base::paths::PRIVATE;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

pub use nuda_abi::RedOp;

/// How a nest with scan variables runs on OpenCL and CUDA devices (`emit/cl/lookback.rs`,
/// `emit/cl/scan.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanForm {
    /// One kernel with decoupled look-back: every element read and written once.
    OnePass,
    /// Totals, then the body: a `nudist` rank needs the ranks' totals before its prefix,
    /// and a vector pushed to an unbounded number of times per iteration grows to its new
    /// length between the passes (a bounded one reserves room for every push first).
    TwoPass,
}

impl ScanForm {
    /// The form of a nest in a `nudist` launch or not, with these pushes.
    pub fn of(dist: bool, pushes: &[push::Push]) -> ScanForm {
        match dist || pushes.iter().any(|x| x.bound.is_none()) {
            true => ScanForm::TwoPass,
            false => ScanForm::OnePass,
        }
    }
}

/// The runtime's value for reduction operator `op`.
pub fn red_op_tokens(op: RedOp) -> TokenStream {
    let v = syn::Ident::new(op.name(), Span::call_site());
    quote!(#PRIVATE::RedOp::#v)
}

/// A reduction variable of a `nuwork!` body.
#[derive(Debug, Clone)]
pub struct Reduction {
    /// The captured `let mut` scalar.
    pub name: Ident,
    /// How its updates combine.
    pub op: RedOp,
    /// Its first update.
    pub span: Span,
    /// Where the body first reads it, if it does: then it is a scan variable, and each read
    /// sees the running value of the sequential loop at that point.
    pub scan: Option<Span>,
}

/// The update forms with variable `s`, for messages.
pub fn forms(s: &Ident) -> String {
    nuda_abi::reduce::forms(&s.to_string())
}

/// If `name op= value` (or `name = value`) is an update in one of the forms, its operator
/// and the contribution `e`.
pub fn update_of<'v>(
    name: &Ident,
    op: Option<BinOp>,
    value: &'v mut Expr,
) -> Option<(RedOp, &'v mut Expr)> {
    match op {
        Some(op) => Some((RedOp::of_compound(&format!("{}=", op.symbol()))?, value)),
        None => min_max(name, value),
    }
}

/// `name.max(e)` or `name.min(e)`: the operator and `e`.
fn min_max<'v>(name: &Ident, value: &'v mut Expr) -> Option<(RedOp, &'v mut Expr)> {
    let ExprKind::Method {
        recv,
        method,
        args,
        path: None,
    } = &mut value.kind
    else {
        return None;
    };
    let on_self = matches!(&recv.kind, ExprKind::Var(v) if v == name);
    let op = RedOp::of_method(&method.to_string())?;
    match args.as_mut_slice() {
        [e] if on_self => Some((op, e)),
        _ => None,
    }
}

/// Records an update of `name` with `op` at `span` in `list`; a second operator for one
/// variable is the error returned.
pub fn record(
    list: &mut Vec<Reduction>,
    name: &Ident,
    op: RedOp,
    span: Span,
) -> Result<(), String> {
    match list.iter().find(|r| r.name == *name) {
        Some(r) if r.op != op => Err(format!(
            "nuwork!: `{name}` is a reduction variable combined with {}, so it cannot also be updated with {}; use a second variable for the other operator",
            r.op.written(),
            op.written()
        )),
        Some(_) => Ok(()),
        None => {
            list.push(Reduction {
                name: name.clone(),
                op,
                span,
                scan: None,
            });
            Ok(())
        }
    }
}

/// The error for an assignment to captured `name` that is not a reduction or scan update;
/// `carried` when the assigned value reads `name` itself.
pub fn not_an_update(name: &Ident, carried: bool) -> String {
    if carried {
        return format!("nuwork!: this assignment makes each iteration of `{name}` depend on the one before in a way that is neither a scan nor a reduction; the loop-carried forms that run in parallel are {} (each possibly under `if`, `e` not reading `{name}`), and reading `{name}` anywhere else in the body gives its running value", forms(name));
    }
    format!("nuwork!: `{name}` is captured from outside the loop, so every work-item sees its value from before the loop; a captured `let mut` scalar can only be a reduction or scan variable, updated as {} (each possibly under `if`; reading it in the body gives the running value, a scan), or set to one loop-invariant value and never read (`{name} = true;` under `if`: set if any iteration sets it), or copy it into a local (`let mut x = {name};`)", forms(name))
}

/// The contribution `e` of an update capture analysis accepted: the value of `s op= e`, or
/// the argument of `s = s.max(e)`.
pub fn contribution(op: Option<BinOp>, value: &Expr) -> &Expr {
    match (&value.kind, op) {
        (ExprKind::Method { args, .. }, None) if args.len() == 1 => &args[0],
        _ => value,
    }
}

/// Whether `e` reads variable `name`.
pub fn reads(e: &Expr, name: &Ident) -> bool {
    use crate::base::ir::visit::shared::{walk_expr, Visit};
    struct Finds<'n>(&'n Ident, bool);
    impl Visit for Finds<'_> {
        fn visit_expr(&mut self, e: &Expr) {
            self.1 |= matches!(&e.kind, ExprKind::Var(v) if v == self.0);
            walk_expr(self, e);
        }
    }
    let mut f = Finds(name, false);
    f.visit_expr(&e);
    f.1
}
