//! Expressions in OpenCL C. Where Rust and C differ, the C follows Rust: every typed operation
//! is an `O` placeholder the runtime spells for the type rustc inferred (wrapping integer
//! arithmetic, masked shifts, checked division, saturating float-to-integer casts, `fmod` for
//! float `%`), and every literal gets the type rustc gave it.

use super::{sanitize, ClEmitter};
use crate::base::ir::builtins::{builtin_of, ClMethod, MethodKind};
use crate::base::ir::*;
use crate::checks::sites::SiteKind;
use crate::emit::template::Ph;

/// A float literal's digits with a decimal point, so C reads it as floating point.
pub fn decimal(text: &str) -> String {
    if text.contains(['e', 'E']) {
        text.to_string()
    } else if text.ends_with('.') {
        format!("{text}0")
    } else if text.contains('.') {
        text.to_string()
    } else {
        format!("{text}.0")
    }
}

/// `T::NAME` in OpenCL C: the value for integers (through the literal spelling, so `usize`
/// keeps 64 bits), the C library's constant for finite floats and for signed minimums, and
/// the bits of the float specials (`NAN` and `INFINITY` are macros OpenCL C has and CUDA's
/// headers, as NVRTC compiles them, do not).
fn assoc_const(ty: Scalar, name: &str) -> String {
    use Scalar::*;
    let f32_name = |n: &str| match n {
        "MAX" => "FLT_MAX".to_string(),
        "MIN" => "(-FLT_MAX)".into(),
        "EPSILON" => "FLT_EPSILON".into(),
        "MIN_POSITIVE" => "FLT_MIN".into(),
        _ => format!(
            "as_float({})",
            float_special(n, "0x7f800000u", "0xff800000u", "0x7fc00000u")
        ),
    };
    match (ty, name) {
        (F32, n) => f32_name(n),
        (F64, n) if f32_name(n).contains("FLT_") => f32_name(n).replace("FLT_", "DBL_"),
        (F64, n) => {
            let bits = float_special(
                n,
                "0x7ff0000000000000UL",
                "0xfff0000000000000UL",
                "0x7ff8000000000000UL",
            );
            format!("as_double({bits})")
        }
        (_, "BITS") => Ph::static_lit("uint", &ty.bits().to_string()),
        (t, "MAX") => Ph::static_lit(t.c_name(), &t.max_value().to_string()),
        // C's CHAR_MIN and SHRT_MIN are `int`s.
        (I8, _) => "((char)CHAR_MIN)".into(),
        (I16, _) => "((short)SHRT_MIN)".into(),
        (I32, _) => "INT_MIN".into(),
        (I64, _) => "LONG_MIN".into(),
        (Isize, _) => "((nu_sidx)LONG_MIN)".into(),
        (t, _) => Ph::static_lit(t.c_name(), "0"),
    }
}

/// The bits of `INFINITY`, `NEG_INFINITY` or `NAN` (Rust's quiet NaN).
fn float_special<'a>(name: &str, inf: &'a str, neg: &'a str, nan: &'a str) -> &'a str {
    match name {
        "INFINITY" => inf,
        "NEG_INFINITY" => neg,
        _ => nan,
    }
}

/// The placeholder name of a binary operation the runtime spells per type.
pub(super) fn op_name(op: BinOp) -> Option<&'static str> {
    use BinOp::*;
    Some(match op {
        Add => "add",
        Sub => "sub",
        Mul => "mul",
        Div => "div",
        Rem => "rem",
        BitAnd => "and",
        BitOr => "or",
        BitXor => "xor",
        Shl => "shl",
        Shr => "shr",
        _ => return None,
    })
}

