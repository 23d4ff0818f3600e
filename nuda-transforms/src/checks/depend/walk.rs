//! The walk of a `nuwork!` body that finds every access to a captured array or image, with
//! its index as affine forms and the bounds of the serial loops around it (checks layer,
//! `depend`).

use super::affine::{Affine, Atom, Binding, Forms};
use crate::base::ir::builtins::MethodKind;
use crate::base::ir::visit::shared::{walk_expr, walk_stmt, Visit};
use crate::base::ir::*;
use proc_macro2::Span;

/// How an access touches its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    /// `a.atomic_add(..)` and the other atomics: a read-modify-write no other atomic races
    /// with, but a plain read or write does.
    Atomic(MethodKind),
}

/// One access to a captured array or image.
pub struct Access {
    pub array: String,
    pub index: Vec<Affine>,
    /// The index with each position that is one cast of a loop variable plus a constant
    /// (`(i + 5) as usize`) followed exactly: for a pair with the same index as written.
    pub exact: Vec<Affine>,
    pub kind: Kind,
    /// The compound operator, where the access is half of `a[i] op= v`.
    pub update: Option<BinOp>,
    /// Whether it is an image's `read` or `write`.
    pub image: bool,
    /// The scan variable the index is, where each store there is followed by the variable's
    /// increment (`out[slot] = v; slot += 1;`, and a push's store): iterations then store
    /// to slots of their own.
    pub slot: Option<String>,
    /// The index as written, and where.
    pub text: String,
    pub span: Span,
    /// The bounds of the serial loops around it, of iteration 0.
    pub bounds: Vec<Bound>,
}

impl Access {
    /// Whether it changes the element.
    pub fn writes(&self) -> bool {
        self.kind != Kind::Read
    }

    /// Whether it is the store a push was rewritten to (`crate::checks::reduce::push`).
    pub fn is_push(&self) -> bool {
        self.text.contains("__nuda_len_")
    }
}

/// A loop variable's bound: `form ≥ 0`, or `form = 0` (a stepped range's stride).
#[derive(Debug, Clone)]
pub struct Bound {
    pub form: Affine,
    pub equal: bool,
}

impl Bound {
    fn ge(form: Affine) -> Bound {
        Bound { form, equal: false }
    }

    pub fn other_side(&self) -> Bound {
        Bound {
            form: self.form.other_side(),
            equal: self.equal,
        }
    }
}

/// The walk of the body: the bindings in scope and the accesses found.
pub struct Walk {
    pub forms: Forms,
    pub accesses: Vec<Access>,
    /// The bounds of the serial loops around the current point.
    pub serial: Vec<Bound>,
    loops: usize,
    /// Names the body only ever increases by a literal (`slot += 1`): scan variables.
    counters: Vec<String>,
    /// The counter the store being walked is followed by the increment of.
    slot: Option<String>,
    /// Whether the access being recorded is an image's.
    image: bool,
}

impl Walk {
    pub fn new(body: &Block, loops: &[Loop]) -> Walk {
        Walk {
            forms: Forms {
                env: Vec::new(),
                assigned: assigned_names(body, loops),
                version: 0,
            },
            accesses: Vec::new(),
            serial: Vec::new(),
            loops: 0,
            counters: counters(body),
            slot: None,
            image: false,
        }
    }

    /// Binds loop variable `var` over `range`; its bounds join `serial`. Its atom's name.
    pub fn bind_loop(&mut self, var: &syn::Ident, range: &Range) -> String {
        self.loops += 1;
        let atom = format!("{var}#{}", self.loops);
        let bounds = range_bounds(&mut self.forms, &atom, range);
        self.serial.extend(bounds);
        self.forms
            .env
            .push((var.to_string(), Binding::Loop(atom.clone())));
        self.forms.version += 1;
        atom
    }

    /// A loop inside the body: one work-item runs its iterations in order.
    fn serial_loop(&mut self, loops: &[(&syn::Ident, &Range)], body: &Block) {
        let (env, serial) = (self.forms.env.len(), self.serial.len());
        for (var, range) in loops {
            [&range.start, &range.end]
                .into_iter()
                .chain(&range.step)
                .for_each(|e| self.visit_expr(e));
            self.bind_loop(var, range);
        }
        self.visit_block(body);
        self.forms.env.truncate(env);
        self.serial.truncate(serial);
    }

