//! The launch's check that two captured names the compiler paired are not one array (layer
//! 6, see `macro_support/mod.rs`). The dependence test judges each name on its own; two copies of
//! one `NuShared` are one array under two names, which only the launch can see.

use crate::error::{Error, Result};

/// A pair of captures that would race as one array: their `shared_array` addresses (`None`
/// for anything but a `NuShared`) and their names.
pub type AliasPair = (Option<usize>, Option<usize>, &'static str, &'static str);

/// `Err(Error::Aliased)` for the first pair whose two names are one array; `at` is the macro
/// form and its place (`nuwork! at src/main.rs:12`).
pub fn distinct(at: &str, pairs: &[AliasPair]) -> Result<()> {
    for (a, b, first, second) in pairs {
        if a.is_some() && a == b {
            return Err(Error::Aliased {
                at: at.to_string(),
                first: first.to_string(),
                second: second.to_string(),
            });
        }
    }
    Ok(())
}
