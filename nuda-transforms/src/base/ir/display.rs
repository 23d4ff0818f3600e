//! Printing the IR as Rust-like text, for snapshot tests and for debugging the annotations.

use super::*;
use std::fmt::{self, Display, Write};

struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line(&mut self, text: impl Display) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        let _ = writeln!(self.out, "{text}");
    }

    fn block(&mut self, b: &Block) {
        self.indent += 1;
        for s in &b.stmts {
            self.stmt(s);
        }
        if let Some(t) = &b.tail {
            self.line(expr(t));
        }
        self.indent -= 1;
    }

    fn nest(&mut self, n: &Nest) {
        let vars: Vec<String> = n.loops.iter().map(|l| l.var.to_string()).collect();
        let ranges: Vec<String> = n.loops.iter().map(|l| range(&l.range)).collect();
        let annots: Vec<String> = n
            .annots
            .iter()
            .map(|a| format!("{}({})", a.kind.name(), list(&a.args)))
            .collect();
        let head = format!("nfor!(({}) in ({}) {{", vars.join(", "), ranges.join(", "));
        if annots.is_empty() {
            self.line(head);
        } else {
            self.line(format_args!("annot!({}; {head}", annots.join(", ")));
        }
        self.block(&n.body);
        self.line(if annots.is_empty() { "});" } else { "}));" });
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => {
                let ty =
                    l.ty.map(|t| format!(": {}", ty_name(t)))
                        .unwrap_or_default();
                let init = l
                    .init
                    .as_ref()
                    .map(|e| format!(" = {}", expr(e)))
                    .unwrap_or_default();
                self.line(format_args!("let {}{ty}{init};", pat(&l.pat)));
            }
            Stmt::Assign {
                place, op, value, ..
            } => {
                let op = op.map(|o| o.symbol()).unwrap_or("");
                self.line(format_args!("{} {op}= {};", place_text(place), expr(value)));
            }
            Stmt::Expr(e) => self.line(format_args!("{};", expr(e))),
            Stmt::While { cond, body, .. } => self.braced(format!("while {}", expr(cond)), body),
            Stmt::Loop { body, .. } => self.braced("loop".into(), body),
            Stmt::For {
                var,
                range: r,
                body,
                ..
            } => self.braced(format!("for {var} in {}", range(r)), body),
            Stmt::Nest(n) => self.nest(n),
            Stmt::Break(_) => self.line("break;"),
            Stmt::Continue(_) => self.line("continue;"),
            Stmt::Return(e, _) => match e {
                Some(e) => self.line(format_args!("return {};", expr(e))),
                None => self.line("return;"),
            },
        }
    }

    fn braced(&mut self, head: String, body: &Block) {
        self.line(format_args!("{head} {{"));
        self.block(body);
        self.line("}");
    }
}

fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::Scalar(s) => s.rust_name(),
        Ty::Slot(_) => "_",
    }
}

