//! Writes the random test programs of `tests/random_expressions.rs`, `tests/random_nests.rs`,
//! `tests/random_lanes.rs`, `tests/random_bounds.rs` and `tests/random_barriers.rs` into
//! `OUT_DIR`.
//!
//! Kernels are compiled by rustc and the macros, so random programs must exist before the
//! tests compile: this script draws them, from `NUDA_EXPR_SEED`, `NUDA_NEST_SEED`, `NUDA_LANES_SEED`,
//! `NUDA_BOUNDS_SEED` and `NUDA_BARRIER_SEED` (fixed defaults keep runs reproducible; set them to explore others). The tests then draw random
//! values with proptest and check OpenCL, the native engine and plain Rust agree.

#[path = "testgen/barriers.rs"]
mod barriers;
#[path = "testgen/bounds.rs"]
mod bounds;
#[path = "testgen/exprs.rs"]
mod exprs;
#[path = "testgen/lanes.rs"]
mod lanes;
#[path = "testgen/nests.rs"]
mod nests;
#[path = "testgen/rng.rs"]
mod rng;

fn seed(var: &str, default: u64) -> u64 {
    println!("cargo:rerun-if-env-changed={var}");
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn write(name: &str, text: String) {
    let dir = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(std::path::Path::new(&dir).join(name), text).expect("write a generated test");
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=testgen");
    write(
        "random_expressions.rs",
        exprs::file(seed("NUDA_EXPR_SEED", 0x5eed_2026)),
    );
    write(
        "random_nests.rs",
        nests::file(seed("NUDA_NEST_SEED", 0x2e57_2026)),
    );
    write(
        "random_lanes.rs",
        lanes::file(seed("NUDA_LANES_SEED", 0x1a_2026)),
    );
    write(
        "random_bounds.rs",
        bounds::file(seed("NUDA_BOUNDS_SEED", 0xb0_2026)),
    );
    write(
        "random_barriers.rs",
        barriers::file(seed("NUDA_BARRIER_SEED", 0xba_2026)),
    );
}
