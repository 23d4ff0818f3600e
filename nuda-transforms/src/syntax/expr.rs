//! Lowering expressions from `syn` to the IR, rejecting constructs outside the subset.

use super::body::{unsupported, Lower};
use crate::base::ir::builtins::{method_needs_receiver_type, MethodKind};
use crate::base::ir::*;
use syn::spanned::Spanned;

impl Lower<'_> {
    /// Lowers an expression.
    pub fn expr(&mut self, e: &syn::Expr) -> Expr {
        let span = e.span();
        let kind = match e {
            syn::Expr::Lit(l) => return self.lit(&l.lit),
            syn::Expr::Path(p) => match (p.path.get_ident(), scalar_path(&p.path)) {
                (Some(id), _) if p.qself.is_none() && self.whole_tuple(id) => {
                    return Expr::new(ExprKind::Lit(Lit::Bool(false)), span)
                }
                (Some(id), _) if p.qself.is_none() => ExprKind::Var(id.clone()),
                (_, Some((ty, name))) if p.qself.is_none() && is_assoc_const(ty, &name) => {
                    ExprKind::Assoc { ty, name }
                }
                _ => return self.err(span, "paths are not supported in kernels, except the scalar types' constants such as `i32::MAX` and `f32::EPSILON`; bind the value to a local variable outside the kernel and use that"),
            },
            syn::Expr::Unary(u) => return self.unary(u),
            syn::Expr::Binary(b) => return self.binary(b),
            syn::Expr::Cast(c) => return self.cast(c),
            syn::Expr::Index(ix) if super::body::path_ident(&ix.expr).is_none() => {
                // `b.w[k]`, `m[i][j]`, `f(x)[k]`: an element of an array value.
                let base = Box::new(self.expr(&ix.expr));
                ExprKind::At { base, index: Box::new(self.private_index(&ix.index)) }
            }
            syn::Expr::Index(ix) => match self.index_base(&ix.expr) {
                Some(base) => ExprKind::Index { base, index: self.index_list(&ix.index) },
                // `index_base` has said what is wrong.
                None => return Expr::new(ExprKind::Lit(Lit::Bool(false)), span),
            },
            syn::Expr::Call(c) => return self.call(c),
            syn::Expr::MethodCall(m) => return self.method(m),
            syn::Expr::If(i) => return self.if_expr(i),
            syn::Expr::Block(b) if b.label.is_none() => ExprKind::Block(self.block(&b.block)),
            syn::Expr::Paren(p) => ExprKind::Paren(Box::new(self.expr(&p.expr))),
            syn::Expr::Group(g) => return self.expr(&g.expr),
            syn::Expr::Tuple(t) => ExprKind::Tuple(t.elems.iter().map(|x| self.expr(x)).collect()),
            syn::Expr::Array(a) => ExprKind::Array(a.elems.iter().map(|x| self.expr(x)).collect()),
            syn::Expr::Repeat(r) => {
                self.constant_len(&r.len);
                ExprKind::Repeat { value: Box::new(self.expr(&r.expr)), len: r.len.clone() }
            }
            syn::Expr::Field(f) => match (self.tuple_field(&f.base, &f.member), &f.member) {
                (Some(part), _) => ExprKind::Var(part),
                (None, syn::Member::Unnamed(i)) => ExprKind::Field { base: Box::new(self.expr(&f.base)), index: i.index },
                (None, syn::Member::Named(name)) => ExprKind::Member { base: Box::new(self.expr(&f.base)), name: name.clone() },
            },
            syn::Expr::Struct(s) => return self.struct_lit(s),
            other => return self.err(span, unsupported(construct_name(other))),
        };
        // Array elements and fields too: the launch-time proof needs to know a `usize` read.
        let typed = matches!(
            kind,
            ExprKind::Block(_)
                | ExprKind::Array(_)
                | ExprKind::Repeat { .. }
                | ExprKind::Member { .. }
                | ExprKind::At { .. }
                | ExprKind::Index { .. }
        );
        let slot = typed.then(|| self.slot());
        Expr { kind, span, slot }
    }

    /// The index of a private array element: one expression (`t[i][j]`, not `t[(i, j)]`).
    pub(super) fn private_index(&mut self, e: &syn::Expr) -> Expr {
        match e {
            syn::Expr::Tuple(t) if t.elems.len() > 1 => self.err(
                e.span(),
                "a local array takes one index; index a nested array as `t[i][j]`",
            ),
            other => self.expr(other),
        }
    }

    /// Checks that the length of `[v; N]` is a constant: a literal, a `const` item (named in
    /// capitals, or through a path such as `Self::N`), or arithmetic on those. Rustc checks
    /// the rest; this catches a variable early, with the fix.
    fn constant_len(&mut self, len: &syn::Expr) {
        fn constant(e: &syn::Expr) -> bool {
            match e {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(_),
                    ..
                }) => true,
                syn::Expr::Path(p) => {
                    p.path.segments.len() > 1
                        || p.path.get_ident().is_some_and(|i| {
                            let n = i.to_string();
                            n.chars()
                                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                        })
                }
                syn::Expr::Binary(b) => constant(&b.left) && constant(&b.right),
                syn::Expr::Paren(p) => constant(&p.expr),
                syn::Expr::Group(g) => constant(&g.expr),
                syn::Expr::Cast(c) => constant(&c.expr),
                syn::Expr::Block(b) => b.block.stmts.len() == 1,
                syn::Expr::Const(_) => true,
                _ => false,
            }
        }
        if !constant(len) {
            let text = quote::quote!(#len).to_string();
            self.cx.error(len.span(), format!("a private array `[v; N]` needs a constant length, and `{text}` is not one: write a literal or a `const` item, as in `[0.0f32; 8]` or `const N: usize = 8;` then `[0.0f32; N]`; for a length known only at run time, use a captured NuArray1"));
        }
    }

    /// `Body { x: e, ..rest }`: a `#[nustruct]` value, typed by its slot.
    fn struct_lit(&mut self, s: &syn::ExprStruct) -> Expr {
        if s.qself.is_some() {
            return self.err(s.span(), unsupported("qualified struct paths"));
        }
        let mut fields = Vec::new();
        for f in &s.fields {
            let syn::Member::Named(n) = &f.member else {
                return self.err(
                    f.span(),
                    "#[nustruct] literals name their fields, as in `Body { x: 1.0, ..b }`",
                );
            };
            fields.push((n.clone(), self.expr(&f.expr)));
        }
        let rest = s.rest.as_ref().map(|r| Box::new(self.expr(r)));
        let kind = ExprKind::Struct {
            path: s.path.clone(),
            fields,
            rest,
        };
        Expr {
            kind,
            span: s.span(),
            slot: Some(self.slot()),
        }
    }

    fn lit(&mut self, l: &syn::Lit) -> Expr {
        let span = l.span();
        let (lit, slot) = match l {
            syn::Lit::Int(i) => {
                let suffix = Scalar::from_rust(i.suffix());
                let slot = suffix.is_none().then(|| self.slot());
                (
                    Lit::Int {
                        text: i.base10_digits().to_string(),
                        suffix,
                    },
                    slot,
                )
            }
            syn::Lit::Float(f) => {
                let suffix = Scalar::from_rust(f.suffix());
                let slot = suffix.is_none().then(|| self.slot());
                (
                    Lit::Float {
                        text: f.base10_digits().to_string(),
                        suffix,
                    },
                    slot,
                )
            }
            syn::Lit::Bool(b) => (Lit::Bool(b.value), None),
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => {
                return self.err(span, unsupported("string literals"))
            }
            _ => return self.err(span, unsupported("character and byte literals")),
        };
        Expr {
            kind: ExprKind::Lit(lit),
            span,
            slot,
        }
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Expr {
        let span = u.span();
        let op = match u.op {
            syn::UnOp::Neg(_) => UnOp::Neg,
            syn::UnOp::Not(_) => UnOp::Not,
            _ => {
                return self.err(
                    span,
                    unsupported("references and dereferences (`&x`, `*x`)"),
                )
            }
        };
        let mut expr = Box::new(self.expr(&u.expr));
        let slot = match (&expr.kind, op) {
            // `-128i8`, `-2147483648`: a negative literal, one value, as Rust reads it (the
            // literal alone may not fit); it shares its slot with the negation.
            (ExprKind::Lit(Lit::Int { .. } | Lit::Float { .. }), UnOp::Neg) => {
                expr.slot.unwrap_or_else(|| self.slot())
            }
            _ => self.slot(),
        };
        if matches!(expr.kind, ExprKind::Lit(_)) && expr.slot.is_some() {
            expr.slot = Some(slot);
        }
        Expr {
            kind: ExprKind::Unary { op, expr },
            span,
            slot: Some(slot),
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Expr {
        let span = b.span();
        let Some(op) = bin_op(&b.op) else {
            return self.err(
                b.op.span(),
                "compound assignment is a statement in kernels, as in `s += x;`",
            );
        };
        let (lhs, rhs) = (Box::new(self.expr(&b.left)), Box::new(self.expr(&b.right)));
        let slot = op.is_arithmetic().then(|| self.slot());
        Expr {
            kind: ExprKind::Binary { op, lhs, rhs },
            span,
            slot,
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Expr {
        let span = c.span();
        let mut expr = self.expr(&c.expr);
        let Some(ty) = self.ty(&c.ty) else {
            return expr;
        };
        if expr.slot.is_none() {
            // The C conversion of float to integer depends on the source type.
            expr.slot = Some(self.slot());
        }
        Expr::new(
            ExprKind::Cast {
                expr: Box::new(expr),
                ty,
            },
            span,
        )
    }

    fn call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = c.span();
        let syn::Expr::Path(p) = &*c.func else {
            return self.err(
                c.func.span(),
                unsupported("calls of closures and function values"),
            );
        };
        if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_none()) {
            return self.err(span, unsupported("generic function calls"));
        }
        if let Some((ty, name)) = scalar_path(&p.path) {
            return self.path_method(c, ty, &name);
        }
        let args = c
            .args
            .iter()
            .map(|a| self.tuple_arg(a).unwrap_or_else(|| self.expr(a)))
            .collect();
        Expr::new(
            ExprKind::Call {
                func: p.path.clone(),
                args,
            },
            span,
        )
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> Expr {
        let span = m.span();
        if m.turbofish.is_some() {
            return self.err(span, unsupported("generic method calls"));
        }
        let name = m.method.to_string();
        if name == "push" {
            // A NuVec's push: `nuwork!` rewrites it (`crate::checks::reduce::push`); capture analysis
            // refuses it anywhere else.
            let recv = Box::new(self.expr(&m.receiver));
            let args = m.args.iter().map(|a| self.expr(a)).collect();
            let (method, path) = (m.method.clone(), None);
            return Expr::new(
                ExprKind::Method {
                    recv,
                    method,
                    args,
                    path,
                },
                span,
            );
        }
        if let Some(e) = self.checked_or(m) {
            return e;
        }
        if name.starts_with("checked_") {
            let msg = format!("`{name}` in kernels: follow it with `.unwrap_or(v)`, as in `x.{name}(y).unwrap_or(v)`, since kernels have no `Option`");
            return self.err(m.method.span(), msg);
        }
        if crate::base::ir::builtins::builtin_fn(&name).is_some_and(|f| m.args.len() + 1 == f.arity)
        {
            let msg = format!("`{name}` is a builtin function in nuda kernels, not a method: write `{name}(x)` instead of `x.{name}()`");
            return self.err(m.method.span(), msg);
        }
        let Some(kind) = MethodKind::of(&name) else {
            return self.err(
                m.method.span(),
                format!(
                    "the method `{name}` is not supported in nuda kernels; supported methods: {}, and `push` on a NuVec in nuwork!",
                    MethodKind::list()
                ),
            );
        };
        let mut recv = self.expr(&m.receiver);
        // A method `vector(w)` applies lane by lane broadcasts its scalar arguments to the
        // receiver's vector type, so it needs the type too.
        let typed = method_needs_receiver_type(kind) || kind.spec().lanes;
        if typed && recv.slot.is_none() {
            recv.slot = Some(self.slot());
        }
        let args = m.args.iter().map(|a| self.expr(a)).collect();
        Expr::new(
            ExprKind::Method {
                recv: Box::new(recv),
                method: m.method.clone(),
                args,
                path: None,
            },
            span,
        )
    }

    /// `x.checked_add(y).unwrap_or(v)` (and `_sub`, `_mul`, `_div`, `_rem`): one method of
    /// `x` with arguments `y` and `v`.
    fn checked_or(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let syn::Expr::MethodCall(inner) = &*m.receiver else {
            return None;
        };
        let name = inner.method.to_string();
        // The method and its number of arguments before `unwrap_or`'s.
        let checked = [
            ("checked_add", 1),
            ("checked_sub", 1),
            ("checked_mul", 1),
            ("checked_div", 1),
            ("checked_rem", 1),
            ("checked_pow", 1),
            ("checked_shl", 1),
            ("checked_shr", 1),
            ("checked_div_euclid", 1),
            ("checked_rem_euclid", 1),
            ("checked_neg", 0),
            ("checked_abs", 0),
        ];
        let &(_, own) = checked.iter().find(|c| c.0 == name)?;
        if m.method != "unwrap_or" {
            return None;
        }
        let (Some(v), true, 1) = (m.args.first(), inner.args.len() == own, m.args.len()) else {
            let form = if own == 1 { "(y)" } else { "()" };
            return Some(self.err(m.span(), format!("`{name}` takes {own} argument(s) and `unwrap_or` one, as in `x.{name}{form}.unwrap_or(v)`")));
        };
        let mut recv = self.expr(&inner.receiver);
        if recv.slot.is_none() {
            recv.slot = Some(self.slot());
        }
        let mut args: Vec<Expr> = inner.args.iter().map(|y| self.expr(y)).collect();
        args.push(self.expr(v));
        let (recv, method, path) = (Box::new(recv), inner.method.clone(), None);
        Some(Expr::new(
            ExprKind::Method {
                recv,
                method,
                args,
                path,
            },
            m.span(),
        ))
    }

    /// `f32::sqrt(x)`, `u32::max(a, b)`: a builtin method called through its type.
    fn path_method(&mut self, c: &syn::ExprCall, ty: Scalar, name: &syn::Ident) -> Expr {
        let span = c.span();
        let kind = MethodKind::of(&name.to_string()).filter(|k| !k.on_memory());
        let Some(kind) = kind else {
            let msg = format!(
                "`{}::{name}` is not a builtin nuda kernels support; supported methods: {}",
                ty.rust_name(),
                MethodKind::list()
            );
            return self.err(name.span(), msg);
        };
        let mut all = c.args.iter();
        let Some(first) = all.next() else {
            return self.err(
                span,
                format!(
                    "`{}::{name}` takes the value first, as in `{}::{name}(x)`",
                    ty.rust_name(),
                    ty.rust_name()
                ),
            );
        };
        let mut recv = self.expr(first);
        if recv.slot.is_none() {
            recv.slot = Some(self.slot());
        }
        let _ = kind;
        let args = all.map(|a| self.expr(a)).collect();
        Expr::new(
            ExprKind::Method {
                recv: Box::new(recv),
                method: name.clone(),
                args,
                path: Some(ty),
            },
            span,
        )
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
        if let syn::Expr::Let(l) = &*i.cond {
            return self.err(l.span(), unsupported("`if let` expressions"));
        }
        let cond = Box::new(self.expr(&i.cond));
        let then = self.block(&i.then_branch);
        let els = i.else_branch.as_ref().map(|(_, e)| Box::new(self.expr(e)));
        Expr {
            kind: ExprKind::If { cond, then, els },
            span: i.span(),
            slot: Some(self.slot()),
        }
    }
}

fn bin_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as S;
    Some(match op {
        S::Add(_) => BinOp::Add,
        S::Sub(_) => BinOp::Sub,
        S::Mul(_) => BinOp::Mul,
        S::Div(_) => BinOp::Div,
        S::Rem(_) => BinOp::Rem,
        S::And(_) => BinOp::And,
        S::Or(_) => BinOp::Or,
        S::BitAnd(_) => BinOp::BitAnd,
        S::BitOr(_) => BinOp::BitOr,
        S::BitXor(_) => BinOp::BitXor,
        S::Shl(_) => BinOp::Shl,
        S::Shr(_) => BinOp::Shr,
        S::Eq(_) => BinOp::Eq,
        S::Ne(_) => BinOp::Ne,
        S::Lt(_) => BinOp::Lt,
        S::Le(_) => BinOp::Le,
        S::Gt(_) => BinOp::Gt,
        S::Ge(_) => BinOp::Ge,
        _ => return None,
    })
}

/// A plural name for an unsupported expression kind.
fn construct_name(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::Closure(_) => "closures",
        syn::Expr::Reference(_) => "references (`&x`)",
        syn::Expr::Match(_) => "match expressions (use if/else)",
        syn::Expr::Range(_) => "ranges outside for loops and nfor!",
        syn::Expr::Struct(_) => "struct literals",
        syn::Expr::Try(_) => "`?` operators",
        syn::Expr::Async(_) | syn::Expr::Await(_) => "async code",
        syn::Expr::Macro(_) => "macros in expressions (println! and the like)",
        syn::Expr::Repeat(_) => "array repeat expressions",
        syn::Expr::Unsafe(_) => "unsafe blocks",
        syn::Expr::Let(_) => "let expressions",
        syn::Expr::Block(_) => "labelled blocks",
        syn::Expr::Field(_) => "struct fields",
        _ => "these expressions",
    }
}

/// `T::name` with `T` a scalar type: the type and the name.
fn scalar_path(p: &syn::Path) -> Option<(Scalar, syn::Ident)> {
    match p.segments.len() {
        2 if p.leading_colon.is_none() => {
            let ty = Scalar::from_rust(&p.segments[0].ident.to_string())?;
            Some((ty, p.segments[1].ident.clone()))
        }
        _ => None,
    }
}

/// The associated constants kernels know: `MIN`, `MAX` and `BITS` of integers; `MIN`,
/// `MAX`, `EPSILON`, `MIN_POSITIVE`, `INFINITY`, `NEG_INFINITY` and `NAN` of floats.
pub fn is_assoc_const(ty: Scalar, name: &syn::Ident) -> bool {
    let n = name.to_string();
    match ty {
        Scalar::Bool => false,
        t if t.is_float() => matches!(
            n.as_str(),
            "MIN" | "MAX" | "EPSILON" | "MIN_POSITIVE" | "INFINITY" | "NEG_INFINITY" | "NAN"
        ),
        _ => matches!(n.as_str(), "MIN" | "MAX" | "BITS"),
    }
}