    fn bind(&mut self, l: &Let) {
        let value = l.init.as_ref().map(|e| {
            self.visit_expr(e);
            self.forms.of(e)
        });
        self.forms.version += 1;
        match &l.pat {
            Pat::Ident { name, mutable } => {
                let n = name.to_string();
                let b = match (value, *mutable || self.forms.assigned.contains(&n)) {
                    (Some(f), false) => Binding::Value(f),
                    _ => Binding::Unknown,
                };
                self.forms.env.push((n, b));
            }
            Pat::Tuple(parts) => {
                for (n, _) in parts.iter().flatten() {
                    self.forms.env.push((n.to_string(), Binding::Unknown));
                }
            }
        }
    }

    fn place(&mut self, p: &Place, op: Option<BinOp>, span: Span) {
        match p {
            Place::Index { base, index } => {
                index.iter().for_each(|e| self.visit_expr(e));
                if op.is_some() {
                    self.access(base, index, Kind::Read, op, span);
                }
                self.access(base, index, Kind::Write, op, span);
            }
            Place::Member { path, .. } => path.iter().for_each(|s| {
                if let Step::Elem(e) = s {
                    self.visit_expr(e);
                }
            }),
            Place::Var(_) => self.forms.version += 1,
        }
    }
}

/// The walk: the shared visitor, with a scope per block and every array access recorded.
impl Visit for Walk {
    /// Walks `b` in a scope of its own.
    fn visit_block(&mut self, b: &Block) {
        let (env, serial) = (self.forms.env.len(), self.serial.len());
        for (k, s) in b.stmts.iter().enumerate() {
            self.slot = slot_store(s, b.stmts.get(k + 1), &self.counters);
            self.visit_stmt(s);
            self.slot = None;
        }
        if let Some(t) = &b.tail {
            self.visit_expr(t);
        }
        self.forms.env.truncate(env);
        self.serial.truncate(serial);
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => self.bind(l),
            Stmt::Assign {
                place,
                op,
                value,
                span,
                ..
            } => {
                self.visit_expr(value);
                self.place(place, *op, *span);
            }
            Stmt::For {
                var, range, body, ..
            } => self.serial_loop(&[(var, range)], body),
            Stmt::Nest(n) => {
                let loops: Vec<(&syn::Ident, &Range)> =
                    n.loops.iter().map(|l| (&l.var, &l.range)).collect();
                self.serial_loop(&loops, &n.body);
            }
            _ => walk_stmt(self, s),
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Index { base, index } => self.access(base, index, Kind::Read, None, e.span),
            ExprKind::Method {
                recv, method, args, ..
            } => self.method(recv, method, args, e.span),
            _ => {}
        }
        walk_expr(self, e);
    }
}

impl Walk {
    /// An atomic on an array, or an image's `read(x, y)` or `write(x, y, v)`.
    fn method(&mut self, recv: &Expr, method: &syn::Ident, args: &[Expr], span: Span) {
        let (ExprKind::Var(base), Some(m)) = (&recv.kind, MethodKind::of(&method.to_string()))
        else {
            return;
        };
        self.image = matches!(m, MethodKind::Read | MethodKind::Write);
        let (kind, index) = match m {
            MethodKind::Read if args.len() == 2 => (Kind::Read, args),
            MethodKind::Write if args.len() == 3 => (Kind::Write, &args[..2]),
            _ if m.is_atomic() && !args.is_empty() => match &args[0].kind {
                ExprKind::Tuple(parts) => (Kind::Atomic(m), &parts[..]),
                _ => (Kind::Atomic(m), &args[..1]),
            },
            _ => return,
        };
        self.access(&base.clone(), index, kind, None, span);
        self.image = false;
    }

    fn access(
        &mut self,
        base: &syn::Ident,
        index: &[Expr],
        kind: Kind,
        update: Option<BinOp>,
        span: Span,
    ) {
        // A local (a private array) belongs to one iteration.
        let name = base.to_string();
        if self.forms.env.iter().any(|(n, _)| *n == name) {
            return;
        }
        let forms: Vec<Affine> = index.iter().map(|x| self.forms.of(x)).collect();
        let exact = (index.iter().zip(&forms))
            .map(|(x, f)| self.forms.shifted_cast(x).unwrap_or_else(|| f.clone()))
            .collect();
        let text: Vec<String> = index.iter().map(crate::base::ir::display::expr).collect();
        let text = match text.len() {
            1 => text[0].clone(),
            _ => format!("({})", text.join(", ")),
        };
        let slot = match kind {
            Kind::Write => self.slot.take(),
            _ => None,
        };
        self.accesses.push(Access {
            array: name,
            index: forms,
            exact,
            kind,
            update,
            image: self.image,
            slot,
            text,
            span,
            bounds: self.serial.clone(),
        });
    }
}

