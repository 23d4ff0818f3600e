//! `vector(w)` nests in OpenCL C: the `w` lanes run as one iteration (see `crate::checks::lanes` for
//! which values are scalars and which are vectors).
//!
//! - The lane counter is 0: a uniform or affine value is lane 0's, a scalar.
//! - A varying value is a `floatN` (`doubleN`): varying locals are declared so, uniform
//!   operands of varying operations are broadcast, and `+ - * /`, negation and the float
//!   methods that OpenCL C overloads for vectors (`sqrt`, `mul_add` as `fma`, `min` as
//!   `fmin`, ..) apply lane-wise, which is each lane's own scalar result.
//! - An access whose indices are uniform or affine is a vector access through a helper
//!   (`nu_vld<w>_<a>_<mask>`, `nu_vst<w>_<a>_<mask>`, the mask saying which indices are
//!   affine): with only the last index affine and every lane in range (or the launch's
//!   proof clearing the site), one `vload<w>`/`vstore<w>`; otherwise lane by lane through
//!   the scalar checked helpers, so a lane out of range faults exactly as the scalar loop
//!   would, and the others still load and store.
//!
//! Whatever does not fit is a compile error at its span, naming `vector(w)`: lanes that
//! branch differently, integer or bool vectors, the lane index used as a value, stores of
//! every lane to one element, updates of locals declared outside the lanes.

use super::access::Helper;
use super::ClEmitter;
use crate::base::ir::builtins::MethodKind;
use crate::base::ir::*;
use crate::checks::lanes::{Kind, Plan};
use crate::checks::sites::SiteKind;
use crate::emit::template::Ph;
use std::rc::Rc;

/// Whether a loop's bounds and step are the same in every lane.
fn uniform_range(plan: &Plan, r: &Range) -> bool {
    let parts = [Some(&r.start), Some(&r.end), r.step.as_ref()];
    parts.into_iter().flatten().all(|e| plan.uniform(e))
}

/// Whether a loop value's count is a reversed range's, `trips - 1 - k` (`Gen::offset`).
fn counts_down(count: &Expr) -> bool {
    match &count.kind {
        ExprKind::Binary {
            op: BinOp::Sub,
            lhs,
            ..
        } => {
            matches!(&lhs.kind, ExprKind::Binary { lhs: t, .. } if matches!(t.kind, ExprKind::Trips(..)))
        }
        _ => false,
    }
}

/// The component selector of lane `l` (`s0` .. `sf`).
fn component(l: usize) -> String {
    format!("s{l:x}")
}

