//! `annot!` on the host: the annotated nest becomes plain Rust loops, transformed at compile
//! time. Bodies use the kernel subset here too, since the transformations rewrite them. An
//! entry point, as `nuwork` and `nukernel` are: it runs syntax, the annotations and the host
//! emitter in turn; `nudevs.rs` expands the one annotation that becomes a loop over devices,
//! and `nudist.rs` the one that splits a `nuwork!` over MPI ranks.
//!
//! Stage 7 of the pipeline in `lib.rs` (entry points).

mod nudevs;
mod nudist;
mod rows;

use crate::base::ctxt::Ctxt;
use crate::base::ir::Block;
use crate::checks::capture::{Analysis, Context};
use crate::emit::native::{Mode, RustEmitter};
use crate::syntax::annot::{attach, lower_nest_macro, AnnotInput};
use crate::syntax::Lower;
use proc_macro2::TokenStream;
use quote::quote;

/// Expands `annot!(chain; nfor!(..))` outside kernels.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: AnnotInput = syn::parse2(input)?;
    if nudevs::wanted(&input) {
        return nudevs::expand(&input);
    }
    if nudist::wanted(&input) {
        return nudist::expand(&input);
    }
    let cx = Ctxt::new();
    let mut lower = Lower::new(&cx);
    let nest = lower_nest_macro(&mut lower, &input.nest, "annot!");
    let nest = nest.map(|n| attach(&mut lower, &input, n));
    let stmts = nest
        .map(|n| crate::annot::apply(&cx, &mut lower.slots, n, true))
        .unwrap_or_default();
    let _ = lower;
    cx.check()?;
    let analysis = Analysis::default();
    let body = RustEmitter::new(&analysis, Context::Nucode, Mode::Host)
        .block_inner(&Block { stmts, tail: None });
    // The emitter parenthesises every subexpression, and the transformations leave expressions
    // such as `0 * 3`, all with the user's spans; without the allow the user's crate would see
    // rustc's and clippy's warnings about code the user never wrote.
    Ok(quote!({
        #[allow(unused_parens, clippy::all)]
        let () = { #body };
    }))
}