/// The bounds of loop variable `atom` over `range`, where they are affine.
fn range_bounds(forms: &mut Forms, atom: &str, r: &Range) -> Vec<Bound> {
    let v = Affine::atom(Atom::Var(atom.to_string(), 0));
    let (start, end) = (forms.of(&r.start), forms.of(&r.end));
    let step = match &r.step {
        None => Some(1),
        Some(s) => forms.of(s).as_constant(),
    };
    let excl = Affine::constant(i128::from(!r.inclusive));
    let (low, high) = match step {
        // Up from start: start ≤ v ≤ end - 1 (or end).
        Some(s) if s > 0 => (
            v.add_scaled(&start, -1),
            end.add_scaled(&v, -1).add_scaled(&excl, -1),
        ),
        // Down from start: end + 1 (or end) ≤ v ≤ start.
        Some(s) if s < 0 => (
            start.add_scaled(&v, -1),
            v.add_scaled(&end, -1).add_scaled(&excl, -1),
        ),
        _ => return Vec::new(),
    };
    let mut out = vec![Bound::ge(low), Bound::ge(high)];
    // A step s other than ±1: v = start + s·t for an integer t.
    if let Some(s) = step.filter(|s| s.abs() > 1) {
        let t = Affine::atom(Atom::Var(format!("{atom}/step"), 0));
        let form = v.add_scaled(&start, -1).add_scaled(&t, -s);
        out.push(Bound { form, equal: true });
    }
    out
}

/// The names the body assigns (`x = ..`, `x += ..`): not loop-invariant; and the loop
/// variables of the nest, which no symbol may take.
fn assigned_names(body: &Block, loops: &[Loop]) -> Vec<String> {
    struct Walk(Vec<String>);
    impl Visit for Walk {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let Stmt::Assign {
                place: Place::Var(v),
                ..
            } = s
            {
                self.0.push(v.to_string());
            }
            walk_stmt(self, s);
        }
    }
    let mut w = Walk(loops.iter().map(|l| l.var.to_string()).collect());
    w.visit_block(body);
    w.0
}

/// The counter `s` if `stmt` is `a[s] = v;` (or `a[s as usize] = v;`) and `next` is
/// `s += c;` with a literal `c` of at least 1.
fn slot_store(stmt: &Stmt, next: Option<&Stmt>, counters: &[String]) -> Option<String> {
    let Stmt::Assign {
        place: Place::Index { index, .. },
        op: None,
        ..
    } = stmt
    else {
        return None;
    };
    let name = match index.as_slice() {
        [e] => bare_name(e)?,
        _ => return None,
    };
    let Some(Stmt::Assign {
        place: Place::Var(v),
        op: Some(BinOp::Add),
        value,
        ..
    }) = next
    else {
        return None;
    };
    let step = literal(value).filter(|&c| c >= 1);
    (*v == name && step.is_some() && counters.contains(&name)).then_some(name)
}

/// The variable `e` is, through parentheses and casts that keep every value (a narrowing
/// cast, `(s as u8) as usize`, would make slots repeat).
fn bare_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Var(v) => Some(v.to_string()),
        ExprKind::Paren(x) => bare_name(x),
        ExprKind::Cast { expr, ty } if super::affine::wide(ty) => bare_name(expr),
        _ => None,
    }
}

/// An integer literal's value.
fn literal(e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, .. }) => text.replace('_', "").parse().ok(),
        ExprKind::Paren(x) => literal(x),
        _ => None,
    }
}

/// The names the body declares nowhere and assigns only as `s += c`, `c` a literal of at
/// least 0: each iteration's value is then at least every earlier iteration's last one.
fn counters(body: &Block) -> Vec<String> {
    #[derive(Default)]
    struct Walk {
        good: Vec<String>,
        bad: Vec<String>,
    }
    impl Visit for Walk {
        fn visit_stmt(&mut self, s: &Stmt) {
            match s {
                Stmt::Assign {
                    place: Place::Var(v),
                    op,
                    value,
                    ..
                } => {
                    let up = *op == Some(BinOp::Add) && literal(value).is_some_and(|c| c >= 0);
                    match up {
                        true => self.good.push(v.to_string()),
                        false => self.bad.push(v.to_string()),
                    }
                }
                Stmt::Let(l) => match &l.pat {
                    Pat::Ident { name, .. } => self.bad.push(name.to_string()),
                    Pat::Tuple(parts) => self
                        .bad
                        .extend(parts.iter().flatten().map(|(n, _)| n.to_string())),
                },
                _ => {}
            }
            walk_stmt(self, s);
        }
    }
    let mut w = Walk::default();
    w.visit_block(body);
    w.good.retain(|g| !w.bad.contains(g));
    w.good
}
