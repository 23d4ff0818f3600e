//! Property test: random arithmetic expressions over captured i32, u32 and f32 values, drawn
//! by `build.rs` (seed `NUDA_EXPR_SEED`), evaluated as kernels on OpenCL and on the native
//! engine, must agree with plain Rust: exactly for integers, within a tolerance for floats.

mod common;

use nuda::prelude::*;
use proptest::prelude::*;

type Values = (i32, i32, u32, u32, f32, f32);

struct Expression {
    text: &'static str,
    run: fn(Values) -> Result<(), String>,
}

trait Agree: Copy + std::fmt::Debug {
    fn agree(self, other: Self) -> bool;
}

impl Agree for i32 {
    fn agree(self, other: i32) -> bool {
        self == other
    }
}

impl Agree for u32 {
    fn agree(self, other: u32) -> bool {
        self == other
    }
}

impl Agree for f32 {
    fn agree(self, other: f32) -> bool {
        self == other
            || (self.is_nan() && other.is_nan())
            || (self - other).abs() <= 1e-4 * self.abs().max(1.0)
    }
}

/// Runs the device version on every engine and compares it with the host value.
fn compare<T: Agree>(host: T, device: impl Fn() -> nuda::Result<T>) -> Result<(), String> {
    for d in common::engines() {
        let got = nuda::with_device(d.index, &device)
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        if !got.agree(host) {
            return Err(format!("{}: got {got:?}, host {host:?}", d.name));
        }
    }
    Ok(())
}

include!(concat!(env!("OUT_DIR"), "/random_expressions.rs"));

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_expressions_agree_on_opencl_native_and_rust(
        a in any::<i32>(), b in any::<i32>(), c in any::<u32>(), d in any::<u32>(),
        x in -1.0e4f32..1.0e4, y in -1.0e4f32..1.0e4,
    ) {
        for (k, e) in EXPRESSIONS.iter().enumerate() {
            let r = (e.run)((a, b, c, d, x, y));
            prop_assert!(r.is_ok(), "expression {k} (seed {SEED}): {}\nvalues {:?}: {}", e.text, (a, b, c, d, x, y), r.unwrap_err());
        }
    }
}
