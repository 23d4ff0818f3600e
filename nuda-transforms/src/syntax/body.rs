//! Lowering kernel bodies from `syn` to the IR, rejecting every construct outside nuda's Rust
//! subset with an error at its span that names the construct and says what is supported.

use super::methods::{method_needs_receiver_type, MethodKind};
use super::nfor::{NforSyntax, RangeSyntax};
use crate::ctxt::Ctxt;
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;

/// What kernels may contain, for error messages.
pub const SUBSET: &str =
    "let, assignment, arithmetic, comparison and logical operators, `as` casts, \
     if/else, while, loop, break, continue, for over ranges, nfor!, blocks, array and image \
     indexing, builtin functions and methods, and calls of #[nucode] functions";

/// Lowers syntax to IR, allocating type slots and collecting errors.
pub struct Lower<'a> {
    /// Where errors go.
    pub cx: &'a Ctxt,
    /// The next free slot.
    pub slots: usize,
}

fn unsupported(what: &str) -> String {
    format!("{what} are not supported in nuda kernels; kernels may use {SUBSET}")
}

impl<'a> Lower<'a> {
    /// A lowering context that allocates slots from 0.
    pub fn new(cx: &'a Ctxt) -> Self {
        Lower { cx, slots: 0 }
    }

    /// A fresh slot.
    pub fn slot(&mut self) -> Slot {
        self.slots += 1;
        self.slots - 1
    }

    fn err(&self, span: Span, msg: impl std::fmt::Display) -> Expr {
        self.cx.error(span, msg);
        Expr::new(ExprKind::Lit(Lit::Bool(false)), span)
    }

    /// Lowers an `nfor!` input.
    pub fn nest(&mut self, n: &NforSyntax, span: Span) -> Nest {
        let loops = n
            .vars
            .iter()
            .zip(&n.ranges)
            .map(|(var, r)| Loop {
                var: var.clone(),
                range: self.range(r),
                slot: self.slot(),
            })
            .collect();
        Nest {
            loops,
            body: self.block(&n.body),
            span,
        }
    }

    /// Lowers the tokens of an `nfor!( .. )` invocation.
    pub fn nest_tokens(&mut self, tokens: TokenStream, span: Span) -> Option<Nest> {
        match syn::parse2::<NforSyntax>(tokens) {
            Ok(n) => Some(self.nest(&n, span)),
            Err(e) => {
                self.cx.push(e);
                None
            }
        }
    }

    fn range(&mut self, r: &RangeSyntax) -> Range {
        let start = match &r.start {
            Some(s) => self.expr(s),
            None => self.int_lit("0", r.span),
        };
        let end = self.expr(&r.end);
        let step = r.step.as_ref().map(|s| self.expr(s));
        Range {
            start,
            end,
            inclusive: r.inclusive,
            step,
            span: r.span,
        }
    }

    fn int_lit(&mut self, text: &str, span: Span) -> Expr {
        let lit = Lit::Int {
            text: text.into(),
            suffix: None,
        };
        Expr {
            kind: ExprKind::Lit(lit),
            span,
            slot: Some(self.slot()),
        }
    }

    /// Lowers a block.
    pub fn block(&mut self, b: &syn::Block) -> Block {
        let mut out = Block::default();
        let n = b.stmts.len();
        for (k, s) in b.stmts.iter().enumerate() {
            match s {
                syn::Stmt::Local(l) => self.local(l, &mut out.stmts),
                syn::Stmt::Item(i) => self.cx.error(
                    i.span(),
                    unsupported("items (fn, struct, use, ..) inside kernels"),
                ),
                syn::Stmt::Expr(e, None) if k + 1 == n && is_value(e) => {
                    out.tail = Some(Box::new(self.expr(e)))
                }
                syn::Stmt::Expr(e, _) => self.expr_stmt(e, &mut out.stmts),
                syn::Stmt::Macro(m) => self.macro_stmt(&m.mac, &mut out.stmts),
            }
        }
        out
    }

