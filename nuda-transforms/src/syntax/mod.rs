//! From macro input to IR: `nfor!` headers, kernel bodies, and the argument lists of
//! `nuwork!`, `nucall!`, `#[nukernel]` and `#[nucode]`.

pub mod annot;
pub mod body;
mod expr;
pub mod nfor;
#[cfg(test)]
mod test;

pub use body::Lower;
