//! Tests of capture analysis.
