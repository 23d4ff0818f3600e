//! Arrays that must not be one array at run time (checks layer, `depend`). Two captured
//! names may be handles of one array (`let (p, q) = (a.as_shared(), a.as_shared())` copies a
//! `NuShared`), which the compile-time test cannot see: it checks each name on its own. So
//! for each pair of names whose accesses would race if they were one array, the launch checks
//! that they are not, and refuses to run otherwise.

use super::{accesses, conflicts, dependent};
use crate::base::ir::Nest;

/// The pairs of distinct arrays of `nest`, mapped on `mapped` loops, that would race if they
/// were the same array; each pair once, in name order.
pub fn alias_pairs(nest: &Nest, mapped: usize) -> Vec<(String, String)> {
    let (accesses, sys) = accesses(nest, mapped);
    let mut out: Vec<(String, String)> = Vec::new();
    for x in &accesses {
        for y in accesses.iter().filter(|y| x.array < y.array) {
            let pair = (x.array.clone(), y.array.clone());
            if !out.contains(&pair) && conflicts(x, y) && dependent(&sys, x, y) {
                out.push(pair);
            }
        }
    }
    out
}
