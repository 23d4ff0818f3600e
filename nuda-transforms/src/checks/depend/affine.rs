//! Index expressions as affine forms over integer atoms (checks layer, `depend`): the
//! loop variables of two iterations, the loop-invariant names they share, and opaque terms
//! (an indirect index, a product of variables) that stand for anything.

use crate::base::ir::builtins::MethodKind;
use crate::base::ir::*;
use std::collections::BTreeMap;

/// An integer unknown of a dependence system.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// A loop variable, of iteration `side` (0 or 1).
    Var(String, u8),
    /// A loop-invariant name (a captured scalar, a constant): one value for both iterations.
    Sym(String),
    /// A loop variable times a loop-invariant name (`i * m`), of iteration `side`: any value
    /// here, but a row of a flattened index to `mod.rs` (`rows`).
    Prod(String, String, u8),
    /// Something not affine (`idx[i]`, `i * j`, `i / 2`), of iteration `side`: any value.
    /// Named by its text and the bindings then in scope, so that the same expression in
    /// one iteration is the same atom.
    Opaque(String, u8),
}

/// `constant + Σ coefficient · atom`, in exact integers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Affine {
    pub terms: BTreeMap<Atom, i128>,
    pub constant: i128,
}

/// Coefficients past this could wrap a 64-bit index in a way integers do not: such a term
/// is opaque.
const LIMIT: i128 = 1 << 32;

impl Affine {
    /// The constant `c`.
    pub fn constant(c: i128) -> Affine {
        Affine {
            constant: c,
            ..Affine::default()
        }
    }

    /// The atom `a`.
    pub fn atom(a: Atom) -> Affine {
        let mut f = Affine::default();
        f.terms.insert(a, 1);
        f
    }

    /// `self + k · other`. Saturating: a number past `i128` (`i * BIG * BIG`) stays past
    /// [`LIMIT`], so the form is opaque, never a panic in the macro.
    pub fn add_scaled(&self, other: &Affine, k: i128) -> Affine {
        let mut out = self.clone();
        out.constant = out
            .constant
            .saturating_add(k.saturating_mul(other.constant));
        for (a, c) in &other.terms {
            let e = out.terms.entry(a.clone()).or_insert(0);
            *e = e.saturating_add(k.saturating_mul(*c));
            if *e == 0 {
                out.terms.remove(a);
            }
        }
        out
    }

    /// `k · self`.
    pub fn scale(&self, k: i128) -> Affine {
        Affine::default().add_scaled(self, k)
    }

    /// The value, if it has no atom.
    pub fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// Whether every number is small enough that 64-bit wrapping cannot matter.
    pub fn small(&self) -> bool {
        self.constant.abs() < LIMIT && self.terms.values().all(|c| c.abs() < LIMIT)
    }

    /// The same form for the other iteration: its loop variables and opaque terms swapped.
    pub fn other_side(&self) -> Affine {
        let flip = |a: &Atom| match a {
            Atom::Var(n, s) => Atom::Var(n.clone(), 1 - s),
            Atom::Opaque(k, s) => Atom::Opaque(k.clone(), 1 - s),
            Atom::Prod(v, m, s) => Atom::Prod(v.clone(), m.clone(), 1 - s),
            other => other.clone(),
        };
        Affine {
            terms: self.terms.iter().map(|(a, c)| (flip(a), *c)).collect(),
            constant: self.constant,
        }
    }
}

/// What a name means where an index uses it.
#[derive(Debug, Clone)]
pub enum Binding {
    /// A loop variable, whose atom is `Var(this name, side)` (unique per loop, so that a
    /// shadowing inner loop is another unknown).
    Loop(String),
    /// An immutable local with an affine value.
    Value(Affine),
    /// A local whose value is not affine, or changes.
    Unknown,
}

/// The conversion of expressions to affine forms, for iteration 0.
pub struct Forms {
    /// Names bound in the body so far, innermost last.
    pub env: Vec<(String, Binding)>,
    /// Names the body assigns: not loop-invariant.
    pub assigned: Vec<String>,
    /// How many bindings came before: part of an opaque term's name.
    pub version: usize,
}

impl Forms {
    /// The term of `e`, which is not affine: a symbol if every iteration computes the same
    /// value (`n / 2` of a captured `n`), else an unknown of each iteration.
    fn opaque(&self, e: &Expr) -> Affine {
        let text = crate::base::ir::display::expr(e);
        if self.invariant(e) {
            return Affine::atom(Atom::Sym(text));
        }
        Affine::atom(Atom::Opaque(format!("{text}@{}", self.version), 0))
    }

    /// Whether `e` has one value for the whole launch: it reads no memory and names only
    /// what the body neither binds nor assigns (captured scalars and constants). Its text
    /// then names that value wherever it appears.
    fn invariant(&self, e: &Expr) -> bool {
        let fixed = match &e.kind {
            ExprKind::Lit(_) | ExprKind::Assoc { .. } => true,
            ExprKind::Var(v) => {
                let n = v.to_string();
                !self.env.iter().any(|(m, _)| *m == n) && !self.assigned.contains(&n)
            }
            ExprKind::Binary { .. }
            | ExprKind::Unary { .. }
            | ExprKind::Paren(_)
            | ExprKind::Cast { .. }
            | ExprKind::Field { .. } => true,
            ExprKind::Method { method, .. } => MethodKind::of(&method.to_string())
                .is_some_and(|m| !m.on_memory() || matches!(m, MethodKind::Dims | MethodKind::Len)),
            _ => false,
        };
        fixed && e.operands().into_iter().all(|o| self.invariant(o))
    }

