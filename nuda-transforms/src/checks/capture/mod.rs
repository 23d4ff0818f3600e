//! Capture analysis: which variables a kernel body uses without binding them (they become
//! kernel parameters), whether each is written through, which `#[nucode]` functions it calls,
//! and the checks that need scopes: no assignment to captured scalars, `dims()`/`read()` only on
//! captured memory, work-item builtins only in `#[nukernel]`. In `nuwork!`, assignments to a
//! captured scalar are reduction updates (see `crate::checks::reduce`).
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

#[cfg(test)]
mod test;

use crate::base::ctxt::Ctxt;
use crate::base::ir::builtins::{builtin_of, BuiltinFn, FnKind, MethodKind};
use crate::base::ir::visit::{walk_block, walk_expr, VisitMut};
use crate::base::ir::*;
use crate::checks::reduce::{self, Reduction};
use proc_macro2::Span;
use syn::Ident;

/// Where a body sits, which decides what it may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// A `nuwork!` body: loop variables are the work-item's coordinates.
    Nuwork,
    /// A `#[nukernel]` body: work-item builtins, `barrier()` and `return` are available.
    Kernel,
    /// A `#[nucode]` function: callable from kernels and the host alike.
    Nucode,
}

/// A variable the body uses but does not bind.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Its name.
    pub name: Ident,
    /// Whether the body writes through it (`a[i] = ..`, `img.write(..)`).
    pub written: bool,
    /// Where it is first used.
    pub span: Span,
    /// Whether it is an operand of arithmetic, a comparison or a cast, as only numbers are.
    pub operand: bool,
    /// Whether it is indexed, a field's base or a memory method's receiver, as numbers never
    /// are.
    pub structured: bool,
}

impl Capture {
    /// A capture the body names (read or written), with no use recorded yet.
    pub fn new(name: &Ident, written: bool) -> Self {
        Capture {
            name: name.clone(),
            written,
            span: name.span(),
            operand: false,
            structured: false,
        }
    }

    /// Whether the body reads it only as a number: its view is the value itself, and the
    /// witness may say so, so that a host variable of inferred type (`for it in 0..3`) takes
    /// its type from the kernel's arithmetic, as in plain Rust.
    pub fn is_number(&self) -> bool {
        self.operand && !self.structured && !self.written
    }
}

/// What capture analysis found.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Captured variables in order of first use.
    pub captures: Vec<Capture>,
    /// `#[nucode]` functions called, in order of first call.
    pub calls: Vec<syn::Path>,
    /// Whether `barrier()` is called.
    pub barrier: bool,
    /// The captures that are `nulocal!` arrays (`#[nukernel]` sets them).
    pub locals: Vec<Ident>,
    /// The reduction variables of a `nuwork!` body, in order of first update; not captures.
    pub reductions: Vec<Reduction>,
    /// The arrays the body updates with atomics: its plain reads of them are atomic loads,
    /// which the memory model orders with the other work-items' updates.
    pub atomic: Vec<Ident>,
    /// The arrays whose atomics each work-group may gather in local memory first
    /// (`crate::checks::privatise`): set by `nuwork!` where its kernel form allows.
    pub privatised: Vec<crate::checks::privatise::Privatised>,
}

impl Analysis {
    /// The capture named `name`, if any.
    pub fn capture(&self, name: &Ident) -> Option<&Capture> {
        self.captures.iter().find(|c| c.name == *name)
    }

    /// Whether `name` is a `nulocal!` array.
    pub fn is_local(&self, name: &Ident) -> bool {
        self.locals.contains(name)
    }
}

/// Analyses `block`, with `bound` already in scope (loop variables of mapped loops, kernel
/// parameters), and rewrites indexing of local texel values into lane accesses.
pub fn analyze(cx: &Ctxt, block: &mut Block, bound: &[Ident], context: Context) -> Analysis {
    let mut w = Walker {
        cx,
        context,
        scopes: vec![bound.to_vec()],
        out: Analysis::default(),
        depth: 0,
        atomics: 0,
        images: Vec::new(),
    };
    w.visit_block(block);
    w.reads_of_reductions();
    w.out
}

/// Analyses ranges evaluated in the kernel (bounds of inner loops), with `bound` in scope.
pub fn analyze_expr(
    cx: &Ctxt,
    e: &mut Expr,
    bound: &[Ident],
    context: Context,
    into: &mut Analysis,
) {
    let mut w = Walker {
        cx,
        context,
        scopes: vec![bound.to_vec()],
        out: std::mem::take(into),
        depth: 0,
        atomics: 0,
        images: Vec::new(),
    };
    w.visit_expr(e);
    *into = w.out;
}