impl ClEmitter<'_> {
    /// A `vector(w)` nest: the lane counter set to 0, then the body with lanes in step.
    pub(super) fn lanes_nest(&mut self, n: &Nest) {
        let Some(plan) = Plan::of(n) else { return };
        if self.lanes.is_some() {
            let msg = "annot!: vector(w) inside a loop that is already vectorised; vectorise one loop of the nest";
            return self.cx.error(plan.span, msg);
        }
        self.enter_lanes(n, plan);
        self.body(&n.body);
        self.leave_lanes();
    }

    /// `f` emits the body of the `vector(w)` nest `n` (a staged nest's statements, which
    /// need the staging's own treatment of the staged loop).
    pub(super) fn in_lanes(&mut self, n: &Nest, f: impl FnOnce(&mut Self)) {
        let Some(plan) = Plan::of(n) else { return };
        self.enter_lanes(n, plan);
        f(self);
        self.leave_lanes();
    }

    /// Opens the lanes' block: the lane counter is lane 0's value.
    fn enter_lanes(&mut self, n: &Nest, plan: Plan) {
        let l = &n.loops[0];
        let start = self.expr(&l.range.start);
        self.line("{");
        self.indent += 1;
        self.names.push();
        self.lanes_scope = self.names.depth();
        let c = self.names.declare(&l.var);
        self.line(format!("{} {c} = {start};", Ph::ty(l.slot)));
        self.lanes = Some(Rc::new(plan));
        self.depth += 1;
    }

    fn leave_lanes(&mut self) {
        self.depth -= 1;
        self.lanes = None;
        self.names.pop();
        self.indent -= 1;
        self.line("}");
    }

    /// The lane kind of `e`, inside a `vector(w)` nest.
    pub(super) fn lane_kind(&self, e: &Expr) -> Option<Kind> {
        self.lanes.as_ref().map(|p| p.kind(e))
    }

    pub(super) fn width(&self) -> usize {
        self.lanes.as_ref().map_or(1, |p| p.width)
    }

    pub(super) fn lane_error(&self, span: proc_macro2::Span, what: &str) -> String {
        self.lane_errors.set(self.lane_errors.get() + 1);
        let w = self.width();
        let what = self
            .lanes
            .as_ref()
            .map_or(what.to_string(), |p| p.written(what));
        // One cause, one error: the copies a `dmine` before `vector` made of a statement
        // (each with its own names, mapped back to the user's) share it.
        let key = self.cx.users_words(&what);
        if !self.lane_reported.borrow().contains(&key) {
            self.lane_reported.borrow_mut().push(key);
            self.cx
                .error(span, format!("annot!: vector({w}) cannot vectorise {what}"));
        }
        "0".into()
    }

    /// A value that differs between lanes: a vector.
    pub(super) fn vector_expr(&mut self, e: &Expr) -> String {
        let s = e.slot.unwrap_or_default();
        match &e.kind {
            ExprKind::Var(v) => self.var(v),
            ExprKind::Paren(x) => format!("({})", self.expr(x)),
            ExprKind::Index { base, index } => self.vector_read(base, index, e.span),
            ExprKind::At { base, .. } | ExprKind::Member { base, .. } | ExprKind::Field { base, .. } => {
                self.aggregate_error(base, e.span)
            }
            ExprKind::Binary { op, lhs, rhs } => match super::expr::op_name(*op) {
                Some(name @ ("add" | "sub" | "mul" | "div")) => {
                    let (l, r) = (self.lane_operand(lhs, s), self.lane_operand(rhs, s));
                    Ph::op(s, name, &[&l, &r])
                }
                _ => self.lane_error(e.span, &format!("`{}` on values that differ between lanes; vectors take `+ - * /` and the float methods", op.symbol())),
            },
            ExprKind::Unary {
                op: UnOp::Neg,
                expr,
            } => {
                let x = self.lane_operand(expr, s);
                Ph::op(s, "neg", &[&x])
            }
            ExprKind::Method {
                recv, method, args, ..
            } => self.vector_method(recv, method, args, e),
            // The math builtins (`rsqrt`) take one float; OpenCL C overloads them for vectors.
            ExprKind::Call { func, args } => match crate::base::ir::builtins::builtin_of(func) {
                Some(f) if f.kind == crate::base::ir::builtins::FnKind::Math && args.len() == 1 => {
                    let x = self.expr(&args[0]);
                    f.cl_call(&[x])
                }
                _ => self.lane_error(e.span, "a call on values that differ between lanes; vectors take the float math methods and `rsqrt`"),
            },
            ExprKind::Cast { .. } => self.lane_error(e.span, "a cast of a value that differs between lanes (the lane index, or a loaded value); vectors are f32 or f64 throughout"),
            ExprKind::Offset { count, .. } if counts_down(count) => self.lane_error(e.span, "a loop whose lanes count down (`.rev()`): the vectorised loop must count up by 1; reverse the index instead (`a[n - 1 - j]`)"),
            ExprKind::Offset { .. } => self.lane_error(e.span, "a loop whose lanes step by more than one: the vectorised loop must step by 1 (a step, or a dmine factor on this loop before vector, spreads the lanes)"),
            ExprKind::If {
                cond,
                then,
                els: Some(els),
            } if self.lane_kind(cond) == Some(Kind::Uniform) => self.vector_if(e, cond, then, els),
            ExprKind::Block(b) => self.vector_block(e, b),
            ExprKind::If { .. } => self.lane_error(e.span, "a value chosen per lane; compute both and use `min`/`max`, or leave this loop scalar"),
            _ => self.lane_error(e.span, "this expression on values that differ between lanes"),
        }
    }

    /// An operand of a vector operation of slot `s`'s type: a vector, or a scalar broadcast.
    pub(super) fn lane_operand(&mut self, x: &Expr, s: Slot) -> String {
        match self.lane_kind(x) {
            Some(Kind::Affine) => {
                let text = crate::base::ir::display::expr(x);
                self.lane_error(x.span, &format!("`{text}` as a value: it steps by one per lane, which only an array index may use"))
            }
            Some(Kind::Varying) => self.expr(x),
            _ => {
                let v = self.expr(x);
                let ty = format!("{}{}", Ph::ty(s), self.width());
                format!("({}({v}))", nuda_abi::dialect::Mk::vector(&ty))
            }
        }
    }

    /// `recv.method(args)`, the call `e`, on lanes. The vector methods give their receiver's
    /// type, whose slot (which syntax gives every such receiver) types every operand: a
    /// literal argument has none of its own.
    fn vector_method(
        &mut self,
        recv: &Expr,
        method: &syn::Ident,
        args: &[Expr],
        e: &Expr,
    ) -> String {
        let kind = MethodKind::of(&method.to_string());
        if kind == Some(MethodKind::Clamp) {
            return self.vector_clamp(recv, args, e);
        }
        // The table's `lanes` column: the methods OpenCL C overloads for vectors.
        let Some(kind) = kind.filter(|k| k.spec().lanes) else {
            return self.lane_error(e.span, &format!("`.{method}()` on values that differ between lanes; vectors take the float math methods"));
        };
        let s = recv.slot.or(e.slot).unwrap_or_default();
        let x = self.lane_operand(recv, s);
        let a: Vec<String> = args.iter().map(|e| self.lane_operand(e, s)).collect();
        super::expr::spelled(kind, s, &x, &a)
    }
}

