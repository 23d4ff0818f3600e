//! Merged image reads (emitters layer: the C text of OpenCL and CUDA): a work-item reads each
//! texel of a read-only image once.
//!
//! `dmine` jams copies of a stencil's body, and neighbouring copies read the same texels: a
//! 3x3 filter over a block of 8 by 4 texels names 288 reads of 60 texels. Whether a device
//! compiler merges them across the hundreds of instructions of a jammed block is its choice
//! (PoCL's merged the generated block's, but a hand kernel making a read per copy ran at 0.75x
//! one reading each texel once), so the emitter does: the reads of one image at the same
//! coordinates are made once, just before the body's statement that holds the first of them,
//! and every occurrence names that value.
//!
//! Sound because the kernel cannot change a read-only image during the launch and the sampler
//! clamps, so a read has no effect and cannot fault: made once and earlier, it gives every
//! occurrence the value that occurrence would have read.
//!
//! Two coordinates are the same when their affine forms modulo 2^32 are equal. A coordinate
//! is an `i32`, so every name and operation in its sum, difference or product with a constant
//! is 32-bit or wider (Rust has no mixed arithmetic; an `Offset`'s count is a `usize`), and
//! modulo 2^32 those operations and any wrapping are exact. A cast could hide a narrower type
//! and is not followed. Only names with one value in the whole work-item count as atoms: the
//! mapped loop variables and captures, which the body never binds, and the body's top-level
//! immutable `let`s of names bound once, after their statement. Only reads every run of the
//! body makes are merged: none in an `if` branch, a loop or the right of `&&` and `||`.

use super::ClEmitter;
use crate::base::ir::*;
use crate::emit::template::Ph;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A read made once: its first occurrence, emitted as the value just before the body's
/// statement `at` that holds it (`at` is the statement count for the tail), and every
/// occurrence's key.
pub(super) struct Group<'b> {
    pub first: &'b Expr,
    pub at: usize,
    pub keys: Vec<usize>,
}

/// The key of a read: the address of its argument list, the same when the emitter reaches it.
pub(super) fn key(args: &[Expr]) -> usize {
    args.as_ptr() as usize
}

/// The reads of `body` to merge, in the order of their first occurrences; `image` says
/// whether a name is a read-only image capture.
pub(super) fn plan<'b>(body: &'b Block, image: &dyn Fn(&syn::Ident) -> bool) -> Vec<Group<'b>> {
    let mut names = Names::default();
    names.block(body);
    let lets = top_lets(body, &names);
    let mut walk = Walk {
        forms: Forms { names, lets },
        image,
        at: 0,
        found: BTreeMap::new(),
        order: Vec::new(),
    };
    for (i, s) in body.stmts.iter().enumerate() {
        walk.at = i;
        walk.stmt(s);
    }
    walk.at = body.stmts.len();
    body.tail.iter().for_each(|t| walk.expr(t));
    let order = std::mem::take(&mut walk.order);
    let groups = order.iter().filter_map(|k| walk.found.remove(k));
    groups.filter(|g| g.keys.len() > 1).collect()
}

/// The body's top-level immutable `let`s of names bound once: each name's statement and value.
fn top_lets<'b>(body: &'b Block, names: &Names) -> HashMap<String, (usize, &'b Expr)> {
    let mut lets = HashMap::new();
    for (i, s) in body.stmts.iter().enumerate() {
        if let Stmt::Let(Let {
            pat: Pat::Ident {
                name,
                mutable: false,
            },
            init: Some(init),
            ..
        }) = s
        {
            let n = name.to_string();
            if names.fixed(&n, 1) {
                lets.insert(n, (i, init));
            }
        }
    }
    lets
}

/// How often each name is bound in the body, and which names it assigns.
#[derive(Default)]
struct Names {
    bound: HashMap<String, usize>,
    assigned: HashSet<String>,
}

impl Names {
    /// Whether name `n` is bound exactly `times` times in the body and never assigned.
    fn fixed(&self, n: &str, times: usize) -> bool {
        self.bound.get(n).copied().unwrap_or(0) == times && !self.assigned.contains(n)
    }

    fn bind(&mut self, n: &syn::Ident) {
        *self.bound.entry(n.to_string()).or_default() += 1;
    }

