//! Loop-carried dependences in a `nuwork!` nest (a check on the IR, before annotations; see
//! `README.md` beside this file). The iterations of a `nuwork!` run in parallel, so an array
//! element that one iteration writes and another reads gives a result that depends on their
//! order, unlike sequential Rust. Such a nest is refused at compile time, as OpenACC
//! compilers refuse to parallelise one, unless an affine dependence test proves that no two
//! iterations touch the same element; `#[independent]` opts out where no affine test can.

mod affine;
mod solve;
#[cfg(test)]
mod test;

use crate::ctxt::Ctxt;
use crate::ir::*;
use affine::{Affine, Atom, Binding, Forms};
use proc_macro2::Span;

/// One access to a captured array.
struct Access {
    array: String,
    index: Vec<Affine>,
    write: bool,
    /// The index as written, and where.
    text: String,
    span: Span,
    /// The bounds of the serial loops around it, of iteration 0.
    bounds: Vec<Bound>,
}

/// A loop variable's bound: `form ≥ 0`, or `form = 0` (a stepped range's stride).
#[derive(Debug, Clone)]
struct Bound {
    form: Affine,
    equal: bool,
}

impl Bound {
    fn ge(form: Affine) -> Bound {
        Bound { form, equal: false }
    }

    fn other_side(&self) -> Bound {
        Bound {
            form: self.form.other_side(),
            equal: self.equal,
        }
    }
}

/// Refuses `nest` where one iteration may read an element another writes. The first
/// `mapped` loops run in parallel; after annotations (which may reorder loops) every loop of
/// the nest is taken to.
pub fn check(cx: &Ctxt, nest: &Nest, mapped: usize) {
    let parallel = match nest.annots.is_empty() {
        true => mapped.min(nest.loops.len()),
        false => nest.loops.len(),
    };
    let mut walk = Walk::new(&nest.body, &nest.loops);
    let mut par_bounds = Vec::new();
    let mut par_atoms = Vec::new();
    for (k, l) in nest.loops.iter().enumerate() {
        let atom = walk.bind_loop(&l.var, &l.range);
        if k < parallel {
            par_bounds.append(&mut walk.serial);
            par_atoms.push(atom);
        }
    }
    walk.block(&nest.body);
    let system = System {
        par_atoms,
        par_bounds,
    };
    report(cx, &walk.accesses, &system);
}

/// The unknowns two iterations differ in, and the bounds of each.
struct System {
    par_atoms: Vec<String>,
    par_bounds: Vec<Bound>,
}

/// Each read that another iteration's write may reach, as an error at the read.
fn report(cx: &Ctxt, accesses: &[Access], sys: &System) {
    for w in accesses.iter().filter(|a| a.write) {
        for r in accesses.iter().filter(|a| !a.write && a.array == w.array) {
            if r.index == w.index || r.index.len() != w.index.len() || !dependent(sys, w, r) {
                continue;
            }
            cx.error(r.span, message(w, r));
        }
    }
}

/// The error for read `r` that write `w` may reach. A push was rewritten to a store at a
/// counter (`crate::reduce::push`): its message names the push the user wrote.
fn message(w: &Access, r: &Access) -> String {
    let (a, ri, line) = (&r.array, &r.text, w.span.start().line);
    if w.text.contains("__nuda_len_") {
        return format!("nuwork!: this read of `{a}[{ri}]` may see an element that `{a}.push(..)` (line {line}) appends in this launch, where the iterations' order decides which element lands where; read the vector after the launch, or in another nuwork!");
    }
    format!(
        "nuwork!: iterations run in parallel, and this read of `{a}[{ri}]` may see an element that another iteration writes at `{a}[{wi}]` (line {line}), so the result would depend on their order; write the results into another array (double buffering), or, if no two iterations touch the same element, say so with `nuwork!(#[independent] ..)`",
        wi = w.text,
    )
}

/// Whether iteration 0's write `w` and a different iteration 1's read `r` may meet.
fn dependent(sys: &System, w: &Access, r: &Access) -> bool {
    let mut eqs: Vec<Affine> = w
        .index
        .iter()
        .zip(&r.index)
        .map(|(a, b)| a.add_scaled(&b.other_side(), -1))
        .collect();
    let mut bounds: Vec<Bound> = sys.par_bounds.clone();
    bounds.extend(sys.par_bounds.iter().map(Bound::other_side));
    bounds.extend(w.bounds.iter().cloned());
    bounds.extend(r.bounds.iter().map(Bound::other_side));
    let mut ineqs = Vec::new();
    for b in bounds {
        match b.equal {
            true => eqs.push(b.form),
            false => ineqs.push(b.form),
        }
    }
    // Different iterations: some parallel variable is smaller in one of them.
    sys.par_atoms.iter().any(|p| {
        let (mine, theirs) = (
            Affine::atom(Atom::Var(p.clone(), 0)),
            Affine::atom(Atom::Var(p.clone(), 1)),
        );
        let order = |lo: &Affine, hi: &Affine| {
            let mut all = ineqs.clone();
            all.push(hi.add_scaled(lo, -1).add_scaled(&Affine::constant(1), -1));
            solve::feasible(eqs.clone(), all)
        };
        order(&mine, &theirs) || order(&theirs, &mine)
    })
}

