//! What the model-problem examples share, included by each as one module
//! (`#[path = "../common/mod.rs"] mod common;`): the command line, the variant table, the
//! report, pictures and device splits. An example uses what it needs; `dead_code` is allowed
//! for the rest.

#![allow(dead_code)]

pub mod cli;
pub mod picture;
pub mod problem;
pub mod report;
pub mod split;

impl cli::Common {
    /// Runs, checks and reports the variants the command line asks for, as
    /// `report::run_all` does; `Ok(false)` when one gives a wrong result.
    pub fn run_all<S>(
        &self,
        state: &mut S,
        variants: &[problem::Variant<S>],
        work: &report::Work,
        check: &problem::Check<S>,
    ) -> nuda::Result<bool> {
        report::run_all(state, variants, work, self.reps, |v| self.wants(v), check)
    }
}
