//! The barrier split (layer: checks over the IR, read by the native emitter): a `#[nukernel]`
//! body that calls `barrier()` becomes a plan of work-item loops between its barriers, as PoCL
//! builds its work-item loops, so the native engine runs a group as plain loops on one thread
//! instead of a coroutine per work-item. See `README.md` beside this file.
//!
//! The plan is a tree of segments. A chunk is straight code between barriers: a group runs it
//! either once per work-item, in a loop over its work-items, or, when it only sets uniform
//! variables (`pure`), once for the group. An `if`, `while`, `loop` or `for` that holds a
//! barrier is split too (loop fission): the group decides its condition, which `uniform`
//! proved the same in every work-item, and runs its body's segments in turn. Variables that
//! live from one work-item loop to a later one are kept per work-item (`Var::Slot`),
//! recomputed (`Var::Remat`), or held once by the group (`Var::Group`).
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

mod narrow;
mod pure;
mod scan;
#[cfg(test)]
mod test;
mod vars;

pub use scan::{is_barrier_fn, Scan};

use crate::base::ir::*;
use crate::checks::capture::Analysis;
use crate::checks::uniform::Facts;
use proc_macro2::Ident;

/// A split body.
#[derive(Debug)]
pub struct Plan {
    /// The body's segments.
    pub segs: Vec<Seg>,
    /// The variables that live from one piece to another: name, class, and the binding's
    /// number, which names its `Slots` (two bindings may share a name).
    pub vars: Vec<(Ident, Var, usize)>,
    /// Whether a work-item loop may `return`: later loops skip the work-items that did.
    pub returns: bool,
}

/// How a variable that lives across pieces is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Var {
    /// Set only by group chunks: one group-level variable.
    Group,
    /// Immutable and recomputable: each piece that uses it evaluates its `let` again.
    Remat,
    /// Anything else: one value per work-item, saved and restored around each loop.
    Slot,
}

/// A piece of the plan. (Variant fields are named for what they hold.)
#[derive(Debug)]
#[allow(missing_docs)]
pub enum Seg {
    /// Straight code between barriers.
    Chunk(Chunk),
    /// An `if` holding a barrier.
    If {
        cond: Expr,
        head: Head,
        then: Vec<Seg>,
        els: Vec<Seg>,
    },
    /// A `while` holding a barrier.
    While {
        cond: Expr,
        head: Head,
        body: Vec<Seg>,
    },
    /// A `loop` holding a barrier.
    Loop { body: Vec<Seg> },
    /// A block holding a barrier: its own scope.
    Block { body: Vec<Seg> },
    /// A `for` holding a barrier: its variable is the group's.
    For {
        var: Ident,
        range: Box<Range>,
        head: Head,
        body: Vec<Seg>,
    },
}

/// Straight code between barriers.
#[derive(Debug)]
pub struct Chunk {
    /// Its statements.
    pub stmts: Vec<Stmt>,
    /// Whether the group runs it once (it only sets uniform variables) rather than per item.
    pub group: bool,
    /// The barrier-free run it comes from: chunks of one run may join, others are apart.
    pub run: usize,
    /// What the piece needs from earlier pieces.
    pub uses: Uses,
    /// A per-item chunk that is one `if local_id(0) < bound { .. }` (or `<=`, `==`): the
    /// comparison (0: `<`, 1: `<=`, 2: `==`) and the bound, which the group evaluates once
    /// to walk only the work-items whose condition can hold (`narrow`).
    pub guard: Option<(u8, Expr)>,
}

/// Where a condition or range is evaluated, and what it needs.
#[derive(Debug)]
pub struct Head {
    /// Once by the group (its inputs are the group's), or by every work-item, which must agree.
    pub group: bool,
    /// What it needs from earlier pieces.
    pub uses: Uses,
}

/// What a piece needs from the pieces before it.
#[derive(Debug, Default, Clone)]
pub struct Uses {
    /// `let`s to evaluate again first (`Var::Remat`), in the order they were written.
    pub remat: Vec<Let>,
    /// Per-item variables to restore: the name, whether the piece assigns it, and the
    /// binding's number.
    pub restore: Vec<(Ident, bool, usize)>,
    /// Per-item variables to save at its end (assigned here, or declared here and used
    /// later): the name and the binding's number.
    pub save: Vec<(Ident, usize)>,
}

/// Why a body cannot be split: the shape, as the design README names it.
pub type Why = &'static str;

/// The plan for a barrier kernel's body, or why it keeps the coroutine form.
pub fn plan(analysis: &Analysis, body: &Block) -> Result<Plan, Why> {
    let facts = Facts::of(analysis, body);
    let splitter = Splitter {
        facts: &facts,
        runs: std::cell::Cell::new(0),
    };
    let mut segs = splitter.block(body)?;
    // Demoted group chunks may sit beside per-item ones: one loop does for both.
    let mut vars = vars::settle(&mut segs, body)?;
    while merge(&mut segs) {
        vars = vars::settle(&mut segs, body)?;
    }
    narrow::segs(&mut segs, &vars, &facts);
    let returns = any_chunk(&segs, &|c| !c.group && Scan::stmts(&c.stmts).returns);
    if any_chunk(&segs, &|c| !c.group && Scan::stmts(&c.stmts).exits) {
        return Err("a `break` or `continue` of a loop that holds a barrier, in code that runs per work-item");
    }
    Ok(Plan {
        segs,
        vars,
        returns,
    })
}