    fn local(&mut self, l: &syn::Local, out: &mut Vec<Stmt>) {
        if let Some(d) = &l.init.as_ref().and_then(|i| i.diverge.as_ref()) {
            self.cx
                .error(d.1.span(), unsupported("let-else statements"));
        }
        let init = l.init.as_ref().map(|i| self.expr(&i.expr));
        let (pat, ty) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, self.ty(&pt.ty)),
            p => (p, None),
        };
        if let syn::Pat::Wild(_) = pat {
            if let Some(e) = init {
                out.push(Stmt::Expr(e));
            }
            return;
        }
        let Some(pat) = self.pat(pat) else { return };
        let names = match &pat {
            Pat::Ident { .. } => 1,
            Pat::Tuple(list) => list.len(),
        };
        let slots = (0..names).map(|_| self.slot()).collect();
        out.push(Stmt::Let(Let {
            pat,
            ty,
            init,
            slots,
            span: l.span(),
        }));
    }

    fn pat(&mut self, p: &syn::Pat) -> Option<Pat> {
        match p {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(Pat::Ident {
                name: pi.ident.clone(),
                mutable: pi.mutability.is_some(),
            }),
            syn::Pat::Tuple(t) => {
                let mut names = Vec::new();
                for e in &t.elems {
                    match e {
                        syn::Pat::Wild(_) => names.push(None),
                        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            names.push(Some((pi.ident.clone(), pi.mutability.is_some())))
                        }
                        other => self.cx.error(other.span(), unsupported("nested patterns")),
                    }
                }
                Some(Pat::Tuple(names))
            }
            other => {
                self.cx.error(
                    other.span(),
                    unsupported("patterns other than `x`, `mut x` and `(x, y)`"),
                );
                None
            }
        }
    }

    /// Lowers a written type: a scalar such as `f32`, or `[f32; 4]`.
    pub fn ty(&mut self, t: &syn::Type) -> Option<Ty> {
        match t {
            syn::Type::Path(p) if p.qself.is_none() => {
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                if let Some(s) = Scalar::from_name(&name) {
                    return Some(Ty::Scalar(s));
                }
            }
            syn::Type::Array(a) if is_f32(&a.elem) && is_lit_4(&a.len) => return Some(Ty::Float4),
            syn::Type::Paren(p) => return self.ty(&p.elem),
            _ => {}
        }
        self.cx.error(t.span(), "this type is not supported in nuda kernels; use f32, f64, i8..i64, u8..u64, usize, isize, bool or [f32; 4]");
        None
    }

    fn macro_stmt(&mut self, mac: &syn::Macro, out: &mut Vec<Stmt>) {
        let name = mac
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        match name.as_str() {
            "nfor" => {
                if let Some(n) = self.nest_tokens(mac.tokens.clone(), mac.span()) {
                    out.push(Stmt::Nest(Box::new(n)));
                }
            }
            "annot" => {
                if let Some(n) = crate::annot::lower_annot(self, mac) {
                    out.push(Stmt::Nest(Box::new(n)));
                }
            }
            _ => self.cx.error(
                mac.path.span(),
                format!("the macro `{name}!` is not supported in nuda kernels; only nfor! and annot! are (println! and other macros cannot run on a device)"),
            ),
        }
    }

    fn expr_stmt(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) {
        let span = e.span();
        let stmt = match e {
            syn::Expr::Assign(a) => {
                let Some(place) = self.place(&a.left) else {
                    return;
                };
                Stmt::Assign {
                    place,
                    op: None,
                    value: self.expr(&a.right),
                    slot: None,
                    span,
                }
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let Some(place) = self.place(&b.left) else {
                    return;
                };
                let value = self.expr(&b.right);
                Stmt::Assign {
                    place,
                    op: compound_op(&b.op),
                    value,
                    slot: Some(self.slot()),
                    span,
                }
            }
            syn::Expr::While(w) => self.while_stmt(w),
            syn::Expr::Loop(l) => {
                self.no_label(l.label.as_ref());
                Stmt::Loop {
                    body: self.block(&l.body),
                    span,
                }
            }
            syn::Expr::ForLoop(f) => match self.for_stmt(f) {
                Some(s) => s,
                None => return,
            },
            syn::Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    self.cx
                        .error(span, unsupported("labelled breaks and breaks with values"));
                }
                Stmt::Break(span)
            }
            syn::Expr::Continue(c) => {
                if c.label.is_some() {
                    self.cx.error(span, unsupported("labelled continues"));
                }
                Stmt::Continue(span)
            }
            syn::Expr::Return(r) => Stmt::Return(r.expr.as_ref().map(|x| self.expr(x)), span),
            syn::Expr::Macro(m) => return self.macro_stmt(&m.mac, out),
            other => Stmt::Expr(self.expr(other)),
        };
        out.push(stmt);
    }

    fn no_label(&self, label: Option<&syn::Label>) {
        if let Some(l) = label {
            // The label's name: a lifetime's own span would start the compile_error! tokens.
            self.cx
                .error(l.name.ident.span(), unsupported("loop labels"));
        }
    }

    fn while_stmt(&mut self, w: &syn::ExprWhile) -> Stmt {
        self.no_label(w.label.as_ref());
        if let syn::Expr::Let(l) = &*w.cond {
            self.cx.error(l.span(), unsupported("`while let` loops"));
        }
        Stmt::While {
            cond: self.expr(&w.cond),
            body: self.block(&w.body),
            span: w.span(),
        }
    }

    fn for_stmt(&mut self, f: &syn::ExprForLoop) -> Option<Stmt> {
        self.no_label(f.label.as_ref());
        let syn::Pat::Ident(var) = &*f.pat else {
            self.cx.error(
                f.pat.span(),
                "for loops in kernels take one loop variable, as in `for k in 0..n`",
            );
            return None;
        };
        let range = match range_of_for(&f.expr) {
            Some(r) => self.range(&r),
            None => {
                self.cx.error(
                    f.expr.span(),
                    "for loops in kernels run over ranges: `a..b`, `a..=b` or `(a..b).step_by(c)`",
                );
                return None;
            }
        };
        let body = self.block(&f.body);
        Some(Stmt::For {
            var: var.ident.clone(),
            slot: self.slot(),
            range,
            body,
            span: f.span(),
        })
    }

    fn place(&mut self, e: &syn::Expr) -> Option<Place> {
        match e {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                p.path.get_ident().cloned().map(Place::Var)
            }
            syn::Expr::Index(ix) => match self.index_base(&ix.expr) {
                Some(base) => Some(Place::Index {
                    base,
                    index: self.index_list(&ix.index),
                }),
                None => None,
            },
            syn::Expr::Paren(p) => self.place(&p.expr),
            other => {
                self.cx.error(
                    other.span(),
                    "kernels assign to local variables and to array elements `a[i]` only",
                );
                None
            }
        }
    }

    fn index_base(&self, e: &syn::Expr) -> Option<syn::Ident> {
        match e {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => p.path.get_ident().cloned(),
            other => {
                self.cx.error(
                    other.span(),
                    "kernels index named arrays only, as in `a[(i, j)]`",
                );
                None
            }
        }
    }

    fn index_list(&mut self, e: &syn::Expr) -> Vec<Expr> {
        match e {
            syn::Expr::Tuple(t) => t.elems.iter().map(|x| self.expr(x)).collect(),
            syn::Expr::Paren(p) => self.index_list(&p.expr),
            other => vec![self.expr(other)],
        }
    }

    /// Lowers an expression.
    pub fn expr(&mut self, e: &syn::Expr) -> Expr {
        let span = e.span();
        let kind = match e {
            syn::Expr::Lit(l) => return self.lit(&l.lit),
            syn::Expr::Path(p) => match p.path.get_ident() {
                Some(id) if p.qself.is_none() => ExprKind::Var(id.clone()),
                _ => return self.err(span, "paths are not supported in kernels; bind the value to a local variable outside the kernel and use that"),
            },
            syn::Expr::Unary(u) => return self.unary(u),
            syn::Expr::Binary(b) => return self.binary(b),
            syn::Expr::Cast(c) => return self.cast(c),
            syn::Expr::Index(ix) => match self.index_base(&ix.expr) {
                Some(base) => ExprKind::Index { base, index: self.index_list(&ix.index) },
                None => return self.err(span, "bad index"),
            },
            syn::Expr::Call(c) => return self.call(c),
            syn::Expr::MethodCall(m) => return self.method(m),
            syn::Expr::If(i) => return self.if_expr(i),
            syn::Expr::Block(b) if b.label.is_none() => ExprKind::Block(self.block(&b.block)),
            syn::Expr::Paren(p) => ExprKind::Paren(Box::new(self.expr(&p.expr))),
            syn::Expr::Group(g) => return self.expr(&g.expr),
            syn::Expr::Tuple(t) => ExprKind::Tuple(t.elems.iter().map(|x| self.expr(x)).collect()),
            syn::Expr::Array(a) => ExprKind::Array(a.elems.iter().map(|x| self.expr(x)).collect()),
            syn::Expr::Field(f) => match &f.member {
                syn::Member::Unnamed(i) => ExprKind::Field { base: Box::new(self.expr(&f.base)), index: i.index },
                syn::Member::Named(_) => return self.err(span, unsupported("struct fields")),
            },
            other => return self.err(span, unsupported(construct_name(other))),
        };
        let slot = matches!(kind, ExprKind::Block(_)).then(|| self.slot());
        Expr { kind, span, slot }
    }

    fn lit(&mut self, l: &syn::Lit) -> Expr {
        let span = l.span();
        let (lit, slot) = match l {
            syn::Lit::Int(i) => {
                let suffix = Scalar::from_name(i.suffix());
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
                let suffix = Scalar::from_name(f.suffix());
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
        let expr = Box::new(self.expr(&u.expr));
        Expr {
            kind: ExprKind::Unary { op, expr },
            span,
            slot: Some(self.slot()),
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
        let args = c.args.iter().map(|a| self.expr(a)).collect();
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
        let Some(kind) = MethodKind::of(&name) else {
            return self.err(
                m.method.span(),
                format!(
                    "the method `{name}` is not supported in nuda kernels; supported methods: {}",
                    MethodKind::list()
                ),
            );
        };
        let mut recv = self.expr(&m.receiver);
        if method_needs_receiver_type(kind) && recv.slot.is_none() {
            recv.slot = Some(self.slot());
        }
        let args = m.args.iter().map(|a| self.expr(a)).collect();
        Expr::new(
            ExprKind::Method {
                recv: Box::new(recv),
                method: m.method.clone(),
                args,
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

fn is_f32(t: &syn::Type) -> bool {
    matches!(t, syn::Type::Path(p) if p.path.is_ident("f32"))
}

fn is_lit_4(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_digits() == "4")
}

/// The range of a `for` loop, in the shape `nfor!` ranges take.
fn range_of_for(e: &syn::Expr) -> Option<RangeSyntax> {
    let span = e.span();
    match e {
        syn::Expr::Range(r) => Some(RangeSyntax {
            start: r.start.as_deref().cloned(),
            end: *r.end.clone()?,
            inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
            step: None,
            span,
        }),
        syn::Expr::Paren(p) => range_of_for(&p.expr),
        syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            let mut r = range_of_for(&m.receiver)?;
            r.step = m.args.first().cloned();
            Some(r)
        }
        _ => None,
    }
}

/// Whether a trailing expression without `;` gives its block a value.
fn is_value(e: &syn::Expr) -> bool {
    !matches!(
        e,
        syn::Expr::While(_)
            | syn::Expr::Loop(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Assign(_)
            | syn::Expr::Macro(_)
            | syn::Expr::Break(_)
            | syn::Expr::Continue(_)
            | syn::Expr::Return(_)
    ) && !matches!(e, syn::Expr::Binary(b) if compound_op(&b.op).is_some())
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

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as S;
    Some(match op {
        S::AddAssign(_) => BinOp::Add,
        S::SubAssign(_) => BinOp::Sub,
        S::MulAssign(_) => BinOp::Mul,
        S::DivAssign(_) => BinOp::Div,
        S::RemAssign(_) => BinOp::Rem,
        S::BitAndAssign(_) => BinOp::BitAnd,
        S::BitOrAssign(_) => BinOp::BitOr,
        S::BitXorAssign(_) => BinOp::BitXor,
        S::ShlAssign(_) => BinOp::Shl,
        S::ShrAssign(_) => BinOp::Shr,
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
