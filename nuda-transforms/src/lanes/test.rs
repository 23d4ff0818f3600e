//! Tests of the lane classification.