struct Walker<'a> {
    cx: &'a Ctxt,
    context: Context,
    scopes: Vec<Vec<Ident>>,
    out: Analysis,
    /// Loops entered inside the body (the nest's own loops not counted).
    depth: usize,
    /// Atomics met in the statement being walked (one is allowed per statement).
    atomics: usize,
    /// The images read (`false`) and written (`true`) so far: a kernel does one or the other.
    images: Vec<(Ident, bool)>,
}

/// The walk: the mutable visitor (it rewrites private-array accesses), with a scope per block.
impl VisitMut for Walker<'_> {
    fn visit_block(&mut self, b: &mut Block) {
        self.scoped(|w| walk_block(w, b));
    }

    fn visit_stmt(&mut self, s: &mut Stmt) {
        // Each statement counts its own atomics; an enclosing one resumes its count after.
        let outer = std::mem::take(&mut self.atomics);
        self.stmt_inner(s);
        self.atomics = outer;
    }

    fn visit_nest(&mut self, n: &mut Nest) {
        self.scoped(|w| {
            for l in &mut n.loops {
                w.visit_range(&mut l.range);
                w.bind(&l.var.clone());
            }
            w.looped(|w| w.visit_block(&mut n.body));
        });
    }

    fn visit_place(&mut self, p: &mut Place) {
        if let Place::Index { base, index } = p {
            if self.is_local(base) {
                // `t[k] = v` on a local: an element of a private array.
                let index = self.one_index(base, std::mem::take(index));
                *p = Place::Member {
                    base: base.clone(),
                    path: vec![Step::Elem(index)],
                };
            }
        }
        match p {
            Place::Member { base, path }
                if !self.is_local(base) && matches!(path.first(), Some(Step::Elem(_))) =>
            {
                let form = match self.context {
                    Context::Nuwork => "nuwork!",
                    Context::Kernel => "#[nukernel]",
                    Context::Nucode => "#[nucode]",
                };
                let msg = format!("{form}: `{base}[..].field = ..` sets one field of an array element in place, which kernels do not do (each element is loaded and stored whole); copy the element into a local, set the field there and store it back: `let mut e = {base}[i]; e.x = ..; {base}[i] = e;`");
                self.cx.error(base.span(), msg);
            }
            Place::Var(name) | Place::Member { base: name, .. } => {
                if !self.is_local(name) {
                    self.assigned_capture(name);
                }
                if let Place::Member { path, .. } = p {
                    for step in path {
                        if let Step::Elem(e) = step {
                            self.visit_expr(e);
                        }
                    }
                }
            }
            Place::Index { base, index } => {
                index.iter_mut().for_each(|e| self.visit_expr(e));
                self.capture(&base.clone(), true);
            }
        }
    }

    fn visit_expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Var(name) => {
                let name = name.clone();
                self.capture(&name, false);
            }
            ExprKind::Index { base, .. } if self.is_local(base) => {
                self.private_element(e);
                self.visit_expr(e);
            }
            ExprKind::Index { base, index } => {
                index.iter_mut().for_each(|x| self.visit_expr(x));
                let base = base.clone();
                self.capture(&base, false);
                let var = Expr::new(ExprKind::Var(base.clone()), base.span());
                self.mark(&var, true);
            }
            ExprKind::Call { func, args } => {
                args.iter_mut().for_each(|x| self.visit_expr(x));
                self.call(func, args.len(), e.span);
            }
            ExprKind::Method {
                recv, method, args, ..
            } => {
                args.iter_mut().for_each(|x| self.visit_expr(x));
                self.method(recv, method, args.len());
            }
            ExprKind::Cast { expr, .. } => {
                self.visit_expr(expr);
                self.mark(expr, false);
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                self.visit_expr(lhs);
                self.visit_expr(rhs);
                self.mark(lhs, false);
                self.mark(rhs, false);
            }
            ExprKind::Field { base, .. } | ExprKind::Member { base, .. } => {
                self.visit_expr(base);
                self.mark(base, true);
            }
            _ => walk_expr(self, e),
        }
    }
}

