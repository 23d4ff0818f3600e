//! The fault record's layout, which every source-form backend shares (layer 1, `backend/c`):
//! a small buffer each generated kernel takes as its first parameter. The first faulting
//! work-item claims it with an atomic compare-and-swap and writes what happened.
//!
//! Words: `[0]` site number + 1 (0: no fault), `[1]` detail, `[2..8]` the index and
//! `[8..14]` the dims, each as three (low, high) halves of a 64-bit value.

use crate::fault::{Record, Site};

/// Words in a record.
pub(crate) const RECORD_WORDS: usize = 16;

/// The record in `words`, if its site number names one of `sites`.
pub(crate) fn decode(words: &[u32; RECORD_WORDS], sites: &[&'static Site]) -> Option<Record> {
    let site = sites.get(words[0].checked_sub(1)? as usize)?;
    let wide = |k: usize| u64::from(words[k]) | (u64::from(words[k + 1]) << 32);
    Some(Record {
        site,
        detail: words[1],
        index: [wide(2), wide(4), wide(6)],
        dims: [wide(8), wide(10), wide(12)],
    })
}