/// Joins adjacent per-item chunks, in `segs` and the segments inside; whether any joined.
fn merge(segs: &mut Vec<Seg>) -> bool {
    let mut joined = false;
    for s in segs.iter_mut() {
        joined |= match s {
            Seg::Chunk(_) => false,
            Seg::If { then, els, .. } => merge(then) | merge(els),
            Seg::While { body, .. }
            | Seg::Loop { body }
            | Seg::Block { body }
            | Seg::For { body, .. } => merge(body),
        };
    }
    let mut out: Vec<Seg> = Vec::with_capacity(segs.len());
    for s in segs.drain(..) {
        match (out.last_mut(), s) {
            (Some(Seg::Chunk(a)), Seg::Chunk(b)) if !a.group && !b.group && a.run == b.run => {
                a.stmts.extend(b.stmts);
                joined = true;
            }
            (_, s) => out.push(s),
        }
    }
    *segs = out;
    joined
}

/// Whether some chunk of `segs` satisfies `p`.
fn any_chunk(segs: &[Seg], p: &dyn Fn(&Chunk) -> bool) -> bool {
    segs.iter().any(|s| match s {
        Seg::Chunk(c) => p(c),
        Seg::If { then, els, .. } => any_chunk(then, p) || any_chunk(els, p),
        Seg::While { body, .. }
        | Seg::Loop { body }
        | Seg::Block { body }
        | Seg::For { body, .. } => any_chunk(body, p),
    })
}

struct Splitter<'a> {
    facts: &'a Facts<'a>,
    runs: std::cell::Cell<usize>,
}

impl Splitter<'_> {
    fn block(&self, b: &Block) -> Result<Vec<Seg>, Why> {
        let tail = b.tail.iter().map(|t| Stmt::Expr((**t).clone()));
        let (mut segs, mut run) = (Vec::new(), Vec::new());
        for s in b.stmts.iter().cloned().chain(tail) {
            if is_barrier(&s) {
                self.flush(&mut segs, &mut run);
            } else if !Scan::stmts(std::slice::from_ref(&s)).barrier {
                run.push(s);
            } else {
                self.flush(&mut segs, &mut run);
                segs.extend(self.construct(s)?);
            }
        }
        self.flush(&mut segs, &mut run);
        Ok(segs)
    }

    /// A statement that holds a barrier: its segments.
    fn construct(&self, s: Stmt) -> Result<Vec<Seg>, Why> {
        let inside = "a `barrier()` inside an expression, a `let` or an `nfor!`";
        let clean = |e: &Expr| !Scan::expr_of(e).barrier;
        Ok(match s {
            Stmt::Expr(Expr {
                kind: ExprKind::If { cond, then, els },
                ..
            }) if clean(&cond) => vec![Seg::If {
                cond: *cond,
                head: Head::new(),
                then: self.block(&then)?,
                els: self.els(els)?,
            }],
            Stmt::Expr(Expr {
                kind: ExprKind::Block(b),
                ..
            }) => vec![Seg::Block {
                body: self.block(&b)?,
            }],
            Stmt::While { cond, body, .. } if clean(&cond) => vec![Seg::While {
                cond,
                head: Head::new(),
                body: self.block(&body)?,
            }],
            Stmt::Loop { body, .. } => vec![Seg::Loop {
                body: self.block(&body)?,
            }],
            Stmt::For {
                var, range, body, ..
            } if !Scan::range_of(&range).barrier => vec![Seg::For {
                var,
                range,
                head: Head::new(),
                body: self.block(&body)?,
            }],
            _ => return Err(inside),
        })
    }

    /// An `else`: a block or another `if`.
    fn els(&self, els: Option<Box<Expr>>) -> Result<Vec<Seg>, Why> {
        match els.map(|e| *e) {
            None => Ok(Vec::new()),
            Some(Expr {
                kind: ExprKind::Block(b),
                ..
            }) => self.block(&b),
            Some(e) => self.block(&Block {
                stmts: vec![Stmt::Expr(e)],
                tail: None,
            }),
        }
    }

    /// Ends a run of barrier-free statements: group-pure statements before the first and
    /// after the last per-item statement become group chunks, the rest one per-item chunk.
    fn flush(&self, segs: &mut Vec<Seg>, run: &mut Vec<Stmt>) {
        let run = std::mem::take(run);
        let group = |s: &Stmt| pure::group_stmt(s, self.facts);
        let first = run.iter().position(|s| !group(s)).unwrap_or(run.len());
        let last = run.iter().rposition(|s| !group(s)).map_or(first, |k| k + 1);
        let mut rest = run;
        let tail = rest.split_off(last.max(first));
        let middle = rest.split_off(first);
        let run = self.runs.replace(self.runs.get() + 1);
        for (stmts, group) in [(rest, true), (middle, false), (tail, true)] {
            if !stmts.is_empty() {
                segs.push(Seg::Chunk(Chunk {
                    stmts,
                    group,
                    run,
                    uses: Uses::default(),
                    guard: None,
                }));
            }
        }
    }
}

impl Head {
    fn new() -> Head {
        Head {
            group: true,
            uses: Uses::default(),
        }
    }
}

/// Whether `s` is a plain `barrier();`.
fn is_barrier(s: &Stmt) -> bool {
    matches!(s, Stmt::Expr(Expr { kind: ExprKind::Call { func, args }, .. }) if args.is_empty() && is_barrier_fn(func))
}
