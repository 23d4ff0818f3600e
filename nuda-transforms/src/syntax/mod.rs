//! From macro input to IR: `nfor!` headers, kernel bodies, and the argument lists of
//! `nuwork!`, `nucall!`, `#[nukernel]` and `#[nucode]`.
//!
//! Stage 2 of the pipeline in `lib.rs` (syntax).

pub mod annot;
pub mod body;
mod expr;
pub mod local;
pub mod nfor;
#[cfg(test)]
mod test;
mod tuple;

pub use body::Lower;

/// Whether a name is written like a constant (`SCALE`, `N2`), as Rust's naming convention
/// has it.
pub fn looks_const(name: &syn::Ident) -> bool {
    let s = name.to_string();
    s.chars().any(|c| c.is_ascii_uppercase()) && !s.chars().any(|c| c.is_ascii_lowercase())
}
