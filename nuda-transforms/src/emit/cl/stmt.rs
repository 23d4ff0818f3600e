//! Statements and loops in OpenCL C. Loops keep Rust's semantics exactly: bounds and steps are
//! evaluated once, and stepped, inclusive, reversed or downward ranges iterate over a trip
//! count, so no value overflows past the end of its type; a zero step faults.

use super::{sanitize, unparen, ClEmitter};
use crate::base::ir::*;
use crate::checks::capture::Context;
use crate::checks::sites::SiteKind;
use crate::emit::template::Ph;

impl ClEmitter<'_> {
    /// A kernel body: the tail, if any, is a statement.
    pub(super) fn body(&mut self, b: &Block) {
        self.stmts_then(&b.stmts, b.tail.as_deref());
        if let Some(t) = &b.tail {
            self.expr_stmt(t);
        }
    }

    pub(super) fn stmts(&mut self, stmts: &[Stmt]) {
        self.stmts_then(stmts, None);
    }

    /// Statements followed by the block's tail `tail` (which the caller emits).
    pub(super) fn stmts_then(&mut self, stmts: &[Stmt], tail: Option<&Expr>) {
        for (k, s) in stmts.iter().enumerate() {
            self.stmt(s);
            if let Stmt::Let(l) = s {
                self.fuse_sincos(l, &stmts[k + 1..], tail);
            }
        }
    }

    /// A nested block with its own scope; the tail is a statement.
    fn scoped_block(&mut self, b: &Block) {
        self.names.push();
        self.indent += 1;
        self.body(b);
        self.indent -= 1;
        self.names.pop();
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        if self.vector_stmt(s) {
            return;
        }
        match s {
            Stmt::Let(l) => self.let_stmt(l),
            Stmt::Assign {
                place,
                op,
                value,
                slot,
                span,
            } => match place {
                Place::Member { base, path } if has_elem(path) => {
                    self.element_store(base, path, (*op, *slot), value, *span)
                }
                _ => self.assign(place, op.zip(*slot), value, *span),
            },
            Stmt::Expr(e) => self.expr_stmt(e),
            Stmt::While { cond, body, .. } => {
                let c = self.no_hoist(cond);
                self.line(format!("while ({}) {{", unparen(&c)));
                self.looped(body);
            }
            Stmt::Loop { body, .. } => {
                self.line("for (;;) {");
                self.looped(body);
            }
            Stmt::For {
                var,
                slot,
                range,
                body,
                ..
            } => {
                self.for_loop(var, *slot, range, &mut |e| e.looped_inner(body));
            }
            Stmt::Nest(n) if n.lanes.is_some() => self.lanes_nest(n),
            Stmt::Nest(n) if n.stage.is_some() => {
                let msg = "annot!: stage needs the tile loops mapped to work-groups: give nuwork! one work-group size per tilem size, equal to it, as in `nuwork!(16, 16; annot!(tilem(16, 16), stage(a, k: 16); ..))`";
                self.cx
                    .error(n.stage.as_ref().map_or(n.span, |s| s.span), msg);
            }
            Stmt::Nest(n) => self.nest(&n.loops, &n.body),
            Stmt::Break(_) => self.line("break;"),
            Stmt::Continue(_)
                if self.depth == 0 && self.env.context == Context::Nuwork && !self.grid =>
            {
                self.line("return;")
            }
            Stmt::Continue(_) => self.line("continue;"),
            Stmt::Return(None, _) => self.line("return;"),
            Stmt::Return(Some(e), _) if self.outs > 0 => {
                self.tuple_return(e);
                self.line("return;");
            }
            Stmt::Return(Some(e), _) => {
                let v = self.expr(e);
                self.line(format!("return {v};"));
            }
        }
    }

    fn looped(&mut self, body: &Block) {
        self.looped_inner(body);
        self.line("}");
    }

    fn looped_inner(&mut self, body: &Block) {
        self.depth += 1;
        self.scoped_block(body);
        self.depth -= 1;
    }

    fn nest(&mut self, loops: &[Loop], body: &Block) {
        match loops.split_first() {
            None => {
                self.depth += 1;
                self.scoped_block(body);
                self.depth -= 1;
            }
            Some((l, rest)) => self.for_loop(&l.var, l.slot, &l.range, &mut |e| e.nest(rest, body)),
        }
    }

    fn no_hoist(&mut self, e: &Expr) -> String {
        let saved = std::mem::replace(&mut self.hoist_ok, false);
        let v = self.expr(e);
        self.hoist_ok = saved;
        v
    }

    /// `for var in range { inner }`, where `inner` writes the loop body.
    fn for_loop(
        &mut self,
        var: &syn::Ident,
        slot: Slot,
        r: &Range,
        inner: &mut dyn FnMut(&mut Self),
    ) {
        let t = Ph::ty(slot);
        let (start, end) = (self.expr(&r.start), self.expr(&r.end));
        self.names.push();
        if r.step.is_none() && !r.inclusive && !r.rev {
            let c = self.names.declare(var);
            let e = self.names.fresh(&format!("{c}_end"));
            self.line(format!(
                "for ({t} {c} = {start}, {e} = {end}; {c} < {e}; {c}++) {{"
            ));
            inner(self);
            self.line("}");
        } else {
            self.counted_loop(var, slot, r, (start, end), inner);
        }
        self.names.pop();
    }

    /// A loop over iteration numbers `k` up to the last one: the values are `a + k * step`
    /// (reversed: `k` from the end), computed with wrapping arithmetic, exact since every value
    /// is in the range. Counting to the last index rather than to a count lets a loop over
    /// all 2^64 values of a `u64` run; `go` turns false after the last.
    fn counted_loop(
        &mut self,
        var: &syn::Ident,
        slot: Slot,
        r: &Range,
        (start, end): (String, String),
        inner: &mut dyn FnMut(&mut Self),
    ) {
        let t = Ph::ty(slot);
        let one = Ph::op(slot, "from_int", &["1"]);
        let step = r.step.as_ref().map_or(one, |s| self.expr(s));
        let (a, b, s) = (
            self.names.fresh("nu_a"),
            self.names.fresh("nu_b"),
            self.names.fresh("nu_st"),
        );
        let (n, k, go) = (
            self.names.fresh("nu_last"),
            self.names.fresh("nu_k"),
            self.names.fresh("nu_go"),
        );
        let (c, q) = self.env.site_args(SiteKind::Step, "", 0, r.span);
        let incl = if r.inclusive { "1" } else { "0" };
        let last = Ph::op(slot, "last", &[&a, &b, &s, incl, &c, &q]);
        let some = Ph::op(slot, "some", &[&a, &b, &s, incl]);
        self.line("{");
        self.indent += 1;
        self.line(format!("{t} {a} = {start}, {b} = {end}, {s} = {step};"));
        self.line(format!("nu_idx {n} = {last};"));
        self.line(format!(
            "for (nu_idx {k} = 0, {go} = {some}; {go}; {go} = {k} != {n}, {k}++) {{"
        ));
        self.indent += 1;
        let count = if r.rev {
            format!("{n} - {k}")
        } else {
            k.clone()
        };
        let count = Ph::op(slot, "from_int", &[&count]);
        let value = Ph::op(slot, "add", &[&a, &Ph::op(slot, "mul", &[&count, &s])]);
        let c = self.names.declare(var);
        self.line(format!("{t} {c} = {value};"));
        self.indent -= 1;
        inner(self);
        self.line("}");
        self.indent -= 1;
        self.line("}");
    }

    fn let_stmt(&mut self, l: &Let) {
        match &l.pat {
            Pat::Ident { name, .. } => {
                let t =
                    l.ty.map_or_else(|| Ph::ty(l.slots[0]), |t| t.cl_name().to_string());
                let init = l.init.as_ref().map(|e| self.expr(e));
                let c = self.names.declare(name);
                match init {
                    Some(v) => self.line(format!("{t} {c} = {v};")),
                    None => self.line(format!("{t} {c};")),
                }
            }
            Pat::Tuple(names) => self.let_tuple(l, names),
        }
    }

    /// A tuple returned by a `#[nucode]` function: each component stored through its pointer.
    pub(super) fn tuple_return(&mut self, e: &Expr) {
        // A tuple chosen by `if`, or computed by a block: each branch returns its own.
        match &e.kind {
            ExprKind::Paren(x) => return self.tuple_return(x),
            ExprKind::Block(b) => return self.tuple_tail(b, e.span),
            ExprKind::If {
                cond,
                then,
                els: Some(els),
            } => {
                let c = self.expr(cond);
                self.line(format!("if ({}) {{", unparen(&c)));
                self.indent += 1;
                self.tuple_tail(then, e.span);
                self.indent -= 1;
                self.line("} else {");
                self.indent += 1;
                self.tuple_return(els);
                self.indent -= 1;
                return self.line("}");
            }
            _ => {}
        }
        let ExprKind::Tuple(items) = &e.kind else {
            self.cx.error(e.span, "#[nucode]: a function returning a tuple returns a tuple expression, as in `(a, b)`, or an `if` or block whose every branch ends in one");
            return;
        };
        if items.len() != self.outs {
            self.cx.error(
                e.span,
                format!("#[nucode]: the function returns {} components", self.outs),
            );
            return;
        }
        for (k, x) in items.iter().enumerate() {
            let v = self.expr(x);
            self.line(format!("*nu_out{k} = {v};"));
        }
    }

    /// A block whose tail is the tuple a `#[nucode]` function returns.
    fn tuple_tail(&mut self, b: &Block, span: proc_macro2::Span) {
        self.names.push();
        self.stmts(&b.stmts);
        match &b.tail {
            Some(t) => self.tuple_return(t),
            None => self.cx.error(span, "#[nucode]: a function returning a tuple returns a tuple expression, as in `(a, b)`, or an `if` or block whose every branch ends in one"),
        }
        self.names.pop();
    }

    fn let_tuple(&mut self, l: &Let, names: &[Option<(syn::Ident, bool)>]) {
        let values: Vec<String> = match l.init.as_ref().map(|e| &e.kind) {
            Some(ExprKind::Tuple(items)) if items.len() == names.len() => {
                items.iter().map(|x| self.expr(x)).collect()
            }
            Some(ExprKind::Method { recv, method, .. }) if method == "dims" => {
                let base = match &recv.kind {
                    ExprKind::Var(v) => self.var(v),
                    _ => String::new(),
                };
                (0..names.len()).map(|k| format!("{base}__d{k}")).collect()
            }
            Some(ExprKind::Call { func, args }) => {
                let outs: Vec<String> = names
                    .iter()
                    .zip(&l.slots)
                    .enumerate()
                    .map(|(k, (name, slot))| {
                        let c = match name {
                            Some((n, _)) => self.names.declare(n),
                            None => format!("nu_wild{k}_{slot}"),
                        };
                        self.line(format!("{} {c};", Ph::ty(*slot)));
                        c
                    })
                    .collect();
                let call = self.tuple_call(func, args, &outs, l.span);
                self.line(format!("{call};"));
                return;
            }
            _ => {
                self.cx.error(l.span, "kernels destructure only `a.dims()`, tuples of values and calls of `#[nucode]` functions returning tuples, as in `let (n, m) = a.dims();`");
                return;
            }
        };
        for ((name, v), slot) in names.iter().zip(values).zip(&l.slots) {
            if let Some((n, _)) = name {
                let c = self.names.declare(n);
                self.line(format!("{} {c} = {v};", Ph::ty(*slot)));
            }
        }
    }

    fn assign(
        &mut self,
        place: &Place,
        op: Option<(BinOp, Slot)>,
        value: &Expr,
        span: proc_macro2::Span,
    ) {
        match place {
            Place::Index { base, index } => self.write(base, index, op, value, span),
            Place::Var(name) if self.env.reduction(name).is_some() => {
                self.reduction_update(name, op.map(|o| o.0), value, span)
            }
            Place::Var(_) | Place::Member { .. } => {
                let v = self.expr(value);
                let target = match place {
                    Place::Member { base, path } => {
                        path.iter().fold(self.var(base), |t, s| match s {
                            Step::Field(f) => format!("{t}.{}", sanitize(&f.to_string())),
                            // `element_store` takes the paths with elements.
                            Step::Elem(_) => t,
                        })
                    }
                    Place::Var(name) | Place::Index { base: name, .. } => self.var(name),
                };
                match op {
                    Some((op, slot)) => {
                        let new = self.update(op, slot, &target, &v, span);
                        self.line(format!("{target} = {new};"))
                    }
                    None => self.line(format!("{target} = {v};")),
                }
            }
        }
    }

    /// `t[k] = v`, `b.w[k] += v`, `m[i][j] = v`: a store into a local value through checked
    /// elements. The value is computed first, into a temporary of the place's type, as Rust
    /// does; then each index is checked (`nu_pin`), and out of range the store is skipped.
    fn element_store(
        &mut self,
        base: &syn::Ident,
        path: &[Step],
        (op, slot): (Option<BinOp>, Option<Slot>),
        value: &Expr,
        span: proc_macro2::Span,
    ) {
        let v = self.expr(value);
        let ty = slot.or(value.slot).map_or_else(|| "void".into(), Ph::ty);
        let tmp = self.names.fresh("nu_v");
        self.line(format!("{ty} {tmp} = {v};"));
        let mut target = self.var(base);
        let mut opened = 0;
        for (k, step) in path.iter().enumerate() {
            match step {
                Step::Field(f) => target = format!("{target}.{}", sanitize(&f.to_string())),
                Step::Elem(e) => {
                    let name = crate::base::ir::display::member_path(base, &path[..k]);
                    let (c, q) = self.env.site_args(SiteKind::Private, &name, 1, span);
                    let i = self.names.fresh("nu_i");
                    let x = self.expr(e);
                    self.line(format!("ulong {i} = (ulong)({x});"));
                    self.line(format!(
                        "if (nu_pin({i}, NU_PLEN({target}), {c}, {q}, nu_err)) {{"
                    ));
                    self.indent += 1;
                    opened += 1;
                    target = format!("{target}.v[{i}]");
                }
            }
        }
        let new = match op.zip(slot) {
            Some((op, slot)) => self.update(op, slot, &target, &tmp, span),
            None => tmp,
        };
        self.line(format!("{target} = {new};"));
        for _ in 0..opened {
            self.indent -= 1;
            self.line("}");
        }
    }

    /// An expression in statement position: `if` and blocks become statements.
    pub(super) fn expr_stmt(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::If { cond, then, els } => self.if_stmt(cond, then, els.as_deref()),
            ExprKind::Block(b) => {
                self.line("{");
                self.scoped_block(b);
                self.line("}");
            }
            ExprKind::Paren(x) => self.expr_stmt(x),
            _ => {
                let v = self.expr(e);
                self.line(format!("{v};"));
            }
        }
    }

    fn if_stmt(&mut self, cond: &Expr, then: &Block, els: Option<&Expr>) {
        let c = self.expr(cond);
        self.line(format!("if ({}) {{", unparen(&c)));
        self.scoped_block(then);
        match els.map(|e| &e.kind) {
            None => self.line("}"),
            Some(nested @ ExprKind::If { .. }) => {
                // `else { if .. }` rather than `else if`: hoisted statements of the inner
                // condition then land inside the else branch, where they belong.
                self.line("} else {");
                self.indent += 1;
                let ExprKind::If { cond, then, els } = nested else {
                    unreachable!()
                };
                self.if_stmt(cond, then, els.as_deref());
                self.indent -= 1;
                self.line("}");
            }
            Some(ExprKind::Block(b)) => {
                self.line("} else {");
                self.scoped_block(b);
                self.line("}");
            }
            Some(_) => self.line("}"),
        }
    }
}