/// Statements inside a `vector(w)` nest.
impl ClEmitter<'_> {
    /// Emits `s` if the lanes need it done differently; `false` leaves it to the scalar path.
    pub(super) fn vector_stmt(&mut self, s: &Stmt) -> bool {
        let Some(plan) = self.lanes.clone() else {
            return false;
        };
        match s {
            Stmt::Let(
                l @ Let {
                    pat: Pat::Ident { name, .. },
                    ..
                },
            ) if plan.var(name) == Kind::Varying => {
                self.vector_let(l, name);
                true
            }
            Stmt::Let(
                l @ Let {
                    pat: Pat::Tuple(names),
                    init:
                        Some(Expr {
                            kind: ExprKind::Tuple(items),
                            ..
                        }),
                    ..
                },
            ) if names.len() == items.len()
                && names
                    .iter()
                    .flatten()
                    .any(|(n, _)| plan.var(n) == Kind::Varying) =>
            {
                self.vector_tuple_let(&plan, l, names, items);
                true
            }
            Stmt::Let(Let {
                pat: Pat::Tuple(_),
                span,
                ..
            }) if matches!(s, Stmt::Let(l) if l.init.as_ref().is_some_and(|e| !plan.uniform(e))) => {
                self.lane_error(*span, "a tuple of values that differ between lanes");
                true
            }
            Stmt::Assign {
                place,
                op,
                value,
                slot,
                span,
            } => self.vector_assign(&plan, place, op.zip(*slot), value, *span),
            Stmt::Expr(e)
                if !matches!(
                    e.kind,
                    ExprKind::If { .. } | ExprKind::Block(_) | ExprKind::Paren(_)
                ) =>
            {
                self.lane_error(e.span, "a statement run for its effect (a call, an atomic, a push), which would run once for all lanes");
                true
            }
            Stmt::Expr(Expr {
                kind: ExprKind::If { cond, .. },
                ..
            }) if !plan.uniform(cond) => {
                self.lane_error(cond.span, "a branch whose condition differs between lanes");
                true
            }
            Stmt::While { cond, .. } if !plan.uniform(cond) => {
                self.lane_error(cond.span, "a loop whose condition differs between lanes");
                true
            }
            Stmt::For { range, .. } if !uniform_range(&plan, range) => {
                self.lane_error(range.span, "a loop whose bounds differ between lanes");
                true
            }
            Stmt::Nest(n) if n.loops.iter().any(|l| !uniform_range(&plan, &l.range)) => {
                self.lane_error(n.span, "a loop whose bounds differ between lanes");
                true
            }
            Stmt::Return(_, span) => {
                self.lane_error(*span, "`return`");
                true
            }
            _ => false,
        }
    }

    /// `let v = ..;` of a value that differs between lanes: a vector local; a struct or
    /// private array is refused once, and a definition that had an error marks `v` so that
    /// its uses are not reported again.
    fn vector_let(&mut self, l: &Let, name: &syn::Ident) {
        let aggregate = l.init.as_ref().is_some_and(|e| {
            matches!(
                e.kind,
                ExprKind::Array(_) | ExprKind::Repeat { .. } | ExprKind::Struct { .. }
            )
        });
        if aggregate {
            let span = l.init.as_ref().map_or(l.span, |e| e.span);
            self.aggregate_error(&Expr::new(ExprKind::Var(name.clone()), span), span);
            return;
        }
        let slot = l.slots[0];
        let t =
            l.ty.map_or_else(|| Ph::ty(slot), |t| t.cl_name().to_string());
        let before = self.lane_errors.get();
        let init = l.init.as_ref().map(|e| self.lane_operand(e, slot));
        if self.lane_errors.get() > before {
            self.poisoned.push(name.to_string());
        }
        let (c, w) = (self.names.declare(name), self.width());
        match init {
            Some(v) => self.line(format!("{t}{w} {c} = {v};")),
            None => self.line(format!("{t}{w} {c};")),
        }
    }

    /// `let (a, b) = (x, y);` with a component that differs between lanes: one declaration
    /// per component, a vector where it varies.
    fn vector_tuple_let(
        &mut self,
        plan: &Plan,
        l: &Let,
        names: &[Option<(syn::Ident, bool)>],
        items: &[Expr],
    ) {
        let values: Vec<(String, bool)> = (names.iter().zip(items).zip(&l.slots))
            .map(|((name, item), &slot)| {
                let varies = name
                    .as_ref()
                    .is_some_and(|(n, _)| plan.var(n) == Kind::Varying);
                let v = if varies {
                    self.lane_operand(item, slot)
                } else {
                    self.expr(item)
                };
                (v, varies)
            })
            .collect();
        for ((name, (v, varies)), &slot) in names.iter().zip(values).zip(&l.slots) {
            let Some((n, _)) = name else { continue };
            let width = if varies {
                plan.width.to_string()
            } else {
                String::new()
            };
            let c = self.names.declare(n);
            self.line(format!("{}{width} {c} = {v};", Ph::ty(slot)));
        }
    }

    /// An assignment in the lanes: to a varying local, or a vector store.
    fn vector_assign(
        &mut self,
        plan: &Plan,
        place: &Place,
        op: Option<(BinOp, Slot)>,
        value: &Expr,
        span: proc_macro2::Span,
    ) -> bool {
        let (name, uniform_index) = match place {
            Place::Index { base, index } => {
                if index.iter().all(|i| plan.uniform(i)) {
                    let msg = format!("a store to `{base}` at an index that is the same in every lane: every lane would store to that one element");
                    self.lane_error(span, &msg);
                    return true;
                }
                self.vector_write(base, index, op, value, span);
                return true;
            }
            Place::Var(v) => (v, true),
            Place::Member { base, path } => (
                base,
                path.iter().all(|s| match s {
                    Step::Elem(e) => plan.uniform(e),
                    Step::Field(_) => true,
                }),
            ),
        };
        // By scope, not by name: a local of the lanes may shadow the outer one assigned here.
        if !self.names.declared_from(name, self.lanes_scope) {
            let msg = format!("an update of `{name}`, declared outside the vectorised loop: each lane would update it in turn; keep a per-lane value and combine after the loop");
            self.lane_error(span, &msg);
            return true;
        }
        match (plan.var(name), place) {
            (Kind::Varying, Place::Var(_)) => {
                let slot = op.map(|o| o.1).or(value.slot).unwrap_or_default();
                let v = self.lane_operand(value, slot);
                let c = self.var(name);
                let new = match op {
                    Some((op, slot)) => self.update(op, slot, &c, &v, span),
                    None => v,
                };
                self.line(format!("{c} = {new};"));
                true
            }
            (Kind::Varying, _) => {
                self.lane_error(
                    span,
                    &format!("a struct or array `{name}` whose parts differ between lanes"),
                );
                true
            }
            _ if !uniform_index => {
                self.lane_error(span, "an element index that differs between lanes");
                true
            }
            _ => false,
        }
    }
}

