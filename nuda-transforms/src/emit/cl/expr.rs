//! Expressions in OpenCL C. Where Rust and C differ, the C follows Rust: narrow integer
//! arithmetic wraps to its type, float-to-integer casts saturate, `%` on floats is `fmod`,
//! `!` on integers is `~`, and every unsuffixed literal gets the type rustc gave it.

use super::ClEmitter;
use crate::emit::template::Ph;
use crate::ir::*;
use crate::syntax::methods::MethodKind;

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

/// A literal of a written scalar type.
pub fn typed_literal(text: &str, ty: Scalar) -> String {
    use Scalar::*;
    match ty {
        F32 => format!("{}f", decimal(text)),
        F64 => decimal(text),
        I32 => text.to_string(),
        U32 => format!("{text}u"),
        I64 => format!("{text}L"),
        U64 => format!("{text}UL"),
        Bool => text.to_string(),
        other => format!("(({}){text})", other.cl_name()),
    }
}

impl ClEmitter<'_> {
    /// The C text of an expression.
    pub(super) fn expr(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(l) => self.lit(l, e.slot),
            ExprKind::Var(v) => self.var(v),
            ExprKind::Unary { op, expr } => {
                let x = self.expr(expr);
                let s = e.slot.unwrap_or_default();
                match op {
                    UnOp::Neg => format!("{}(-{x})", Ph::func(s, "wrap")),
                    UnOp::Not => format!("({}{x})", Ph::func(s, "not")),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, e.slot),
            ExprKind::Cast { expr, ty } => self.cast(expr, *ty),
            ExprKind::Index { base, index } => self.element(base, index),
            ExprKind::Call { func, args } => self.call(func, args, e.span),
            ExprKind::Method { recv, method, args } => self.method(recv, method, args),
            ExprKind::If { cond, then, els } => self.if_value(e, cond, then, els.as_deref()),
            ExprKind::Block(b) => self.block_value(e, b),
            ExprKind::Paren(x) => format!("({})", self.expr(x)),
            ExprKind::Array(items) => {
                let parts: Vec<String> = items.iter().map(|x| self.expr(x)).collect();
                format!("((float4)({}))", parts.join(", "))
            }
            ExprKind::Field { base, index } => self.field(base, *index),
            ExprKind::Lane { base, lane, .. } => format!("({}).s{lane}", self.expr(base)),
            ExprKind::Trips(r) => self.trips(r),
            ExprKind::Offset { start, count, step } => {
                let (a, k) = (self.expr(start), self.expr(count));
                let t = Ph::ty(e.slot.unwrap_or_default());
                match step {
                    Some(s) => format!("({a} + ({t})({k}) * {})", self.expr(s)),
                    None => format!("({a} + ({t})({k}))"),
                }
            }
            ExprKind::Tuple(_) => {
                self.cx.error(e.span, "tuples in kernels are only indices `a[(i, j)]` and values to destructure with `let (x, y) = ..`");
                String::new()
            }
        }
    }

    /// The trip count of a range, as `nu_idx`.
    pub(super) fn trips(&mut self, r: &Range) -> String {
        let (a, b) = (self.expr(&r.start), self.expr(&r.end));
        let s = r
            .step
            .as_ref()
            .map_or_else(|| "1".to_string(), |s| self.expr(s));
        if r.inclusive {
            format!("({b} >= {a} ? (nu_idx)({b} - {a}) / (nu_idx)({s}) + 1 : (nu_idx)0)")
        } else {
            format!("({b} > {a} ? ((nu_idx)({b} - {a}) + (nu_idx)({s}) - 1) / (nu_idx)({s}) : (nu_idx)0)")
        }
    }

    fn lit(&self, l: &Lit, slot: Option<Slot>) -> String {
        match (l, slot) {
            (Lit::Bool(b), _) => b.to_string(),
            (Lit::Int { text, .. } | Lit::Float { text, .. }, Some(s)) => Ph::lit(s, text),
            (
                Lit::Int {
                    text,
                    suffix: Some(t),
                },
                None,
            )
            | (
                Lit::Float {
                    text,
                    suffix: Some(t),
                },
                None,
            ) => typed_literal(text, *t),
            (Lit::Int { text, .. } | Lit::Float { text, .. }, None) => text.clone(),
        }
    }

    fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, slot: Option<Slot>) -> String {
        let (l, r) = (self.expr(lhs), self.expr(rhs));
        let s = slot.unwrap_or_default();
        match op {
            BinOp::Rem => format!("{}({l}, {r})", Ph::func(s, "rem")),
            op if op.is_arithmetic() => format!("{}({l} {} {r})", Ph::func(s, "wrap"), op.symbol()),
            op => format!("({l} {} {r})", op.symbol()),
        }
    }

    fn cast(&mut self, inner: &Expr, ty: Ty) -> String {
        let x = self.expr(inner);
        match (ty, inner.slot) {
            (Ty::Scalar(s), Some(slot)) if !s.is_float() && s != Scalar::Bool => {
                format!("{}({x})", Ph::func(slot, &format!("to:{}", s.cl_name())))
            }
            _ => format!("(({})({x}))", ty.cl_name()),
        }
    }

    /// `base[index]` on a captured array, with row-major offset arithmetic in `nu_idx`.
    pub(super) fn element(&mut self, base: &syn::Ident, index: &[Expr]) -> String {
        let b = self.var(base);
        let parts: Vec<String> = index.iter().map(|x| self.expr(x)).collect();
        let mut off = format!("({})", parts.first().cloned().unwrap_or_default());
        for (k, p) in parts.iter().enumerate().skip(1) {
            off = format!("{off} * {b}__d{k} + ({p})");
            if k + 1 < parts.len() {
                off = format!("({off})");
            }
        }
        format!("{b}[{off}]")
    }

    fn call(&mut self, func: &syn::Path, args: &[Expr], span: proc_macro2::Span) -> String {
        let a: Vec<String> = args.iter().map(|x| self.expr(x)).collect();
        let name = func.get_ident().map(|i| i.to_string()).unwrap_or_default();
        let one = a.first().cloned().unwrap_or_default();
        match name.as_str() {
            "global_id" | "local_id" | "group_id" | "global_size" | "local_size" | "num_groups" => {
                format!("((nu_idx)get_{name}({one}))")
            }
            "barrier" => "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)".into(),
            "rsqrt" => format!("rsqrt({one})"),
            _ => self.nucode_call(func, &a, span),
        }
    }

    fn nucode_call(
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
        format!("{}({})", Ph::call(k), args.join(", "))
    }

    fn method(&mut self, recv: &Expr, method: &syn::Ident, args: &[Expr]) -> String {
        let Some(kind) = MethodKind::of(&method.to_string()) else {
            return String::new();
        };
        if kind.on_memory() {
            return self.memory_method(recv, kind, args);
        }
        let x = self.expr(recv);
        let a: Vec<String> = args.iter().map(|e| self.expr(e)).collect();
        let arg = |k: usize| a.get(k).cloned().unwrap_or_default();
        let s = recv.slot.unwrap_or_default();
        use MethodKind::*;
        match kind {
            Abs => format!("{}({x})", Ph::func(s, "abs")),
            Min => format!("{}({x}, {})", Ph::func(s, "min"), arg(0)),
            Max => format!("{}({x}, {})", Ph::func(s, "max"), arg(0)),
            MulAdd => format!("fma({x}, {}, {})", arg(0), arg(1)),
            Powi => format!("pown({x}, {})", arg(0)),
            Powf => format!("pow({x}, {})", arg(0)),
            Recip => format!("(1 / ({x}))"),
            WrappingAdd => format!("{}({x} + {})", Ph::func(s, "wrap"), arg(0)),
            WrappingSub => format!("{}({x} - {})", Ph::func(s, "wrap"), arg(0)),
            WrappingMul => format!("{}({x} * {})", Ph::func(s, "wrap"), arg(0)),
            RotateLeft => format!("rotate({x}, ({})({}))", Ph::ty(s), arg(0)),
            RotateRight => {
                let bits = format!("(uint)(8 * sizeof({x}))");
                format!(
                    "rotate({x}, ({})({bits} - ((uint)({}) % {bits})))",
                    Ph::ty(s),
                    arg(0)
                )
            }
            CountOnes => format!("((uint)popcount({x}))"),
            LeadingZeros => format!("((uint)clz({x}))"),
            Ln => format!("log({x})"),
            Sqrt | Exp | Log2 | Sin | Cos | Tan | Floor | Ceil | Round => {
                format!("{}({x})", method)
            }
            Dims | Len | Read | Write => unreachable!("memory methods are handled above"),
        }
    }

    fn memory_method(&mut self, recv: &Expr, kind: MethodKind, args: &[Expr]) -> String {
        let ExprKind::Var(name) = &recv.kind else {
            return String::new();
        };
        let b = self.var(name);
        let fill = self.env.capture_fill(name).unwrap_or_default();
        let a: Vec<String> = args.iter().map(|e| self.expr(e)).collect();
        match kind {
            MethodKind::Dims => format!("{b}__d0"),
            MethodKind::Len => Ph::len(fill, &b),
            MethodKind::Read => format!(
                "nu_read{}({b}, (int)({}), (int)({}))",
                Ph::channels(fill),
                a[0],
                a[1]
            ),
            MethodKind::Write => format!(
                "nu_write{}({b}, (int)({}), (int)({}), {})",
                Ph::channels(fill),
                a[0],
                a[1],
                a[2]
            ),
            _ => String::new(),
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

    fn if_value(&mut self, e: &Expr, cond: &Expr, then: &Block, els: Option<&Expr>) -> String {
        let Some(els) = els else {
            self.cx
                .error(e.span, "an `if` used as a value needs an `else` branch");
            return String::new();
        };
        if then.stmts.is_empty() && then.tail.is_some() && is_pure_branch(els) {
            let c = self.expr(cond);
            let t = then.tail.as_ref().map(|x| self.expr(x)).unwrap_or_default();
            let f = self.expr(els);
            return format!("({c} ? {t} : {f})");
        }
        self.hoisted(e, |em, tmp| {
            let c = em.expr(cond);
            em.line(format!("if ({c}) {{"));
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
        self.stmts(&b.stmts);
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
        if !self.hoist_ok {
            self.cx.error(e.span, "blocks with statements cannot be used in a loop condition; compute the value before the loop");
            return String::new();
        }
        let tmp = self.names.fresh("nu_v");
        let ty = Ph::ty(e.slot.unwrap_or_default());
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

fn is_pure_branch(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Block(b) => b.stmts.is_empty() && b.tail.is_some(),
        ExprKind::If { then, els, .. } => {
            then.stmts.is_empty() && els.as_deref().is_some_and(is_pure_branch)
        }
        _ => true,
    }
}