impl ClEmitter<'_> {
    /// The C text of an expression.
    pub(super) fn expr(&mut self, e: &Expr) -> String {
        if self.lane_kind(e) == Some(crate::checks::lanes::Kind::Varying) {
            return self.vector_expr(e);
        }
        let s = e.slot.unwrap_or_default();
        match &e.kind {
            ExprKind::Lit(l) => self.lit(l, e.slot),
            ExprKind::Assoc { ty, name } => assoc_const(*ty, &name.to_string()),
            ExprKind::Var(v) => self.var(v),
            ExprKind::Unary { op, expr } => {
                let x = self.expr(expr);
                let name = if *op == UnOp::Neg { "neg" } else { "not" };
                Ph::op(s, name, &[&x])
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, e),
            ExprKind::Cast { expr, ty } => self.cast(expr, *ty),
            ExprKind::Index { base, index } => self.read(base, index, e.span),
            ExprKind::Call { func, args } => self.call(func, args, e.span),
            ExprKind::Method {
                recv, method, args, ..
            } => self.method(recv, method, args, e.span),
            ExprKind::If { cond, then, els } => self.if_value(e, cond, then, els.as_deref()),
            ExprKind::Block(b) => self.block_value(e, b),
            ExprKind::Paren(x) => format!("({})", self.expr(x)),
            ExprKind::Array(items) => self.array_lit(e, items),
            ExprKind::Repeat { value, len } => self.repeat(e, value, len),
            ExprKind::Field { base, index } => self.field(base, *index),
            ExprKind::Member { base, name } => {
                format!("({}).{}", self.expr(base), sanitize(&name.to_string()))
            }
            ExprKind::Struct { fields, rest, .. } => self.struct_lit(e, fields, rest.as_deref()),
            ExprKind::At { base, index } => self.private_read(base, index, e.span),
            ExprKind::Trips(r, slot) => self.trips(r, *slot),
            ExprKind::Offset { start, count, step } => {
                let (a, k) = (self.expr(start), self.expr(count));
                let k = Ph::op(s, "from_int", &[&k]);
                match step {
                    Some(st) => {
                        let st = self.expr(st);
                        Ph::op(s, "add", &[&a, &Ph::op(s, "mul", &[&k, &st])])
                    }
                    None => Ph::op(s, "add", &[&a, &k]),
                }
            }
            ExprKind::Tuple(_) => {
                self.cx.error(e.span, "tuples in kernels are only indices `a[(i, j)]` and values to destructure with `let (x, y) = ..`");
                String::new()
            }
        }
    }

    /// The trip count of a range of slot `slot`'s type, as `nu_idx`; a zero step faults.
    pub(super) fn trips(&mut self, r: &Range, slot: Slot) -> String {
        let (a, b) = (self.expr(&r.start), self.expr(&r.end));
        let st = match &r.step {
            Some(s) => self.expr(s),
            None => Ph::op(slot, "from_int", &["1"]),
        };
        let (c, q) = self.env.site_args(SiteKind::Step, "", 0, r.span);
        let incl = if r.inclusive { "1" } else { "0" };
        Ph::op(slot, "trips", &[&a, &b, &st, incl, &c, &q])
    }

    fn lit(&self, l: &Lit, slot: Option<Slot>) -> String {
        match (l, slot) {
            (Lit::Bool(b), _) => b.to_string(),
            (Lit::Int { text, .. } | Lit::Float { text, .. }, Some(s)) => Ph::lit(s, text),
            (
                Lit::Int {
                    text,
                    suffix: Some(t),
                }
                | Lit::Float {
                    text,
                    suffix: Some(t),
                },
                None,
            ) => Ph::static_lit(t.c_name(), text),
            (Lit::Int { text, .. } | Lit::Float { text, .. }, None) => text.clone(),
        }
    }

    fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, e: &Expr) -> String {
        if matches!(op, BinOp::And | BinOp::Or) && hoists(rhs) {
            return self.short_circuit(op, lhs, rhs, e);
        }
        let (l, r) = (self.expr(lhs), self.expr(rhs));
        let s = e.slot.unwrap_or_default();
        match (op, op_name(op)) {
            (BinOp::Div | BinOp::Rem, Some(name)) => {
                let kind = if op == BinOp::Div {
                    SiteKind::Divide
                } else {
                    SiteKind::Remainder
                };
                let (c, q) = self.env.site_args(kind, "", 0, e.span);
                Ph::op(s, name, &[&l, &r, &c, &q])
            }
            (_, Some(name)) => Ph::op(s, name, &[&l, &r]),
            (op, None) => format!("({l} {} {r})", op.symbol()),
        }
    }

    /// `a && b` (or `||`) whose `b` moves statements out: they must run only when `b` does,
    /// so the whole operation becomes statements into a temporary.
    fn short_circuit(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, e: &Expr) -> String {
        self.hoisted_as(e, "bool".into(), |em, tmp| {
            let l = em.expr(lhs);
            em.line(format!("{tmp} = {l};"));
            let guard = if op == BinOp::And {
                tmp.to_string()
            } else {
                format!("!{tmp}")
            };
            em.line(format!("if ({guard}) {{"));
            em.indent += 1;
            let r = em.expr(rhs);
            em.line(format!("{tmp} = {r};"));
            em.indent -= 1;
            em.line("}");
        })
    }

    fn cast(&mut self, inner: &Expr, ty: Ty) -> String {
        let x = self.expr(inner);
        match (ty, inner.slot) {
            (Ty::Scalar(s), Some(slot)) if !s.is_float() && s != Scalar::Bool => {
                Ph::op(slot, &format!("to:{}", s.c_name()), &[&x])
            }
            _ => format!("(({})({x}))", ty.cl_name()),
        }
    }

    fn call(&mut self, func: &syn::Path, args: &[Expr], span: proc_macro2::Span) -> String {
        let a = self.call_args(args);
        match builtin_of(func) {
            Some(f) => f.cl_call(&a),
            None => self.nucode_call(func, &a, span),
        }
    }

    /// `let (a, b) = f(..);` of a `#[nucode]` function returning a tuple: its components come
    /// back through pointers to the caller's locals (OpenCL C has no tuple type). `outs` are
    /// the locals, declared by the caller.
    pub(super) fn tuple_call(
        &mut self,
        func: &syn::Path,
        args: &[Expr],
        outs: &[String],
        span: proc_macro2::Span,
    ) -> String {
        let mut a = self.call_args(args);
        if builtin_of(func).is_some() {
            self.cx.error(span, "kernels destructure only `a.dims()`, tuples of values and calls of `#[nucode]` functions returning tuples");
            return String::new();
        }
        a.extend(outs.iter().map(|o| format!("&{o}")));
        self.nucode_call(func, &a, span)
    }

    /// A call's arguments; a tuple passes its components, one parameter each (OpenCL C has
    /// no tuples, and a `#[nucode]` tuple parameter is one parameter per component).
    fn call_args(&mut self, args: &[Expr]) -> Vec<String> {
        let mut out = Vec::new();
        for x in args {
            match &x.kind {
                ExprKind::Tuple(items) => out.extend(self.call_args(items)),
                _ => out.push(self.expr(x)),
            }
        }
        out
    }

    pub(super) fn nucode_call(
        &mut self,
        func: &syn::Path,
        args: &[String],
        span: proc_macro2::Span,
    ) -> String {
        let text = quote::quote!(#func).to_string();
        let k = self
            .env
            .analysis
            .calls
            .iter()
            .position(|p| quote::quote!(#p).to_string() == text);
        let Some(k) = k else {
            self.cx
                .error(span, "nuda bug: a call missing from capture analysis");
            return String::new();
        };
        let mut all = vec!["nu_err".to_string()];
        all.extend(args.iter().cloned());
        format!("{}({})", Ph::call(k), all.join(", "))
    }

    fn method(
        &mut self,
        recv: &Expr,
        method: &syn::Ident,
        args: &[Expr],
        span: proc_macro2::Span,
    ) -> String {
        let Some(kind) = MethodKind::of(&method.to_string()) else {
            return String::new();
        };
        if kind.on_memory() {
            return self.memory_method(recv, kind, args, span);
        }
        if let Some(v) = self.fused_trig(recv, kind).filter(|_| args.is_empty()) {
            return v;
        }
        let x = self.expr(recv);
        let a: Vec<String> = args.iter().map(|e| self.expr(e)).collect();
        match kind.spec().cl {
            ClMethod::Typed
                if matches!(
                    kind,
                    MethodKind::RemEuclid | MethodKind::DivEuclid | MethodKind::SaturatingDiv
                ) =>
            {
                // A zero divisor faults at the call, as `%` and `/` do.
                let (site, op) = match kind {
                    MethodKind::RemEuclid => (SiteKind::Remainder, "rem_euclid"),
                    MethodKind::DivEuclid => (SiteKind::Divide, "div_euclid"),
                    _ => (SiteKind::Divide, "saturating_div"),
                };
                let (c, q) = self.env.site_args(site, "", 0, span);
                let b = a.first().cloned().unwrap_or_default();
                Ph::op(recv.slot.unwrap_or_default(), op, &[&x, &b, &c, &q])
            }
            ClMethod::Typed if kind == MethodKind::Clamp => {
                // Bounds out of order fault at the call, where Rust panics.
                let (c, q) = self.env.site_args(SiteKind::Clamp, "", 0, span);
                let f = Ph::func(recv.slot.unwrap_or_default(), "clamp");
                let (lo, hi) = (
                    a.first().cloned().unwrap_or_default(),
                    a.get(1).cloned().unwrap_or_default(),
                );
                format!("{f}({x}, {lo}, {hi}, {c}, {q}, nu_err)")
            }
            _ => spelled(kind, recv.slot.unwrap_or_default(), &x, &a),
        }
    }

    fn field(&mut self, base: &Expr, index: u32) -> String {
        if let ExprKind::Method { recv, method, .. } = &base.kind {
            if let (ExprKind::Var(v), true) = (&recv.kind, method == "dims") {
                return format!("{}__d{index}", self.var(v));
            }
        }
        format!("({}).s{index}", self.expr(base))
    }

    /// A struct literal: a temporary, from `..rest` if written, then each field set. (C's
    /// compound literals cannot take the rest of their fields from another value.)
    fn struct_lit(
        &mut self,
        e: &Expr,
        fields: &[(syn::Ident, Expr)],
        rest: Option<&Expr>,
    ) -> String {
        let values: Vec<(String, String)> = fields
            .iter()
            .map(|(n, v)| (sanitize(&n.to_string()), self.expr(v)))
            .collect();
        let rest = rest.map(|r| self.expr(r));
        self.hoisted(e, |em, tmp| {
            if let Some(r) = rest {
                em.line(format!("{tmp} = {r};"));
            }
            for (n, v) in values {
                em.line(format!("{tmp}.{n} = {v};"));
            }
        })
    }

    /// `[a, b, c]`: a temporary of the array's struct type, set element by element.
    fn array_lit(&mut self, e: &Expr, items: &[Expr]) -> String {
        let values: Vec<String> = items.iter().map(|x| self.expr(x)).collect();
        self.hoisted(e, |em, tmp| {
            for (k, v) in values.iter().enumerate() {
                em.line(format!("{tmp}.v[{k}] = {v};"));
            }
        })
    }

    /// `[v; N]`: `v` evaluated once, into element 0, then copied; `N` is the type's. A short
    /// array written with a literal `N` is copied element by element: a loop per array kept
    /// PoCL's compiler from vectorising a `dmine` block's accumulators (the packed imgconv
    /// block ran 10% slower with 32 such loops).
    fn repeat(&mut self, e: &Expr, value: &Expr, len: &syn::Expr) -> String {
        let v = self.expr(value);
        let n = short_len(len);
        self.hoisted(e, |em, tmp| {
            em.line(format!("{tmp}.v[0] = {v};"));
            if let Some(n) = n {
                let copies: Vec<String> = (1..n)
                    .map(|k| format!("{tmp}.v[{k}] = {tmp}.v[0];"))
                    .collect();
                return em.line(copies.join(" "));
            }
            let k = em.names.fresh("nu_k");
            em.line(format!(
                "for (uint {k} = 1; {k} < NU_PLEN({tmp}); {k}++) {tmp}.v[{k}] = {tmp}.v[0];"
            ));
        })
    }

    /// `t[k]` on an array value: the prelude's checked `NU_AT`.
    fn private_read(&mut self, base: &Expr, index: &Expr, span: proc_macro2::Span) -> String {
        let name = crate::base::ir::display::expr(base);
        let (b, k) = (self.expr(base), self.expr(index));
        let (c, q) = self.env.site_args(SiteKind::Private, &name, 1, span);
        format!("NU_AT({b}, {k}, {c}, {q}, nu_err)")
    }

    fn if_value(&mut self, e: &Expr, cond: &Expr, then: &Block, els: Option<&Expr>) -> String {
        let Some(els) = els else {
            self.cx
                .error(e.span, "an `if` used as a value needs an `else` branch");
            return String::new();
        };
        if shortcut_ok(then, els) {
            let c = self.expr(cond);
            let t = then.tail.as_ref().map(|x| self.expr(x)).unwrap_or_default();
            let f = self.expr(els);
            return format!("({c} ? {t} : {f})");
        }
        self.hoisted(e, |em, tmp| {
            let c = em.expr(cond);
            em.line(format!("if ({}) {{", super::unparen(&c)));
            em.value_block(then, tmp);
            em.line("} else {");
            em.indent += 1;
            match &els.kind {
                ExprKind::Block(b) => {
                    em.indent -= 1;
                    em.value_block(b, tmp);
                    em.indent += 1;
                }
                _ => {
                    let v = em.expr(els);
                    em.line(format!("{tmp} = {v};"));
                }
            }
            em.indent -= 1;
            em.line("}");
        })
    }

    fn block_value(&mut self, e: &Expr, b: &Block) -> String {
        if b.stmts.is_empty() {
            return b
                .tail
                .as_ref()
                .map(|t| format!("({})", self.expr(t)))
                .unwrap_or_default();
        }
        self.hoisted(e, |em, tmp| {
            em.line("{");
            em.value_block(b, tmp);
            em.line("}");
        })
    }

    /// A block whose tail is stored in `tmp`.
    fn value_block(&mut self, b: &Block, tmp: &str) {
        self.names.push();
        self.indent += 1;
        self.stmts_then(&b.stmts, b.tail.as_deref());
        if let Some(t) = &b.tail {
            let v = self.expr(t);
            self.line(format!("{tmp} = {v};"));
        }
        self.indent -= 1;
        self.names.pop();
    }

    /// Declares a temporary of `e`'s type, runs `f` to store into it, and moves the
    /// statements before the current one.
    fn hoisted(&mut self, e: &Expr, f: impl FnOnce(&mut Self, &str)) -> String {
        let ty = Ph::ty(e.slot.unwrap_or_default());
        self.hoisted_as(e, ty, f)
    }

    /// [`Self::hoisted`] with a temporary of C type `ty`.
    pub(super) fn hoisted_as(
        &mut self,
        e: &Expr,
        ty: String,
        f: impl FnOnce(&mut Self, &str),
    ) -> String {
        if !self.hoist_ok {
            self.cx.error(e.span, "this value needs statements before it (a block with statements, an `if`, an array or struct literal), which a loop condition cannot have; compute it before the loop");
            return String::new();
        }
        let tmp = self.names.fresh("nu_v");
        // Written at indent 0; `line` re-indents them where they land.
        let saved_pre = std::mem::take(&mut self.pre);
        let saved_indent = std::mem::replace(&mut self.indent, 0);
        let text = self.captured(|em| {
            em.line(format!("{ty} {tmp};"));
            f(em, &tmp);
        });
        self.indent = saved_indent;
        self.pre = saved_pre;
        self.pre.extend(text.lines().map(str::to_string));
        tmp
    }
}

/// Whether a value `if` may be C's `?:`: neither branch moves statements out, since those
/// would run whichever branch is taken.
fn shortcut_ok(then: &Block, els: &Expr) -> bool {
    let then_ok = then.stmts.is_empty() && then.tail.as_deref().is_some_and(|t| !hoists(t));
    then_ok && pure_branch(els)
}

fn pure_branch(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Block(b) => b.stmts.is_empty() && b.tail.as_deref().is_some_and(|t| !hoists(t)),
        ExprKind::If { cond, then, els } => {
            !hoists(cond) && els.as_deref().is_some_and(|x| shortcut_ok(then, x))
        }
        _ => !hoists(e),
    }
}

/// Whether the C of `e` moves statements in front of the statement it is in (a block with
/// statements, an `if` that is not `?:`, a short-circuit whose right side does): such an
/// expression must not be emitted where it might not run.
pub(super) fn hoists(e: &Expr) -> bool {
    match &e.kind {
        // Literals become temporaries set before the statement.
        ExprKind::Array(_) | ExprKind::Repeat { .. } | ExprKind::Struct { .. } => true,
        ExprKind::Block(b) => !b.stmts.is_empty() || b.tail.as_deref().is_some_and(hoists),
        ExprKind::If { cond, then, els } => {
            hoists(cond) || !els.as_deref().is_some_and(|x| shortcut_ok(then, x))
        }
        _ => e.operands().into_iter().any(hoists),
    }
}

/// A method with no check of its own, on emitted operands (scalars, or vectors in lanes).
pub(super) fn spelled(kind: MethodKind, s: usize, x: &str, a: &[String]) -> String {
    match kind.spec().cl {
        ClMethod::Call(f) => {
            let all: Vec<&str> = std::iter::once(x)
                .chain(a.iter().map(String::as_str))
                .collect();
            format!("{f}({})", all.join(", "))
        }
        ClMethod::Recip => format!("(1 / ({x}))"),
        _ => typed_method(kind, s, x, a),
    }
}

/// A method whose OpenCL C depends on the receiver's type (slot `s`), which the template's
/// placeholders spell once rustc has said what it is.
pub(super) fn typed_method(kind: MethodKind, s: usize, x: &str, a: &[String]) -> String {
    let arg = |k: usize| a.get(k).cloned().unwrap_or_default();
    use MethodKind::*;
    match kind {
        Abs => Ph::op(s, "abs", &[x]),
        WrappingAbs => Ph::op(s, "wrapping_abs", &[x]),
        UnsignedAbs => Ph::op(s, "unsigned_abs", &[x]),
        Powi => format!("{}({x}, (int)({}))", Ph::func(s, "powi"), arg(0)),
        Min => format!("{}({x}, {})", Ph::func(s, "min"), arg(0)),
        Max => format!("{}({x}, {})", Ph::func(s, "max"), arg(0)),
        WrappingAdd => Ph::op(s, "add", &[x, &arg(0)]),
        WrappingSub => Ph::op(s, "sub", &[x, &arg(0)]),
        WrappingMul => Ph::op(s, "mul", &[x, &arg(0)]),
        // These count in the operand's C type, which C's promotions may have widened
        // (`c ? y : z` of two `char`s is an `int`): so the receiver is cast back first.
        RotateLeft => format!("rotate(({t})({x}), ({t})({}))", arg(0), t = Ph::ty(s)),
        RotateRight => {
            let t = Ph::ty(s);
            let bits = format!("(uint)(8 * sizeof({t}))");
            format!(
                "rotate(({t})({x}), ({t})({bits} - ((uint)({}) % {bits})))",
                arg(0)
            )
        }
        CountOnes => format!("((uint)popcount(({})({x})))", Ph::ty(s)),
        LeadingZeros => format!("((uint)clz(({})({x})))", Ph::ty(s)),
        // The prelude's helpers per type (`nu_signum_float`, `nu_pow_int`, ..).
        Signum => format!("{}({x})", Ph::func(s, "signum")),
        Pow => format!("{}({x}, (uint)({}))", Ph::func(s, "pow"), arg(0)),
        SwapBytes => format!("{}({x})", Ph::func(s, "swap_bytes")),
        WrappingNeg => Ph::op(s, "neg", &[x]),
        ToBits => format!("{}({x})", Ph::func(s, "to_bits")),
        SaturatingMul => format!("{}({x}, {})", Ph::func(s, "saturating_mul"), arg(0)),
        CheckedAdd | CheckedSub | CheckedMul | CheckedDiv | CheckedRem | CheckedDivEuclid
        | CheckedRemEuclid => {
            let f = Ph::func(s, kind.spec().name);
            format!("{f}({x}, {}, {})", arg(0), arg(1))
        }
        CheckedPow => format!(
            "{}({x}, (uint)({}), {})",
            Ph::func(s, "checked_pow"),
            arg(0),
            arg(1)
        ),
        SaturatingPow => format!("{}({x}, (uint)({}))", Ph::func(s, "saturating_pow"), arg(0)),
        CheckedShl | CheckedShr => {
            let f = Ph::func(s, kind.spec().name);
            format!("{f}({x}, (uint)({}), {})", arg(0), arg(1))
        }
        CheckedNeg | CheckedAbs | SaturatingAbs => {
            let f = Ph::func(s, kind.spec().name);
            let rest: String = a.iter().map(|v| format!(", {v}")).collect();
            format!("{f}({x}{rest})")
        }
        // `0 - MIN` saturates to `MAX`, which is Rust's `saturating_neg`.
        SaturatingNeg => format!("sub_sat(({t})0, ({t})({x}))", t = Ph::ty(s)),
        // OpenCL 1.2 has no `ctz`: the zeros below the lowest set bit are the ones of
        // `~x & (x - 1)` (all of them for 0, as in Rust), with the subtraction wrapping.
        TrailingZeros => {
            let t = Ph::ty(s);
            let dec = Ph::op(s, "sub", &[&format!("(({t})({x}))"), &Ph::lit(s, "1")]);
            format!("((uint)popcount(({t})(~(({t})({x})) & {dec})))")
        }
        _ => unreachable!("`{kind:?}` is spelled by the methods table"),
    }
}

/// The length of `[v; N]` when `N` is an integer literal of at most 16, which rustc checks
/// against the array's type.
fn short_len(len: &syn::Expr) -> Option<usize> {
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(i),
        ..
    }) = len
    else {
        return None;
    };
    i.base10_parse::<usize>()
        .ok()
        .filter(|&n| (1..=16).contains(&n))
}