/// The walk of the body: the bindings in scope and the accesses found.
struct Walk {
    forms: Forms,
    accesses: Vec<Access>,
    /// The bounds of the serial loops around the current point.
    serial: Vec<Bound>,
    loops: usize,
}

impl Walk {
    fn new(body: &Block, loops: &[Loop]) -> Walk {
        Walk {
            forms: Forms {
                env: Vec::new(),
                assigned: assigned_names(body, loops),
                version: 0,
            },
            accesses: Vec::new(),
            serial: Vec::new(),
            loops: 0,
        }
    }

    /// Binds loop variable `var` over `range`; its bounds join `serial`. Its atom's name.
    fn bind_loop(&mut self, var: &syn::Ident, range: &Range) -> String {
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

    /// Walks `b` in a scope of its own.
    fn block(&mut self, b: &Block) {
        let (env, serial) = (self.forms.env.len(), self.serial.len());
        b.stmts.iter().for_each(|s| self.stmt(s));
        if let Some(t) = &b.tail {
            self.expr(t);
        }
        self.forms.env.truncate(env);
        self.serial.truncate(serial);
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => self.bind(l),
            Stmt::Assign {
                place,
                op,
                value,
                span,
                ..
            } => {
                self.expr(value);
                self.place(place, op.is_some(), *span);
            }
            Stmt::Expr(e) | Stmt::Return(Some(e), _) => self.expr(e),
            Stmt::While { cond, body, .. } => {
                self.expr(cond);
                self.block(body);
            }
            Stmt::Loop { body, .. } => self.block(body),
            Stmt::For {
                var, range, body, ..
            } => self.serial_loop(&[(var, range)], body),
            Stmt::Nest(n) => {
                let loops: Vec<(&syn::Ident, &Range)> =
                    n.loops.iter().map(|l| (&l.var, &l.range)).collect();
                self.serial_loop(&loops, &n.body);
            }
            Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(None, _) => {}
        }
    }

    /// A loop inside the body: one work-item runs its iterations in order.
    fn serial_loop(&mut self, loops: &[(&syn::Ident, &Range)], body: &Block) {
        let (env, serial) = (self.forms.env.len(), self.serial.len());
        for (var, range) in loops {
            [&range.start, &range.end]
                .into_iter()
                .chain(&range.step)
                .for_each(|e| self.expr(e));
            self.bind_loop(var, range);
        }
        self.block(body);
        self.forms.env.truncate(env);
        self.serial.truncate(serial);
    }

    fn bind(&mut self, l: &Let) {
        let value = l.init.as_ref().map(|e| {
            self.expr(e);
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

    fn place(&mut self, p: &Place, compound: bool, span: Span) {
        match p {
            Place::Index { base, index } => {
                index.iter().for_each(|e| self.expr(e));
                if compound {
                    self.access(base, index, false, span);
                }
                self.access(base, index, true, span);
            }
            Place::Member { path, .. } => path.iter().for_each(|s| {
                if let Step::Elem(e) = s {
                    self.expr(e);
                }
            }),
            Place::Var(_) => self.forms.version += 1,
        }
    }

    fn expr(&mut self, e: &Expr) {
        if let ExprKind::Index { base, index } = &e.kind {
            self.access(base, index, false, e.span);
        }
        if let ExprKind::If { cond, then, els } = &e.kind {
            self.expr(cond);
            self.block(then);
            if let Some(x) = els {
                self.expr(x);
            }
            return;
        }
        if let ExprKind::Block(b) = &e.kind {
            return self.block(b);
        }
        for o in e.operands() {
            self.expr(o);
        }
    }

    fn access(&mut self, base: &syn::Ident, index: &[Expr], write: bool, span: Span) {
        // A local (a private array) belongs to one iteration.
        let name = base.to_string();
        if self.forms.env.iter().any(|(n, _)| *n == name) {
            return;
        }
        let forms: Vec<Affine> = index.iter().map(|x| self.forms.of(x)).collect();
        let text: Vec<String> = index.iter().map(crate::ir::display::expr).collect();
        let text = match text.len() {
            1 => text[0].clone(),
            _ => format!("({})", text.join(", ")),
        };
        self.accesses.push(Access {
            array: base.to_string(),
            index: forms,
            write,
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
    use crate::ir::visit::{walk_stmt, VisitMut};
    struct Walk(Vec<String>);
    impl VisitMut for Walk {
        fn visit_stmt(&mut self, s: &mut Stmt) {
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
    w.visit_block(&mut body.clone());
    w.0
}
