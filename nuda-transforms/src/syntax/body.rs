//! Lowering kernel bodies from `syn` to the IR, rejecting every construct outside nuda's Rust
//! subset with an error at its span that names the construct and says what is supported.

use super::nfor::{NforSyntax, RangeSyntax};
use crate::base::ctxt::Ctxt;
use crate::base::ir::*;
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
    /// The `nulocal!` arrays declared so far.
    pub locals: Vec<super::local::LocalDecl>,
    /// Whether `nulocal!` is allowed (a `#[nukernel]` body).
    pub allow_locals: bool,
    /// Blocks entered: the kernel body is depth 1.
    pub(super) depth: usize,
    /// The tuple locals in scope (see `tuple.rs`).
    pub(super) tuples: Vec<TupleLocal>,
}

/// A tuple local in scope, or (with no parts) a binding that shadows one (`tuple.rs` keeps
/// the scope).
#[derive(Debug, Clone)]
pub struct TupleLocal {
    pub(super) name: syn::Ident,
    pub(super) parts: Vec<syn::Ident>,
    pub(super) mutable: bool,
    pub(super) depth: usize,
}

pub(super) fn unsupported(what: &str) -> String {
    format!("{what} are not supported in nuda kernels; kernels may use {SUBSET}")
}

impl<'a> Lower<'a> {
    /// A lowering context that allocates slots from 0.
    pub fn new(cx: &'a Ctxt) -> Self {
        Lower {
            cx,
            slots: 0,
            locals: Vec::new(),
            allow_locals: false,
            depth: 0,
            tuples: Vec::new(),
        }
    }

    /// A fresh slot.
    pub fn slot(&mut self) -> Slot {
        self.slots += 1;
        self.slots - 1
    }

