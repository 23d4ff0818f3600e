//! Macro misuse: each case under `tests/ui/` must fail to compile with a clear error at the
//! user's span (checked against its `.stderr`). Regenerate with `TRYBUILD=overwrite`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    // Safe code compiles where unsafe code is forbidden.
    t.pass("tests/ui-pass/*.rs");
}
