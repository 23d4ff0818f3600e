//! Annotations: `annot!(chain; nfor!(..))`. The chain is parsed here; the transformations
//! arrive with the annotations issue.

use crate::ir::Nest;
use crate::syntax::Lower;
use syn::spanned::Spanned;

/// Lowers an `annot!( .. )` invocation found in a kernel body.
pub fn lower_annot(lower: &mut Lower<'_>, mac: &syn::Macro) -> Option<Nest> {
    lower.cx.error(mac.span(), "annot! is not available yet");
    None
}
