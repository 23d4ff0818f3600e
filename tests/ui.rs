//! Macro misuse: each case under `tests/ui/` must fail to compile with a clear error at the
//! user's span (checked against its `.stderr`). Regenerate with `TRYBUILD=overwrite`.

use std::path::Path;

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    // Compile-fail cases only: with none that must pass, trybuild checks them (`cargo check`)
    // rather than building them. Safe code compiling where unsafe code is forbidden is
    // `tests/forbid_unsafe.rs`.
    t.compile_fail("tests/ui/*.rs");
}

/// Names of generated code and of nuda's internals, which no message may show a user unless
/// the user wrote them (a case that calls hidden API on purpose).
const INTERNALS: [&str; 9] = [
    "ArrayView",
    "PrivateArray",
    "Checker",
    "KernelRef",
    "native_mut",
    "read_view",
    "private_at",
    "__nuda",
    "__private",
];

/// The macros whose calls a suggestion must not rewrite from outside.
const MACROS: [&str; 5] = ["nuwork!(", "nucall!(", "nfor!(", "annot!(", "nulocal!("];

#[test]
fn messages_name_no_internals_and_never_rewrite_the_macro_call() {
    let mut bad = Vec::new();
    for entry in std::fs::read_dir("tests/ui").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "stderr") {
            bad.extend(problems(&path));
        }
    }
    assert!(
        bad.is_empty(),
        "messages show internals:\n{}",
        bad.join("\n")
    );
}

/// What is wrong with one expected stderr: internal names the case's source does not
/// contain, and suggestions that edit a macro call from outside its parentheses.
fn problems(stderr: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(stderr).unwrap();
    let source = std::fs::read_to_string(stderr.with_extension("rs")).unwrap_or_default();
    let name = stderr.display();
    let mut out: Vec<String> = INTERNALS
        .iter()
        .filter(|w| text.contains(*w) && !source.contains(*w))
        .map(|w| format!("{name}: names `{w}`"))
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    for pair in lines.windows(2) {
        if let Some(col) = rewrites_macro_call(pair[0], pair[1]) {
            out.push(format!(
                "{name}: a suggestion edits the macro call at column {col}"
            ));
        }
    }
    out
}

/// For a suggested source line and the marker line under it (`+++` under what a suggestion
/// inserts), the column of an insertion after a macro call's closing parenthesis (as in
/// `(nuwork!(..)).try_into().unwrap()`), if any. Text before the call (`let _ = `) is the
/// user's statement, not the call.
fn rewrites_macro_call(code: &str, markers: &str) -> Option<usize> {
    let (_, code) = code.split_once(" | ")?;
    let (_, marks) = markers.split_once(" | ")?;
    if !marks.trim().chars().all(|c| c == '+' || c == ' ') {
        return None;
    }
    MACROS.iter().find_map(|m| {
        let open = code.find(m)? + m.len() - 1;
        let end = close_of(code, open)?;
        marks
            .char_indices()
            .find(|&(i, c)| c == '+' && i > end)
            .map(|(i, _)| i)
    })
}

/// The index of the parenthesis closing the one at `open`, if on this line.
fn close_of(code: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in code.char_indices().skip_while(|&(i, _)| i < open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[test]
fn the_checks_above_can_fail() {
    // The suggestion rustc made before issue 27: wrapping the whole call.
    let code =
        "7 |     let _ = (nuwork!(8; nfor!(i in 8 { b[i] = a[i as i32]; }))).try_into().unwrap();";
    let marks =
        "  |             +                                                 +++++++++++++++++++++";
    assert!(rewrites_macro_call(code, marks).is_some());
    // An edit inside the body is the user's own code.
    let code = "9 |     nuwork!(4; nfor!(i in 16 { for j in (0u8..10).step_by(st.try_into().unwrap()) { } }))?;";
    let marks =
        "  |                                                            ++++++++++++++++++++";
    assert_eq!(rewrites_macro_call(code, marks), None);
    // Nor is the statement around the call.
    let code = "5 |     let _ = nuwork!(8; nfor!(i in 8 { a[i] = 1.0; }));";
    let marks = "  |     +++++++";
    assert_eq!(rewrites_macro_call(code, marks), None);
}