    fn block(&mut self, b: &Block) {
        b.stmts.iter().for_each(|s| self.stmt(s));
        if let Some(t) = &b.tail {
            self.expr(t);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(l) => {
                match &l.pat {
                    Pat::Ident { name, .. } => self.bind(name),
                    Pat::Tuple(items) => items.iter().flatten().for_each(|(n, _)| self.bind(n)),
                }
                l.init.iter().for_each(|e| self.expr(e));
            }
            Stmt::Assign { place, value, .. } => {
                if let Place::Var(n) = place {
                    self.assigned.insert(n.to_string());
                }
                self.expr(value);
            }
            Stmt::Expr(e) | Stmt::Return(Some(e), _) => self.expr(e),
            Stmt::While { cond, body, .. } => {
                self.expr(cond);
                self.block(body);
            }
            Stmt::Loop { body, .. } => self.block(body),
            Stmt::For { var, body, .. } => {
                self.bind(var);
                self.block(body);
            }
            Stmt::Nest(n) => {
                n.loops.iter().for_each(|l| self.bind(&l.var));
                self.block(&n.body);
            }
            Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(None, _) => {}
        }
    }

    /// Blocks inside expressions bind names too.
    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::If { cond, then, els } => {
                self.expr(cond);
                self.block(then);
                els.iter().for_each(|x| self.expr(x));
            }
            ExprKind::Block(b) => self.block(b),
            _ => e.operands().into_iter().for_each(|x| self.expr(x)),
        }
    }
}

/// A coordinate modulo 2^32: a coefficient per atom, and a constant.
type Form = (BTreeMap<String, u32>, u32);

/// Affine forms over the work-item's fixed names, as seen from the body's statement `at`.
struct Forms<'b> {
    names: Names,
    lets: HashMap<String, (usize, &'b Expr)>,
}

impl Forms<'_> {
    fn form(&self, e: &Expr, at: usize) -> Option<Form> {
        match &e.kind {
            ExprKind::Lit(Lit::Int { text, suffix }) => {
                let narrow = suffix.is_some_and(|s| s.bits() < 32);
                let v = text.parse::<u128>().ok().filter(|_| !narrow)?;
                Some((BTreeMap::new(), v as u32))
            }
            ExprKind::Var(n) => self.var(&n.to_string(), at),
            ExprKind::Paren(x) => self.form(x, at),
            ExprKind::Unary {
                op: UnOp::Neg,
                expr,
            } => Some(scale(self.form(expr, at)?, u32::MAX)),
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.form(lhs, at)?, self.form(rhs, at)?);
                binary(*op, a, b)
            }
            ExprKind::Offset { start, count, step } => {
                let step = match step {
                    Some(s) => self.form(s, at)?,
                    None => (BTreeMap::new(), 1),
                };
                let (start, count) = (self.form(start, at)?, self.form(count, at)?);
                Some(add(start, product(count, step)?))
            }
            _ => None,
        }
    }

    /// A top-level `let` before statement `at` stands for its value (or, without a form,
    /// for itself); a name the body never binds is an atom. A name bound once, used before
    /// its `let`, is the outer one it shadows, and has no form.
    fn var(&self, n: &str, at: usize) -> Option<Form> {
        if let Some(&(i, init)) = self.lets.get(n).filter(|l| l.0 < at) {
            return self.form(init, i).or_else(|| Some(atom(n)));
        }
        self.names.fixed(n, 0).then(|| atom(n))
    }
}

fn binary(op: BinOp, a: Form, b: Form) -> Option<Form> {
    match op {
        BinOp::Add => Some(add(a, b)),
        BinOp::Sub => Some(add(a, scale(b, u32::MAX))),
        BinOp::Mul => product(a, b),
        _ => None,
    }
}

fn atom(n: &str) -> Form {
    (BTreeMap::from([(n.to_string(), 1)]), 0)
}

fn add(mut a: Form, b: Form) -> Form {
    for (n, c) in b.0 {
        let e = a.0.entry(n).or_default();
        *e = e.wrapping_add(c);
    }
    a.0.retain(|_, c| *c != 0);
    (a.0, a.1.wrapping_add(b.1))
}

fn scale(a: Form, k: u32) -> Form {
    let mut terms: BTreeMap<String, u32> =
        a.0.into_iter()
            .map(|(n, c)| (n, c.wrapping_mul(k)))
            .collect();
    terms.retain(|_, c| *c != 0);
    (terms, a.1.wrapping_mul(k))
}

