//! `permut(p1..pk)`: reorder the nest's outer loops; new position `d` runs the loop that was
//! at position `p_d`. `permut(2, 1)` swaps the two outermost loops.
//!
//! ```text
//! nfor!((i, j) in (m, n) { body })    permut(2, 1)    nfor!((j, i) in (n, m) { body })
//! ```
//! Main part: the permuted nest.

use super::build::Gen;
use super::Cont;
use crate::base::ir::*;

/// Reorders the outer loops of `n` by `order` (1-based, a permutation).
pub fn permut(g: &mut Gen<'_>, mut n: Nest, order: &[usize], cont: Cont<'_>) -> Vec<Stmt> {
    let names: Vec<String> = n.loops.iter().map(|l| l.var.to_string()).collect();
    for l in &n.loops[..order.len()] {
        let mut uses = Vec::new();
        super::collect_vars(&l.range, &mut uses);
        if let Some(v) = uses.iter().find(|v| names.contains(&v.to_string())) {
            g.cx.error(v.span(), format!("annot!: permut reorders loops, but the range of `{}` uses the loop variable `{v}`", l.var));
        }
    }
    let old: Vec<Loop> = n.loops.drain(..order.len()).collect();
    let mut loops: Vec<Loop> = order.iter().map(|&p| old[p - 1].clone()).collect();
    loops.append(&mut n.loops);
    n.loops = loops;
    cont(g, n)
}