/// Vector accesses of captured arrays.
impl ClEmitter<'_> {
    /// The affine positions of an access's index, as a bit mask, or an error for an index
    /// that varies otherwise.
    fn lane_mask(&self, base: &syn::Ident, index: &[Expr]) -> Option<u32> {
        let mut mask = 0;
        if index.iter().any(|i| self.mentions_poisoned(i)) {
            return None;
        }
        for (k, i) in index.iter().enumerate() {
            match self.lane_kind(i) {
                Some(Kind::Affine) => mask |= 1 << k,
                Some(Kind::Varying) => {
                    let text = crate::base::ir::display::expr(i);
                    self.lane_error(i.span, &format!("the index `{text}` of `{base}`, which differs between lanes other than by one per lane (as `j` or `j + 1`)"));
                    return None;
                }
                _ => {}
            }
        }
        Some(mask)
    }

    /// A vector load: `w` lanes of `base` at `index`, lane `l` adding `l` to each affine index.
    fn vector_read(
        &mut self,
        base: &syn::Ident,
        index: &[Expr],
        span: proc_macro2::Span,
    ) -> String {
        let Some(mask) = self.lane_mask(base, index) else {
            return "0".into();
        };
        if let Some(staged) = self.staged_vector_read(base, index, span, mask) {
            return staged;
        }
        let idx: Vec<String> = index.iter().map(|x| self.expr(x)).collect();
        let (c, q) = self
            .env
            .site_args(SiteKind::Read, &base.to_string(), idx.len(), span);
        let f = self.vector_helper(base, Helper::Load, idx.len(), mask);
        let mut args = self.array_args(base, idx.len());
        args.extend(idx);
        args.extend([c, q, "nu_err".into()]);
        format!("{f}({})", args.join(", "))
    }

    /// A vector store (or update, through the same site) of `value` into `base` at `index`.
    fn vector_write(
        &mut self,
        base: &syn::Ident,
        index: &[Expr],
        op: Option<(BinOp, Slot)>,
        value: &Expr,
        span: proc_macro2::Span,
    ) {
        let Some(mask) = self.lane_mask(base, index) else {
            return;
        };
        let idx: Vec<String> = index.iter().map(|x| self.expr(x)).collect();
        let elem = Ph::elem(self.env.capture_fill(base).unwrap_or_default());
        let v = match self.lane_kind(value) {
            Some(Kind::Varying) => self.expr(value),
            _ => {
                let s = op.map(|o| o.1).or(value.slot).unwrap_or_default();
                let x = self.lane_operand(value, s);
                format!("(({elem}{})({x}))", self.width())
            }
        };
        let (c, q) = self
            .env
            .site_args(SiteKind::Write, &base.to_string(), idx.len(), span);
        let array = self.array_args(base, idx.len());
        let tail = vec![c, q, "nu_err".to_string()];
        let st = self.vector_helper(base, Helper::Store, idx.len(), mask);
        let Some((op, slot)) = op else {
            let args = [array, idx, vec![v], tail].concat();
            return self.line(format!("{st}({});", args.join(", ")));
        };
        self.line("{");
        self.indent += 1;
        let temps = self.index_temps(&idx);
        let ld = self.vector_helper(base, Helper::Load, idx.len(), mask);
        let old_args = [array.clone(), temps.clone(), tail.clone()].concat();
        let old = format!("{ld}({})", old_args.join(", "));
        let new = self.update(op, slot, &old, &v, span);
        let args = [array, temps, vec![new], tail].concat();
        self.line(format!("{st}({});", args.join(", ")));
        self.indent -= 1;
        self.line("}");
    }

    /// The vector helper of `base` for `h` with affine positions `mask`, made on first use
    /// (after the scalar helper it falls back to).
    pub(super) fn vector_helper(
        &mut self,
        base: &syn::Ident,
        h: Helper,
        rank: usize,
        mask: u32,
    ) -> String {
        let scalar = self.helper(base, h, rank);
        let w = self.width();
        let b = self.var(base);
        let kind = if h == Helper::Load { "vld" } else { "vst" };
        let name = format!("nu_{kind}{w}_{b}_{mask}");
        let fill = self.env.capture_fill(base).unwrap_or_default();
        let shape = Shape {
            b: &b,
            fill,
            rank,
            mask,
            w,
        };
        self.env
            .shared
            .helper(&name, || shape.text(&name, &scalar, h == Helper::Load));
        name
    }
}

