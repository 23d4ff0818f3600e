//! Which reads of a `#[nukernel]`'s `nulocal!` arrays may be plain loads (a check on the IR;
//! the OpenCL C emitter asks it). A read of an element another work-item updates atomically
//! is an atomic load, since a plain read racing with an atomic is a data race in OpenCL C.
//! But a work-group's local memory is ordered at `barrier()`: between two barriers that every
//! work-item reaches, a read can only meet the atomics written between the same two. So a
//! read is plain where the stretch of the body it sits in holds no atomic on its array.
//!
//! The stretches are the body's top-level statements between top-level `barrier()` calls
//! (barriers are uniform in a `#[nukernel]`, `crate::checks::uniform`). A barrier nested in
//! a loop or `if` does not split a stretch: the whole stretch counts as one, which can only
//! keep more reads atomic. On PoCL an atomic load of local memory is a locked instruction;
//! a sub-histogram's merge reads each bin twice.
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

#[cfg(test)]
mod test;

use crate::base::ir::builtins::MethodKind;
use crate::base::ir::visit::shared::{walk_expr, Visit};
use crate::base::ir::*;
use crate::checks::barrier_split::is_barrier_fn;
use std::collections::HashSet;

/// The stretches of a kernel body between its top-level barriers, and the arrays each
/// updates atomically.
#[derive(Debug, Default, Clone)]
pub struct Phases {
    /// The stretch of top-level statement `k` (the tail's is the last).
    of_stmt: Vec<usize>,
    /// The arrays with an atomic in each stretch.
    atomics: Vec<HashSet<String>>,
}

impl Phases {
    /// The stretches of `body`.
    pub fn new(body: &Block) -> Phases {
        let mut p = Phases {
            of_stmt: Vec::with_capacity(body.stmts.len()),
            atomics: vec![HashSet::new()],
        };
        for s in &body.stmts {
            p.of_stmt.push(p.atomics.len() - 1);
            if is_barrier_stmt(s) {
                p.atomics.push(HashSet::new());
            } else {
                p.collect(|v| v.visit_stmt(s));
            }
        }
        if let Some(t) = &body.tail {
            p.collect(|v| v.visit_expr(t));
        }
        p
    }

    /// Adds the atomics `walk` finds to the last stretch.
    fn collect(&mut self, walk: impl FnOnce(&mut Atomics)) {
        let mut found = Atomics::default();
        walk(&mut found);
        if let Some(last) = self.atomics.last_mut() {
            last.extend(found.0);
        }
    }

    /// Whether no work-item updates `array` atomically in the stretch of top-level statement
    /// `k` (`k` past the statements: the tail's), so that its reads there may be plain.
    pub fn quiet(&self, k: usize, array: &str) -> bool {
        let p = self
            .of_stmt
            .get(k)
            .copied()
            .unwrap_or(self.atomics.len() - 1);
        !self.atomics[p].contains(array)
    }
}

/// Whether `s` is a call of `barrier()` on its own.
fn is_barrier_stmt(s: &Stmt) -> bool {
    matches!(s, Stmt::Expr(Expr { kind: ExprKind::Call { func, .. }, .. }) if is_barrier_fn(func))
}

/// The receivers of atomic methods in what it visits.
#[derive(Default)]
struct Atomics(HashSet<String>);

impl Visit for Atomics {
    fn visit_expr(&mut self, e: &Expr) {
        if let ExprKind::Method { recv, method, .. } = &e.kind {
            let atomic = MethodKind::of(&method.to_string()).is_some_and(|k| k.is_atomic());
            if let (true, ExprKind::Var(name)) = (atomic, &recv.kind) {
                self.0.insert(name.to_string());
            }
        }
        walk_expr(self, e);
    }
}
