//! OpenCL C emission: kernel bodies become C text with placeholders (see `emit::template`).
//! One file per IR area: `stmt.rs` for statements and loops, `expr.rs` for expressions,
//! `names.rs` for C names, this file for whole kernels and functions.

mod expr;
mod names;
mod stmt;

pub use expr::{decimal, typed_literal};
pub use names::sanitize;

use crate::capture::{Analysis, Context};
use crate::ctxt::Ctxt;
use crate::emit::template::Ph;
use crate::ir::*;
use names::Names;

/// What the emitter needs to know about the body's surroundings.
pub struct Env<'a> {
    /// Capture analysis of the body.
    pub analysis: &'a Analysis,
    /// Fill index of the first capture: captures follow the type slots.
    pub capture_base: usize,
    /// Where the body sits.
    pub context: Context,
}

impl Env<'_> {
    /// The fill index of capture `name`, if it is one.
    pub fn capture_fill(&self, name: &syn::Ident) -> Option<usize> {
        self.analysis
            .captures
            .iter()
            .position(|c| c.name == *name)
            .map(|i| self.capture_base + i)
    }

    /// Whether capture `name` is written through.
    pub fn written(&self, name: &syn::Ident) -> bool {
        self.analysis.capture(name).is_some_and(|c| c.written)
    }
}

/// Emits C text into a buffer.
pub struct ClEmitter<'a> {
    cx: &'a Ctxt,
    env: Env<'a>,
    names: Names,
    out: String,
    indent: usize,
    /// Statements a value expression needs run before the statement that uses it.
    pre: Vec<String>,
    /// Loops entered inside the body.
    depth: usize,
    /// Whether the current expression may hoist statements (not in loop conditions).
    hoist_ok: bool,
}

impl<'a> ClEmitter<'a> {
    /// An emitter for a body in `env`; captured names are reserved as C parameter names.
    pub fn new(cx: &'a Ctxt, env: Env<'a>) -> Self {
        let mut names = Names::default();
        names.push();
        for c in &env.analysis.captures {
            names.reserve(&sanitize(&c.name.to_string()));
        }
        ClEmitter {
            cx,
            env,
            names,
            out: String::new(),
            indent: 1,
            pre: Vec::new(),
            depth: 0,
            hoist_ok: true,
        }
    }

    fn line(&mut self, text: impl AsRef<str>) {
        for p in std::mem::take(&mut self.pre) {
            self.raw_line(&p);
        }
        self.raw_line(text.as_ref());
    }

    fn raw_line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Runs `f` with output captured, and returns what it wrote.
    fn captured(&mut self, f: impl FnOnce(&mut Self)) -> String {
        let saved = std::mem::take(&mut self.out);
        f(self);
        std::mem::replace(&mut self.out, saved)
    }

    /// The C name of a variable: a local, or a captured parameter.
    fn var(&self, name: &syn::Ident) -> String {
        self.names
            .lookup(name)
            .unwrap_or_else(|| sanitize(&name.to_string()))
    }

    /// The `nuwork!` kernel: one work-item per iteration of the mapped loops.
    pub fn nuwork_kernel(mut self, name: &str, mapped: &[Loop], body: &Block) -> String {
        let mut params: Vec<String> = Vec::new();
        for (d, l) in mapped.iter().enumerate() {
            let t = Ph::ty(l.slot);
            params.extend([
                format!("{t} nu_s{d}"),
                format!("{t} nu_st{d}"),
                format!("nu_idx nu_n{d}"),
            ]);
        }
        params.extend(self.capture_params());
        let guard: Vec<String> = (0..mapped.len())
            .map(|d| format!("nu_g{d} >= nu_n{d}"))
            .collect();
        for (d, _) in mapped.iter().enumerate() {
            self.raw_line(&format!("nu_idx nu_g{d} = get_global_id({d});"));
        }
        self.raw_line(&format!("if ({}) return;", guard.join(" || ")));
        for (d, l) in mapped.iter().enumerate() {
            let c = self.names.declare(&l.var);
            let t = Ph::ty(l.slot);
            self.raw_line(&format!("{t} {c} = nu_s{d} + ({t})nu_g{d} * nu_st{d};"));
        }
        self.body(body);
        format!(
            "kernel void {name}({}) {{\n{}}}\n",
            params.join(", "),
            self.out
        )
    }

    /// A `#[nukernel]`: the parameters are the captures, in order.
    pub fn kernel(mut self, name: &str, body: &Block) -> String {
        let params = self.capture_params();
        self.body(body);
        format!(
            "kernel void {name}({}) {{\n{}}}\n",
            params.join(", "),
            self.out
        )
    }

    /// A `#[nucode]` function with scalar parameters and an optional return type.
    pub fn function(
        mut self,
        params: &[(syn::Ident, Ty)],
        ret: Option<Ty>,
        body: &Block,
    ) -> String {
        let decls: Vec<String> = params
            .iter()
            .map(|(n, t)| {
                let c = self.names.declare(n);
                format!("{} {c}", t.cl_name())
            })
            .collect();
        self.stmts(&body.stmts);
        if let Some(t) = &body.tail {
            let v = self.expr(t);
            match ret {
                Some(_) => self.line(format!("return {v};")),
                None => self.line(format!("{v};")),
            }
        }
        let ret = ret.map_or("void", Ty::cl_name);
        format!(
            "{ret} {}({}) {{\n{}}}\n",
            Ph::own_name(),
            decls.join(", "),
            self.out
        )
    }

    fn capture_params(&self) -> Vec<String> {
        let caps = &self.env.analysis.captures;
        caps.iter()
            .enumerate()
            .map(|(i, c)| Ph::param(self.env.capture_base + i, &sanitize(&c.name.to_string())))
            .collect()
    }
}
