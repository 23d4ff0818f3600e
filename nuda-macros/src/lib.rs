//! nuda's procedural macros. Each entry point parses its input, hands it to
//! `nuda-transforms`, and turns errors into `compile_error!` at the user's span.