    pub(super) fn err(&self, span: Span, msg: impl std::fmt::Display) -> Expr {
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
            annots: Vec::new(),
            lanes: None,
            stage: None,
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
        if step.as_ref().is_some_and(is_zero) {
            let span = r.step.as_ref().map_or(r.span, Spanned::span);
            self.cx.error(span, "a loop step of zero never reaches the end; step by a positive value to count up, or a negative one (`a <> b :/ -1`) to count down");
        }
        Range {
            start,
            end,
            inclusive: r.inclusive,
            step,
            rev: r.rev,
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
        self.depth += 1;
        let out = self.block_stmts(b);
        self.depth -= 1;
        self.leave_block();
        out
    }

    fn block_stmts(&mut self, b: &syn::Block) -> Block {
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
        if let Some(mac) = l
            .init
            .as_ref()
            .and_then(|i| super::local::is_nulocal(&i.expr))
        {
            return self.nulocal(l, mac);
        }
        if let Some(lets) = self.tuple_let(l) {
            out.extend(lets);
            return;
        }
        if let Some(d) = &l.init.as_ref().and_then(|i| i.diverge.as_ref()) {
            self.cx
                .error(d.1.span(), unsupported("let-else statements"));
        }
        let init = l.init.as_ref().map(|i| self.expr(&i.expr));
        let (pat, ty) = match &l.pat {
            // A `#[nustruct]` type: the init's slot gives its OpenCL C name.
            syn::Pat::Type(pt) if is_named_type(&pt.ty) => (&*pt.pat, None),
            syn::Pat::Type(pt) => (&*pt.pat, self.ty(&pt.ty)),
            p => (p, None),
        };
        let named = match &l.pat {
            syn::Pat::Type(pt) if is_named_type(&pt.ty) => Some(pt.ty.clone()),
            _ => None,
        };
        if let syn::Pat::Wild(_) = pat {
            if let Some(e) = init {
                out.push(Stmt::Expr(e));
            }
            return;
        }
        let Some(pat) = self.pat(pat) else { return };
        let names = match &pat {
            Pat::Ident { name, .. } => {
                self.shadow(name);
                1
            }
            Pat::Tuple(list) => {
                list.iter().flatten().for_each(|(n, _)| self.shadow(n));
                list.len()
            }
        };
        let slots = (0..names).map(|_| self.slot()).collect();
        out.push(Stmt::Let(Let {
            pat,
            ty,
            named,
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
                if let Some(s) = Scalar::from_rust(&name) {
                    return Some(Ty::Scalar(s));
                }
            }
            syn::Type::Paren(p) => return self.ty(&p.elem),
            _ => {}
        }
        self.cx.error(t.span(), "this type is not supported in nuda kernels; use f32, f64, i8..i64, u8..u64, usize, isize, bool, a #[nustruct] struct, or a fixed-size array `[T; N]` of those");
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
                if let Some(n) = super::annot::lower_annot(self, mac) {
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
            syn::Expr::Assign(a) => self.assign(&a.left, None, &a.right, span),
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                self.assign(&b.left, compound_op(&b.op), &b.right, span)
            }
            syn::Expr::While(w) => Some(self.while_stmt(w)),
            syn::Expr::Loop(l) => {
                self.no_label(l.label.as_ref());
                let body = self.block(&l.body);
                Some(Stmt::Loop { body, span })
            }
            syn::Expr::ForLoop(f) => self.for_stmt(f),
            syn::Expr::Break(b) => Some(self.break_stmt(b)),
            syn::Expr::Continue(c) => {
                if c.label.is_some() {
                    self.cx.error(span, unsupported("labelled continues"));
                }
                Some(Stmt::Continue(span))
            }
            syn::Expr::Return(r) => Some(Stmt::Return(r.expr.as_ref().map(|x| self.expr(x)), span)),
            syn::Expr::Macro(m) => return self.macro_stmt(&m.mac, out),
            other => Some(Stmt::Expr(self.expr(other))),
        };
        out.extend(stmt);
    }

    /// `place = value`, or `place op= value` (whose slot types the operation).
    fn assign(
        &mut self,
        left: &syn::Expr,
        op: Option<BinOp>,
        right: &syn::Expr,
        span: Span,
    ) -> Option<Stmt> {
        let place = self.place(left)?;
        let value = self.expr(right);
        // The place's type: a compound update computes in it, and a checked element store
        // evaluates the value into a temporary of it first, as Rust does.
        let element = matches!(&place, Place::Member { path, .. } if has_elem(path));
        let slot = (op.is_some() || element || is_local_index(&place, &value)).then(|| self.slot());
        Some(Stmt::Assign {
            place,
            op,
            value,
            slot,
            span,
        })
    }

    fn break_stmt(&mut self, b: &syn::ExprBreak) -> Stmt {
        let span = b.span();
        if b.label.is_some() || b.expr.is_some() {
            self.cx
                .error(span, unsupported("labelled breaks and breaks with values"));
        }
        Stmt::Break(span)
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
        let var = match &*f.pat {
            syn::Pat::Ident(v) => v.ident.clone(),
            // `for _ in ..` runs for its count: the variable gets a name no code reads (the
            // leading underscore keeps rustc quiet about it).
            syn::Pat::Wild(w) => syn::Ident::new("_nuda_count", w.span()),
            _ => {
                self.cx.error(
                    f.pat.span(),
                    "for loops in kernels take one loop variable or `_`, as in `for k in 0..n`",
                );
                return None;
            }
        };
        let range = match range_of_for(&f.expr) {
            Some(r) => self.range(&r),
            None => {
                self.cx.error(
                    f.expr.span(),
                    "for loops in kernels run over ranges: `a..b`, `a..=b`, `(a..b).step_by(c)`, and `.rev()` of these",
                );
                return None;
            }
        };
        // The loop variable hides a tuple of its name in the body only.
        self.depth += 1;
        self.shadow(&var);
        let body = self.block(&f.body);
        self.depth -= 1;
        self.leave_block();
        Some(Stmt::For {
            var,
            slot: self.slot(),
            range: Box::new(range),
            body,
            span: f.span(),
        })
    }

    fn place(&mut self, e: &syn::Expr) -> Option<Place> {
        match e {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                p.path.get_ident().cloned().map(Place::Var)
            }
            syn::Expr::Index(ix) if path_ident(&ix.expr).is_some() => {
                let base = self.index_base(&ix.expr)?;
                Some(Place::Index {
                    base,
                    index: self.index_list(&ix.index),
                })
            }
            syn::Expr::Index(_) => self.member_place(e),
            syn::Expr::Paren(p) => self.place(&p.expr),
            syn::Expr::Field(f) if self.tuple_parts_of(&f.base) => {
                self.tuple_place(&f.base, &f.member).map(Place::Var)
            }
            syn::Expr::Field(_) => self.member_place(e),
            other => {
                self.cx.error(
                    other.span(),
                    "kernels assign to local variables and to array elements `a[i]` only",
                );
                None
            }
        }
    }