    /// The affine form of `e`, opaque where it is not affine.
    pub fn of(&mut self, e: &Expr) -> Affine {
        let f = self.form(e);
        match f.small() {
            true => f,
            false => self.opaque(e),
        }
    }

    fn form(&mut self, e: &Expr) -> Affine {
        match &e.kind {
            ExprKind::Lit(Lit::Int { text, .. }) => match text.replace('_', "").parse() {
                Ok(v) => Affine::constant(v),
                Err(_) => self.opaque(e),
            },
            ExprKind::Var(v) => self.name(e, &v.to_string()),
            ExprKind::Paren(x) => self.form(x),
            ExprKind::Cast { expr, ty } if wide(ty) => self.cast(e, expr),
            ExprKind::Unary {
                op: UnOp::Neg,
                expr,
            } => self.form(expr).scale(-1),
            ExprKind::Binary { op, lhs, rhs } => self.binary(e, *op, lhs, rhs),
            _ => self.opaque(e),
        }
    }

    /// `expr as usize` (or another 64-bit type): the operand's form where its value is kept.
    /// Arithmetic inside the cast runs in the operand's type, which may be a float or a
    /// narrow integer that wraps: `(h + h) as usize` of an `f32`; `(i * 2) as usize` of a
    /// `u8`, which meets itself at `i` and `i + 128`; `(i + 4294967295) as usize` of a
    /// `u32`, which is `i - 1`; `(i + 10) as usize` of a `u8`, which is 5 at `i = 251`. The
    /// type is rustc's to know, not the macro's: only a bare loop variable or captured name
    /// is followed, anything else is one term (`message.rs` says to cast first).
    fn cast(&mut self, e: &Expr, expr: &Expr) -> Affine {
        let inner = self.form(expr);
        let bare = matches!(unparen(expr).kind, ExprKind::Var(_))
            && inner.constant == 0
            && inner.terms.len() == 1
            && inner.terms.values().all(|c| *c == 1);
        match bare {
            true => inner,
            false => self.opaque(e),
        }
    }

    /// The form of index position `e` where it is one cast of a loop variable plus or minus a
    /// constant (`(i + 5) as usize`): the exact form, `i + 5`. Sound only beside the same
    /// expression in another iteration (`mod.rs`, `dependent`): `±i + c` wraps to the same
    /// value for two iterations only where it is the same without wrapping, since `i` itself
    /// keeps within its type's values. `None` for any other expression.
    pub fn shifted_cast(&mut self, e: &Expr) -> Option<Affine> {
        let ExprKind::Cast { expr, ty } = &unparen(e).kind else {
            return None;
        };
        let inner = self.form(expr);
        let one = inner.terms.len() == 1
            && inner
                .terms
                .iter()
                .all(|(a, c)| c.abs() == 1 && matches!(a, Atom::Var(..)));
        (wide(ty) && one && inner.small()).then_some(inner)
    }

    fn binary(&mut self, e: &Expr, op: BinOp, lhs: &Expr, rhs: &Expr) -> Affine {
        let (a, b) = (self.form(lhs), self.form(rhs));
        match (op, a.as_constant(), b.as_constant()) {
            (BinOp::Add, ..) => a.add_scaled(&b, 1),
            (BinOp::Sub, ..) => a.add_scaled(&b, -1),
            (BinOp::Mul, Some(k), _) => b.scale(k),
            (BinOp::Mul, _, Some(k)) => a.scale(k),
            (BinOp::Mul, ..) => product(&a, &b).unwrap_or_else(|| self.opaque(e)),
            _ => self.opaque(e),
        }
    }

    /// A name: a loop variable, a local's value, or a loop-invariant symbol.
    fn name(&mut self, e: &Expr, n: &str) -> Affine {
        match self
            .env
            .iter()
            .rev()
            .find(|(m, _)| m == n)
            .map(|b| b.1.clone())
        {
            Some(Binding::Loop(atom)) => Affine::atom(Atom::Var(atom, 0)),
            Some(Binding::Value(f)) => f,
            Some(Binding::Unknown) => self.opaque(e),
            None if self.assigned.iter().any(|a| a == n) => self.opaque(e),
            None => Affine::atom(Atom::Sym(n.into())),
        }
    }
}

/// `i * m` (or `m * i`) of a loop variable and a loop-invariant name alone.
fn product(a: &Affine, b: &Affine) -> Option<Affine> {
    let lone = |f: &Affine| match f.terms.iter().next() {
        Some((atom, 1)) if f.terms.len() == 1 && f.constant == 0 => Some(atom.clone()),
        _ => None,
    };
    match (lone(a)?, lone(b)?) {
        (Atom::Var(v, 0), Atom::Sym(m)) | (Atom::Sym(m), Atom::Var(v, 0)) => {
            Some(Affine::atom(Atom::Prod(v, m, 0)))
        }
        _ => None,
    }
}

/// `e` without its parentheses.
pub(super) fn unparen(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Paren(x) => unparen(x),
        _ => e,
    }
}

/// Casts that keep every value an index can have (a narrower type could wrap).
pub(super) fn wide(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Scalar(Scalar::Usize | Scalar::Isize | Scalar::U64 | Scalar::I64)
    )
}