impl Walker<'_> {
    fn is_local(&self, name: &Ident) -> bool {
        self.scopes.iter().rev().any(|s| s.contains(name))
    }

    fn bind(&mut self, name: &Ident) {
        if let Some(s) = self.scopes.last_mut() {
            s.push(name.clone());
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(Vec::new());
        f(self);
        self.scopes.pop();
    }

    fn capture(&mut self, name: &Ident, written: bool) {
        if self.is_local(name) {
            return;
        }
        match self.out.captures.iter_mut().find(|c| c.name == *name) {
            Some(c) => c.written |= written,
            None => self.out.captures.push(Capture::new(name, written)),
        }
    }

    /// Records how a captured variable is used, when `e` names one directly.
    fn mark(&mut self, e: &Expr, structured: bool) {
        let ExprKind::Var(name) = &e.kind else { return };
        if self.is_local(name) {
            return;
        }
        if let Some(c) = self.out.captures.iter_mut().find(|c| c.name == *name) {
            match structured {
                true => c.structured = true,
                false => c.operand = true,
            }
        }
    }

    fn stmt_inner(&mut self, s: &mut Stmt) {
        match s {
            Stmt::Let(l) => self.let_stmt(l),
            Stmt::Assign {
                place: Place::Var(name),
                op,
                value,
                span,
                ..
            } if self.context == Context::Nuwork && !self.is_local(name) => {
                self.reduction_update(&name.clone(), *op, value, *span)
            }
            Stmt::Assign {
                place,
                value,
                op,
                slot,
                ..
            } => {
                self.visit_place(place);
                if op.is_none() && matches!(place, Place::Index { .. }) {
                    // Lowering typed `a[i] = v` in case `a` was a local array; it is not.
                    *slot = None;
                }
                self.visit_expr(value);
            }
            Stmt::Expr(e) => self.visit_expr(e),
            Stmt::While { cond, body, .. } => {
                self.visit_expr(cond);
                self.looped(|w| w.visit_block(body));
            }
            Stmt::Loop { body, .. } => self.looped(|w| w.visit_block(body)),
            Stmt::For {
                var, range, body, ..
            } => {
                self.visit_range(range);
                let var = var.clone();
                self.looped(|w| {
                    w.scoped(|w| {
                        w.bind(&var);
                        w.visit_block(body);
                    })
                });
            }
            Stmt::Nest(n) => self.visit_nest(n),
            Stmt::Break(span) | Stmt::Continue(span) => {
                self.jump(*span, matches!(s, Stmt::Break(_)))
            }
            Stmt::Return(e, span) => {
                if self.context == Context::Nuwork {
                    self.cx.error(*span, "nuwork!: `return` is not supported in a nuwork! body (it would leave the enclosing function on the host); use `continue` to skip an iteration");
                }
                if let Some(e) = e {
                    self.visit_expr(e);
                }
            }
        }
    }

    fn let_stmt(&mut self, l: &mut Let) {
        if let Some(e) = &mut l.init {
            self.visit_expr(e);
        }
        match &l.pat {
            Pat::Ident { name, .. } => self.bind(&name.clone()),
            Pat::Tuple(list) => list
                .iter()
                .flatten()
                .for_each(|(n, _)| self.bind(&n.clone())),
        }
    }

    fn jump(&mut self, span: Span, is_break: bool) {
        if self.depth == 0 && is_break && self.context == Context::Nuwork {
            self.cx.error(span, "nuwork!: `break` cannot leave a loop whose iterations run in parallel; use `continue` to skip an iteration");
        }
        if self.depth == 0 && self.context != Context::Nuwork {
            self.cx
                .error(span, "`break` and `continue` must be inside a loop");
        }
    }

    fn looped(&mut self, f: impl FnOnce(&mut Self)) {
        self.depth += 1;
        f(self);
        self.depth -= 1;
    }

    /// The one index of a private array access `t[k]`; `t[(i, j)]` is refused.
    fn one_index(&self, base: &Ident, mut index: Vec<Expr>) -> Expr {
        if index.len() != 1 {
            let msg = format!("`{base}` is a local array: it takes one index; index a nested array as `{base}[i][j]`");
            self.cx.error(base.span(), msg);
        }
        index.swap_remove(0)
    }

    /// `name op= value` on a captured scalar of a `nuwork!` body: a reduction update, or an
    /// error naming the forms.
    fn reduction_update(&mut self, name: &Ident, op: Option<BinOp>, value: &mut Expr, span: Span) {
        let Some((red, contribution)) = reduce::update_of(name, op, value) else {
            let carried = reduce::reads(value, name);
            self.cx
                .error(name.span(), reduce::not_an_update(name, carried));
            return self.visit_expr(value);
        };
        self.visit_expr(contribution);
        if let Err(msg) = reduce::record(&mut self.out.reductions, name, red, span) {
            self.cx.error(span, msg);
        }
    }

    /// A reduction variable read anywhere but in its own updates is a scan variable (reads see
    /// the running value); either way it is not a capture.
    fn reads_of_reductions(&mut self) {
        let caps = &self.out.captures;
        for r in &mut self.out.reductions {
            if let Some(c) = caps.iter().find(|c| c.name == r.name) {
                r.scan = Some(c.span);
            }
        }
        let reds = &self.out.reductions;
        self.out
            .captures
            .retain(|c| !reds.iter().any(|r| r.name == c.name));
    }

    fn assigned_capture(&self, name: &Ident) {
        let msg = match self.context {
            Context::Nuwork => format!("nuwork!: `{name}` is captured from outside the loop and passed to every work-item by value, so it cannot be assigned; copy it into a local (`let mut x = {name};`) or write an array element"),
            _ => format!("`{name}` is a kernel parameter passed by value; copy it into a local (`let mut x = {name};`) to change it"),
        };
        self.cx.error(name.span(), msg);
    }

    /// `t[k]` on a local: an element of a private array (checked where it is emitted).
    fn private_element(&mut self, e: &mut Expr) {
        let ExprKind::Index { base, index } = &mut e.kind else {
            return;
        };
        let index = self.one_index(base, std::mem::take(index));
        let var = Expr::new(ExprKind::Var(base.clone()), base.span());
        e.kind = ExprKind::At {
            base: Box::new(var),
            index: Box::new(index),
        };
    }

    fn call(&mut self, func: &syn::Path, nargs: usize, span: Span) {
        match builtin_of(func) {
            Some(f) => self.builtin_fn(f, nargs, span),
            None => {
                let text = quote::quote!(#func).to_string();
                if !self
                    .out
                    .calls
                    .iter()
                    .any(|p| quote::quote!(#p).to_string() == text)
                {
                    self.out.calls.push(func.clone());
                }
            }
        }
    }

    fn builtin_fn(&mut self, f: &BuiltinFn, nargs: usize, span: Span) {
        if f.arity != nargs {
            let name = f.name;
            self.cx.error(
                span,
                format!("`{name}` takes {} argument(s) in kernels", f.arity),
            );
        }
        if f.kernel_only() {
            self.work_item_fn(f, span);
        }
    }

    /// An image read or written at `span`: refused where the kernel does the other too,
    /// since OpenCL C's images are `read_only` or `write_only` in a kernel.
    fn image_use(&mut self, name: &Ident, write: bool, span: Span) {
        if self.images.iter().any(|(n, w)| n == name && *w != write) {
            let msg = format!("`{name}` is both read (`{name}.read(..)`) and written (`{name}.write(..)`) in this kernel, and a kernel may only read an image or write it (OpenCL C's read_only and write_only images); write the results into a second image and swap the two between launches");
            self.cx.error(span, msg);
        }
        if !self.images.contains(&(name.clone(), write)) {
            self.images.push((name.clone(), write));
        }
    }

    fn work_item_fn(&mut self, f: &BuiltinFn, span: Span) {
        let name = f.name;
        match self.context {
            Context::Kernel => self.out.barrier |= f.kind == FnKind::Barrier,
            Context::Nuwork => self.cx.error(span, format!("nuwork!: `{name}()` is for #[nukernel] kernels; in nuwork! the loop variables are the work-item's coordinates")),
            Context::Nucode => self.cx.error(span, format!("#[nucode] functions run on the host too, where `{name}()` has no meaning; call it in the #[nukernel] and pass the value")),
        }
    }

    fn method(&mut self, recv: &mut Expr, method: &Ident, nargs: usize) {
        if method == "push" {
            // `nuwork!` rewrote its pushes (`crate::checks::reduce::push`); what is left is elsewhere.
            let msg = "`push` appends to a NuVec in a nuwork! body, as a statement of its own (`v.push(x);`), not inside a loop of unknown trip count";
            self.cx.error(method.span(), msg);
        }
        let Some(kind) = MethodKind::of(&method.to_string()) else {
            return;
        };
        if kind.is_atomic() {
            self.atomics += 1;
            if self.atomics == 2 {
                self.cx.error(method.span(), format!("`{method}`: one atomic per statement; OpenCL C leaves the order of two atomics in one expression unspecified, where Rust evaluates left to right, so put each in its own statement (`let old = a.{method}(..);`)"));
            }
        }
        if kind.arity() != nargs {
            self.cx.error(
                method.span(),
                format!("`{method}` takes {} argument(s) in kernels", kind.arity()),
            );
        }
        if !kind.on_memory() {
            return self.visit_expr(recv);
        }
        let ExprKind::Var(name) = &recv.kind else {
            self.cx.error(
                recv.span,
                format!("`.{method}()` applies to a captured array or image, named directly"),
            );
            return;
        };
        if self.is_local(name) {
            self.cx.error(recv.span, format!("`{name}` is a local value; `.{method}()` applies to captured arrays and images"));
            return;
        }
        let name = name.clone();
        if matches!(kind, MethodKind::Read | MethodKind::Write) {
            self.image_use(&name, kind == MethodKind::Write, method.span());
        }
        self.capture(&name, kind.writes());
        self.mark(recv, true);
        if kind.is_atomic() && !self.out.atomic.contains(&name) {
            self.out.atomic.push(name);
        }
    }
}
