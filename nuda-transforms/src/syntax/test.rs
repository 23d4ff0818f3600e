//! Tests of parsing and lowering.