/// What a vector helper's text depends on.
struct Shape<'a> {
    b: &'a str,
    fill: usize,
    rank: usize,
    mask: u32,
    w: usize,
}

impl Shape<'_> {
    /// The helper `name`, falling back lane by lane to the scalar helper `scalar`.
    fn text(&self, name: &str, scalar: &str, load: bool) -> String {
        let (b, w) = (self.b, self.w);
        let vty = format!("{}{w}", Ph::elem(self.fill));
        let idx: Vec<String> = (0..self.rank).map(|k| format!("nu_i{k}")).collect();
        let mut params = vec![Ph::param(self.fill, b)];
        params.extend(idx.iter().map(|i| format!("nu_idx {i}")));
        if !load {
            params.push(format!("{vty} nu_v"));
        }
        params.extend([
            "int nu_c".into(),
            "uint nu_s".into(),
            super::marks::err_param(),
        ]);
        let dims: Vec<String> = (0..self.rank).map(|k| format!("{b}__d{k}")).collect();
        let lanes: Vec<String> = (0..w)
            .map(|l| self.lane_call(scalar, &dims, &idx, l, load))
            .collect();
        let data = Ph::data(self.fill, b);
        let mut off = idx[0].clone();
        for (k, i) in idx.iter().enumerate().skip(1) {
            off = format!("({off}) * {b}__d{k} + {i}");
        }
        let (ret, fast, slow) = match load {
            true => (
                vty.clone(),
                format!("return vload{w}(0, &{data}[{off}]);"),
                format!(
                    "return {}({});",
                    nuda_abi::dialect::Mk::vector(&vty),
                    lanes.join(", ")
                ),
            ),
            false => (
                "void".into(),
                format!("vstore{w}(nu_v, 0, &{data}[{off}]);\n        return;"),
                lanes
                    .iter()
                    .map(|l| format!("{l};"))
                    .collect::<Vec<_>>()
                    .join("\n    "),
            ),
        };
        let body = match self.contiguous() {
            Some(inside) => {
                format!("    if (!nu_c || ({inside})) {{\n        {fast}\n    }}\n    {slow}\n")
            }
            None => format!("    {slow}\n"),
        };
        format!("{ret} {name}({}) {{\n{body}}}\n", params.join(", "))
    }

    /// With only the last index affine: the condition that every lane is in range.
    fn contiguous(&self) -> Option<String> {
        let last = self.rank - 1;
        if self.mask != 1 << last {
            return None;
        }
        let b = self.b;
        let mut conds: Vec<String> = (0..self.rank)
            .map(|k| format!("nu_i{k} < {b}__d{k}"))
            .collect();
        conds.push(format!("{b}__d{last} - nu_i{last} >= {}", self.w));
        Some(conds.join(" && "))
    }

    /// Lane `l` through the scalar helper: each affine index plus `l`.
    fn lane_call(
        &self,
        scalar: &str,
        dims: &[String],
        idx: &[String],
        l: usize,
        load: bool,
    ) -> String {
        let mut args = vec![self.b.to_string()];
        args.extend(dims.iter().cloned());
        args.extend(
            idx.iter()
                .enumerate()
                .map(|(k, i)| match self.mask >> k & 1 {
                    1 if l > 0 => format!("{i} + {l}"),
                    _ => i.clone(),
                }),
        );
        if !load {
            args.push(format!("nu_v.{}", component(l)));
        }
        args.extend(["nu_c".into(), "nu_s".into(), "nu_err".into()]);
        format!("{scalar}({})", args.join(", "))
    }
}