fn pat(p: &Pat) -> String {
    let one = |n: &Ident, m: bool| if m { format!("mut {n}") } else { n.to_string() };
    match p {
        Pat::Ident { name, mutable } => one(name, *mutable),
        Pat::Tuple(list) => {
            let parts: Vec<String> = list
                .iter()
                .map(|x| x.as_ref().map_or("_".into(), |(n, m)| one(n, *m)))
                .collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// `b.pos.x`, `m[i][j]`: a local and a path into it.
pub fn member_path(base: &syn::Ident, path: &[Step]) -> String {
    path.iter().fold(base.to_string(), |s, step| match step {
        Step::Field(f) => format!("{s}.{f}"),
        Step::Elem(e) => format!("{s}[{}]", expr(e)),
    })
}

fn place_text(p: &Place) -> String {
    match p {
        Place::Var(v) => v.to_string(),
        Place::Member { base, path } => member_path(base, path),
        Place::Index { base, index } => format!("{base}[{}]", index_text(index)),
    }
}

fn index_text(index: &[Expr]) -> String {
    let parts: Vec<String> = index.iter().map(expr).collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("({})", parts.join(", "))
    }
}

/// A range as `nfor!` writes it.
pub fn range(r: &Range) -> String {
    let op = if r.inclusive { "..=" } else { ".." };
    let base = format!("{}{op}{}", expr(&r.start), expr(&r.end));
    let stepped = match &r.step {
        Some(s) => format!("({base}).step_by({})", expr(s)),
        None => base,
    };
    if r.rev {
        format!("({stepped}).rev()")
    } else {
        stepped
    }
}

fn list(items: &[Expr]) -> String {
    items.iter().map(expr).collect::<Vec<_>>().join(", ")
}

/// An operand as Rust text, in parentheses where precedence needs them.
fn operand(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Binary { .. }
        | ExprKind::Cast { .. }
        | ExprKind::Unary { .. }
        | ExprKind::Offset { .. } => {
            format!("({})", expr(e))
        }
        _ => expr(e),
    }
}

/// An expression as Rust text.
pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Lit(Lit::Int { text, suffix }) | ExprKind::Lit(Lit::Float { text, suffix }) => {
            format!("{text}{}", suffix.map(|s| s.rust_name()).unwrap_or(""))
        }
        ExprKind::Lit(Lit::Bool(b)) => b.to_string(),
        ExprKind::Var(v) => v.to_string(),
        ExprKind::Unary { op, expr: x } => {
            format!("{}{}", if *op == UnOp::Neg { "-" } else { "!" }, operand(x))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("{} {} {}", operand(lhs), op.symbol(), operand(rhs))
        }
        ExprKind::Cast { expr: x, ty } => format!("{} as {}", operand(x), ty_name(*ty)),
        ExprKind::Index { base, index } => format!("{base}[{}]", index_text(index)),
        ExprKind::Call { func, args } => format!("{}({})", path_text(func), list(args)),
        ExprKind::Method {
            recv,
            method,
            args,
            path,
        } => method_text(recv, method, args, *path),
        ExprKind::Assoc { ty, name } => format!("{}::{name}", ty.rust_name()),
        ExprKind::If { cond, then, els } => {
            let els = els
                .as_ref()
                .map(|x| format!(" else {}", expr(x)))
                .unwrap_or_default();
            format!("if {} {{ {} }}{els}", expr(cond), one_line(then))
        }
        ExprKind::Block(b) => format!("{{ {} }}", one_line(b)),
        ExprKind::Paren(x) => format!("({})", expr(x)),
        ExprKind::Tuple(items) => format!("({})", list(items)),
        ExprKind::Array(items) => format!("[{}]", list(items)),
        ExprKind::Field { base, index } => format!("{}.{index}", expr(base)),
        ExprKind::Member { base, name } => format!("{}.{name}", expr(base)),
        ExprKind::Struct { path, fields, rest } => {
            let mut parts: Vec<String> = fields
                .iter()
                .map(|(n, v)| format!("{n}: {}", expr(v)))
                .collect();
            parts.extend(rest.iter().map(|r| format!("..{}", expr(r))));
            format!("{} {{ {} }}", path_text(path), parts.join(", "))
        }
        ExprKind::At { base, index } => format!("{}[{}]", operand(base), expr(index)),
        ExprKind::Repeat { value, len } => {
            format!("[{}; {}]", expr(value), quote::quote!(#len))
        }
        ExprKind::Trips(r, _) => format!("trips({})", range(r)),
        ExprKind::Offset { start, count, step } => match step {
            Some(s) => format!("{} + {} * {}", operand(start), operand(count), operand(s)),
            None => format!("{} + {}", operand(start), operand(count)),
        },
    }
}

/// `recv.m(args)`, or `T::m(recv, args)` when called through its type.
fn method_text(recv: &Expr, m: &syn::Ident, args: &[Expr], path: Option<Scalar>) -> String {
    match path {
        None => format!("{}.{m}({})", operand(recv), list(args)),
        Some(t) => {
            let all: Vec<String> = std::iter::once(expr(recv))
                .chain(args.iter().map(expr))
                .collect();
            format!("{}::{m}({})", t.rust_name(), all.join(", "))
        }
    }
}

/// A block's statements on one line.
fn one_line(b: &Block) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
    };
    p.block(b);
    p.out.trim().replace('\n', " ")
}

fn path_text(p: &syn::Path) -> String {
    p.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

impl Display for Nest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer {
            out: String::new(),
            indent: 0,
        };
        p.nest(self);
        f.write_str(&p.out)
    }
}

impl Display for Block {
    /// The statements and tail, not indented.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer {
            out: String::new(),
            indent: 0,
        };
        for s in &self.stmts {
            p.stmt(s);
        }
        if let Some(t) = &self.tail {
            p.line(expr(t));
        }
        f.write_str(&p.out)
    }
}
