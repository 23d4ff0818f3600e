//! Rewriting annotated loops over `usize` counters: `for i in a..b` (any step, any integer
//! type, inclusive or not) becomes `for i_t in 0..trips` with every use of `i` replaced by
//! `a + i_t * step`. Every transformation then works on plain counters from 0, and stays exact
//! for any bounds, steps and types: no value is ever computed past the end of its range.

use super::build::Gen;
use super::rename::Rewrite;
use crate::base::ir::visit::VisitMut;
use crate::base::ir::*;
use std::collections::HashMap;
use syn::Ident;

/// One annotated loop, as a counter.
#[derive(Clone)]
pub struct Dim {
    /// The counter.
    pub counter: Ident,
    /// Its trip count.
    pub trips: Expr,
    /// The original loop variable, for naming.
    pub like: Ident,
}

/// A nest whose first loops are counters.
#[derive(Clone)]
pub struct Normal {
    /// The annotated loops, outermost first.
    pub dims: Vec<Dim>,
    /// The loops inside them, untouched.
    pub inner: Vec<Loop>,
    /// The body, with the annotated variables replaced by counter values.
    pub body: Block,
    /// Where the nest was written.
    pub span: proc_macro2::Span,
}

/// Rewrites the first `k` loops of `nest` over counters. The body starts by binding each
/// loop variable to its counter's value, so a name the body declares later cannot change
/// what the value reads; the inner loops' ranges get the value itself.
pub fn normalize(g: &mut Gen<'_>, nest: Nest, k: usize) -> Normal {
    let mut loops = nest.loops;
    let inner = loops.split_off(k);
    check_independent(g, &loops);
    let mut subst = HashMap::new();
    let mut binds = Vec::new();
    let mut dims = Vec::new();
    for l in &loops {
        let counter = g.fresh(&format!("{}_t", l.var), &l.var);
        let range = evaluated_once(g, l);
        let value = g.offset(&range, g.var(&counter), l.slot);
        binds.push(g.bind(&l.var, value.clone(), l.slot));
        subst.insert(l.var.to_string(), value);
        dims.push(Dim {
            counter,
            trips: g.trips(&range, l.slot),
            like: l.var.clone(),
        });
    }
    check_unshadowed(g, &inner, &subst);
    let (inner, _) = substitute(inner, Block::default(), subst);
    let mut body = nest.body;
    binds.append(&mut body.stmts);
    body.stmts = binds;
    Normal {
        dims,
        inner,
        body,
        span: nest.span,
    }
}

/// The loop's range with each part the body may change bound once before the nest.
fn evaluated_once(g: &mut Gen<'_>, l: &Loop) -> Range {
    let mut r = l.range.clone();
    let stem = |part: &str| format!("{}_{part}", l.var);
    r.start = g.hoist(r.start, Some(l.slot), &stem("start"), &l.var);
    r.end = g.hoist(r.end, Some(l.slot), &stem("end"), &l.var);
    r.step = r.step.map(|s| g.hoist(s, None, &stem("step"), &l.var));
    r
}

/// An inner loop whose variable hides a name an annotated loop's value reads would change
/// that value in the body (the value is computed inside the inner loops).
fn check_unshadowed(g: &Gen<'_>, inner: &[Loop], subst: &HashMap<String, Expr>) {
    let mut used = std::collections::HashSet::new();
    subst
        .values()
        .for_each(|e| crate::base::ir::staging::mentions(e, &mut used));
    for l in inner.iter().filter(|l| used.contains(&l.var.to_string())) {
        let msg = format!("annot!: the loop variable `{}` hides the `{}` an annotated loop's range reads, which the annotation uses inside this loop; rename it", l.var, l.var);
        g.cx.error(l.var.span(), msg);
    }
}

/// Applies `subst` to the inner loops' ranges and the body, in their scopes.
pub fn substitute(
    mut inner: Vec<Loop>,
    mut body: Block,
    subst: HashMap<String, Expr>,
) -> (Vec<Loop>, Block) {
    let mut n = super::build::nest(
        std::mem::take(&mut inner),
        std::mem::take(&mut body),
        proc_macro2::Span::call_site(),
    );
    Rewrite::new(subst, None).visit_nest(&mut n);
    (n.loops, n.body)
}

/// The annotated loops may not depend on each other: the transformations reorder them.
fn check_independent(g: &Gen<'_>, loops: &[Loop]) {
    let names: Vec<String> = loops.iter().map(|l| l.var.to_string()).collect();
    for l in loops {
        let mut found = Vec::new();
        super::collect_vars(&l.range, &mut found);
        if let Some(v) = found.iter().find(|v| names.contains(&v.to_string())) {
            g.cx.error(v.span(), format!("annot!: the range of `{}` uses `{v}`, another annotated loop; annotated loops must be independent of each other", l.var));
        }
    }
}

impl Normal {
    /// The whole nest again: `loops` for the annotated dims, then the inner loops and body.
    pub fn rebuild(&self, loops: Vec<Loop>) -> Nest {
        let mut all = loops;
        all.extend(self.inner.iter().cloned());
        super::build::nest(all, self.body.clone(), self.span)
    }

    /// Remainder nests of a split at `main[d]` per dim: for each dim `d`, the points whose
    /// first counter past its main part is `d`'s. Together with the main part (every counter
    /// below `main`) they cover each point exactly once.
    pub fn remainders(&self, g: &mut Gen<'_>, main: &[Expr]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for d in 0..self.dims.len() {
            let loops = self
                .dims
                .iter()
                .enumerate()
                .map(|(e, dim)| {
                    let zero = g.usize_lit(0, self.span);
                    let (from, to) = match e.cmp(&d) {
                        std::cmp::Ordering::Less => (zero, main[e].clone()),
                        std::cmp::Ordering::Equal => (main[e].clone(), dim.trips.clone()),
                        std::cmp::Ordering::Greater => (zero, dim.trips.clone()),
                    };
                    g.counter(dim.counter.clone(), from, to, None)
                })
                .collect();
            out.push(Stmt::Nest(Box::new(self.rebuild(loops))));
        }
        out
    }

    /// A copy with counters replaced by expressions (`i_t` becomes `i_tile + i_e`).
    pub fn with_counters(&self, subst: HashMap<String, Expr>) -> Normal {
        let (inner, body) = substitute(self.inner.clone(), self.body.clone(), subst);
        Normal {
            dims: self.dims.clone(),
            inner,
            body,
            span: self.span,
        }
    }

    /// `trips / u * u` per dim: the extent the main part covers.
    pub fn main_extents(&self, g: &mut Gen<'_>, factors: &[Expr]) -> Vec<Expr> {
        self.dims
            .iter()
            .zip(factors)
            .map(|(d, u)| {
                let q = g.bin(BinOp::Div, d.trips.clone(), u.clone());
                g.bin(BinOp::Mul, q, u.clone())
            })
            .collect()
    }
}