/// A product is affine when one side is a constant.
fn product(a: Form, b: Form) -> Option<Form> {
    match (a.0.is_empty(), b.0.is_empty()) {
        (true, _) => Some(scale(b, a.1)),
        (_, true) => Some(scale(a, b.1)),
        _ => None,
    }
}

/// The reads every run of the body makes, grouped by image and coordinates.
struct Walk<'b, 'f> {
    forms: Forms<'b>,
    image: &'f dyn Fn(&syn::Ident) -> bool,
    /// The body's statement being walked.
    at: usize,
    found: BTreeMap<(String, Form, Form), Group<'b>>,
    order: Vec<(String, Form, Form)>,
}

impl<'b> Walk<'b, '_> {
    fn stmt(&mut self, s: &'b Stmt) {
        match s {
            Stmt::Let(Let { init: Some(e), .. }) | Stmt::Expr(e) | Stmt::Return(Some(e), _) => {
                self.expr(e)
            }
            Stmt::Assign { value, .. } => self.expr(value),
            // A loop's body may not run, or runs with other values each time.
            _ => {}
        }
    }

    fn expr(&mut self, e: &'b Expr) {
        match &e.kind {
            ExprKind::Block(b) => {
                b.stmts.iter().for_each(|s| self.stmt(s));
                b.tail.iter().for_each(|t| self.expr(t));
            }
            // A branch may not run.
            ExprKind::If { cond, .. } => self.expr(cond),
            ExprKind::Binary {
                op: BinOp::And | BinOp::Or,
                lhs,
                ..
            } => self.expr(lhs),
            ExprKind::Method {
                recv, method, args, ..
            } => {
                args.iter().for_each(|a| self.expr(a));
                self.read(e, recv, method, args);
            }
            _ => e.operands().into_iter().for_each(|x| self.expr(x)),
        }
    }

    /// Records `recv.read(x, y)` on a read-only image at coordinates with affine forms.
    fn read(&mut self, e: &'b Expr, recv: &Expr, method: &syn::Ident, args: &'b [Expr]) {
        let ExprKind::Var(img) = &recv.kind else {
            return;
        };
        if method != "read" || args.len() != 2 || !(self.image)(img) {
            return;
        }
        if !self.forms.names.fixed(&img.to_string(), 0) {
            return;
        }
        let (x, y) = (
            self.forms.form(&args[0], self.at),
            self.forms.form(&args[1], self.at),
        );
        let (Some(x), Some(y)) = (x, y) else { return };
        let k = (img.to_string(), x, y);
        if !self.found.contains_key(&k) {
            self.order.push(k.clone());
        }
        let g = self.found.entry(k).or_insert(Group {
            first: e,
            at: self.at,
            keys: Vec::new(),
        });
        g.keys.push(key(args));
    }
}

impl ClEmitter<'_> {
    /// A work-item's body with its repeated image reads merged (see the module doc).
    pub(super) fn merged_body(&mut self, b: &Block) {
        let env = &self.env;
        let image = |n: &syn::Ident| env.capture_fill(n).is_some() && !env.written(n);
        let groups = plan(b, &image);
        for (i, s) in b.stmts.iter().enumerate() {
            self.at_stmt(i);
            self.merge_reads(groups.iter().filter(|g| g.at == i));
            self.stmt(s);
            if let Stmt::Let(l) = s {
                self.fuse_sincos(l, &b.stmts[i + 1..], b.tail.as_deref());
            }
        }
        self.at_stmt(b.stmts.len());
        self.merge_reads(groups.iter().filter(|g| g.at == b.stmts.len()));
        if let Some(t) = &b.tail {
            self.expr_stmt(t);
        }
    }

    /// Each group's read, made once into a texel variable its occurrences then name.
    fn merge_reads<'g>(&mut self, groups: impl Iterator<Item = &'g Group<'g>>) {
        for g in groups {
            let ExprKind::Method { recv, .. } = &g.first.kind else {
                continue;
            };
            let ExprKind::Var(img) = &recv.kind else {
                continue;
            };
            let ch = Ph::channels(self.env.capture_fill(img).unwrap_or_default());
            let value = self.expr(g.first);
            let c = self.names.fresh("nu_rd");
            self.line(format!("nu_texel_t{ch} {c} = {value};"));
            self.merged.extend(g.keys.iter().map(|&k| (k, c.clone())));
        }
    }

    /// The merged value that read `args` names, if it was merged.
    pub(super) fn merged_read(&self, args: &[Expr]) -> Option<String> {
        self.merged.get(&key(args)).cloned()
    }
}
