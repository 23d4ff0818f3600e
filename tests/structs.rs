//! Issue 13's `#[nustruct]`: user structs as array elements and kernel values, with
//! OpenCL C's layout (padding included) on every engine. Each kernel runs on an OpenCL device
//! (PoCL in CI) and on the native engine and is compared with plain Rust.

mod common;

use common::{check, vec_of};
use nuda::prelude::*;

#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mixed {
    pub big: u64,
    pub x: f64,
    pub tag: u8,
}

#[test]
fn mixed_field_sizes_round_trip_bit_exactly() {
    assert_eq!(size_of::<Mixed>(), 24);
    let n = 257usize;
    let make = |i: usize| Mixed {
        big: (i as u64) << 40 | 0xdead_beef,
        x: f64::from_bits(0x7ff8_0000_0000_0001 ^ i as u64),
        tag: (i * 7) as u8,
    };
    let want: Vec<Mixed> = (0..n).map(make).collect();
    let bits = |v: &[Mixed]| -> Vec<(u64, u64, u8)> {
        v.iter().map(|m| (m.big, m.x.to_bits(), m.tag)).collect()
    };
    let want_bits = bits(&want);
    check(want_bits, || {
        let a = NuArray1::from_fn(n, make);
        let mut out = NuArray1::<Mixed>::new(n);
        nuwork!(64; nfor!(i in n { out[i] = a[i]; }))?;
        Ok(bits(&vec_of(&out)))
    });
}