    /// `b.x = ..`, `b.pos.x += ..`, `m[i][j] = ..`, `b.w[k] = ..`: a part of a local value.
    fn member_place(&mut self, whole: &syn::Expr) -> Option<Place> {
        let mut path = Vec::new();
        let mut e = whole;
        loop {
            match e {
                syn::Expr::Field(x) => {
                    let syn::Member::Named(n) = &x.member else {
                        break;
                    };
                    path.push(Step::Field(n.clone()));
                    e = &x.base;
                }
                syn::Expr::Index(x) => {
                    path.push(Step::Elem(self.private_index(&x.index)));
                    e = &x.expr;
                }
                syn::Expr::Paren(x) => e = &x.expr,
                _ => break,
            }
        }
        path.reverse();
        match e {
            syn::Expr::Path(p) if p.path.get_ident().is_some() && !path.is_empty() => {
                let base = p.path.get_ident().cloned()?;
                Some(Place::Member { base, path })
            }
            other => {
                self.cx.error(other.span(), "kernels assign to local variables, fields of local structs `b.x`, elements of local arrays `t[k]` and captured arrays' elements `a[i]` only");
                None
            }
        }
    }

    pub(super) fn index_base(&self, e: &syn::Expr) -> Option<syn::Ident> {
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

    pub(super) fn index_list(&mut self, e: &syn::Expr) -> Vec<Expr> {
        match e {
            syn::Expr::Tuple(t) => t.elems.iter().map(|x| self.expr(x)).collect(),
            syn::Expr::Paren(p) => self.index_list(&p.expr),
            other => vec![self.expr(other)],
        }
    }
}

/// Whether `t[k] = v` may store into a local array (capture analysis decides whether `t`
/// is local) and needs `v`'s type for its temporary: `v` has no slot of its own.
fn is_local_index(place: &Place, value: &Expr) -> bool {
    matches!(place, Place::Index { index, .. } if index.len() == 1) && value.slot.is_none()
}

/// The name `e` is, if it is a plain name.
pub(super) fn path_ident(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
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
            rev: false,
            span,
        }),
        syn::Expr::Paren(p) => range_of_for(&p.expr),
        syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            let mut r = range_of_for(&m.receiver)?;
            if r.rev || r.step.is_some() {
                return None;
            }
            r.step = m.args.first().cloned();
            Some(r)
        }
        syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
            let mut r = range_of_for(&m.receiver)?;
            if r.rev {
                return None;
            }
            r.rev = true;
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

/// Whether `e` is the literal 0 (or `-0`).
fn is_zero(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, .. }) => text.parse::<u128>() == Ok(0),
        ExprKind::Unary {
            op: UnOp::Neg,
            expr,
        }
        | ExprKind::Paren(expr) => is_zero(expr),
        _ => false,
    }
}

/// Whether a written type's OpenCL C name comes from rustc, through a slot: a user type (a
/// `#[nustruct]`) or a fixed-size array, not a scalar.
pub fn is_named_type(t: &syn::Type) -> bool {
    match t {
        syn::Type::Path(p) => {
            // The standard owning types are never `#[nustruct]`s: refused by name here.
            const HOST: &[&str] = &["Vec", "String", "Box", "Rc", "Arc", "Option", "HashMap"];
            let last = p.path.segments.last().map(|s| s.ident.to_string());
            p.qself.is_none()
                && last
                    .is_some_and(|n| Scalar::from_rust(&n).is_none() && !HOST.contains(&n.as_str()))
        }
        syn::Type::Paren(p) => is_named_type(&p.elem),
        // A private array of any kernel value type.
        syn::Type::Array(a) => match &*a.elem {
            syn::Type::Path(p)
                if p.path
                    .get_ident()
                    .is_some_and(|i| Scalar::from_rust(&i.to_string()).is_some()) =>
            {
                true
            }
            elem => is_named_type(elem),
        },
        _ => false,
    }
}
