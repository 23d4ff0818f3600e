//! The kernel-language reference (`docs/kernel-language.md`) lists every diagnostic the macros
//! can give, with its fix. This test keeps the two in step: it finds each message in the
//! source (a string literal in a statement that reports an error: `.error(..)`, `err(..)`,
//! `syn::Error::new`, `let msg = ..`, `write!` in the runtime's `Error` display) and checks that
//! each of its fixed parts (the text between `{..}` placeholders) appears in the reference.
//! `NUDA_LIST_DIAGNOSTICS=<file>` writes the messages found, one per line.

use std::path::{Path, PathBuf};

/// Words before a string literal, in its statement, that make it a diagnostic.
const REPORTS: &[&str] = &[
    ".error(",
    "err(",
    "Error::new",
    "let msg",
    "lane_error(",
    "unsupported(",
    "write!(",
    "msg = ",
];

/// Fixed parts shorter than this are not checked (`, `, `: `, a lone name).
const MIN_PART: usize = 12;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir` except tests.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            sources(&p, out);
        } else if name.ends_with(".rs") && name != "test.rs" && !name.ends_with("_test.rs") {
            out.push(p);
        }
    }
}

/// The string literals of `text` (plain ones; raw strings are not diagnostics here), with
/// the offset where each starts.
fn literals(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        match b[i] {
            // Comments: skip to the end of the line.
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            // A char literal such as '"' must not open a string.
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 3,
            b'\'' if b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') => i += 4,
            b'"' => {
                let start = i;
                let mut s = Vec::new();
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                        match b[i] {
                            // A line continuation: the newline and the next line's indent go.
                            b'\n' => {
                                while b[i + 1].is_ascii_whitespace() {
                                    i += 1;
                                }
                            }
                            b'n' => s.push(b'\n'),
                            c => s.push(c),
                        }
                    } else {
                        s.push(b[i]);
                    }
                    i += 1;
                }
                out.push((start, String::from_utf8_lossy(&s).into_owned()));
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether a literal names a macro form the way diagnostics begin (`annot!: `,
/// `#[nustruct] `), wherever it stands (a match arm choosing the message, an assertion in the
/// generated code).
fn names_a_form(lit: &str) -> bool {
    let forms = ["annot!:", "nuwork!:", "nfor!:", "nucall!:", "nulocal!:"];
    forms.iter().any(|f| lit.starts_with(f))
        || (lit.starts_with("#[nu") && lit.contains("] ") && lit.split_whitespace().count() > 3)
}

/// Whether the statement before offset `at` reports an error.
fn reported(text: &str, at: usize) -> bool {
    let before = &text[..at];
    let from = before.rfind([';', '{', '}']).map_or(0, |p| p + 1);
    let stmt = &before[from..];
    REPORTS.iter().any(|r| stmt.contains(r))
}

/// A message's fixed parts: split at `{..}` placeholders, `{{` and `}}` unescaped.
fn parts(msg: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    let mut chars = msg.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                cur.push('{');
            }
            '}' if depth == 0 && chars.peek() == Some(&'}') => {
                chars.next();
                cur.push('}');
            }
            '{' => {
                depth += 1;
                out.push(std::mem::take(&mut cur));
            }
            '}' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            c => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| p.len() >= MIN_PART)
        .collect()
}

/// Every diagnostic message in the macros' source and the runtime's errors.
fn messages() -> Vec<(String, String)> {
    let r = root();
    let mut files = Vec::new();
    sources(&r.join("nuda-transforms/src"), &mut files);
    sources(&r.join("nuda-macros/src"), &mut files);
    files.push(r.join("nuda-runtime/src/error.rs"));
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        // Unit tests inside a file are not the code's diagnostics.
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        for (at, lit) in literals(text) {
            // A message is a sentence: words and spaces, not a fragment of C or a name.
            if lit.split_whitespace().count() >= 3 && (reported(text, at) || names_a_form(&lit)) {
                let rel = f.strip_prefix(&r).unwrap().display().to_string();
                out.push((rel, lit));
            }
        }
    }
    out
}

#[test]
fn every_diagnostic_is_in_the_reference() {
    let found = messages();
    assert!(
        found.len() > 150,
        "the scan found only {} messages",
        found.len()
    );
    if let Ok(path) = std::env::var("NUDA_LIST_DIAGNOSTICS") {
        let list: Vec<String> = found.iter().map(|(f, m)| format!("{f}\t{m}")).collect();
        std::fs::write(path, list.join("\n") + "\n").unwrap();
    }
    let reference = std::fs::read_to_string(root().join("docs/kernel-language.md"))
        .expect("docs/kernel-language.md, the kernel-language reference");
    let missing: Vec<String> = found
        .iter()
        .flat_map(|(f, m)| {
            parts(m)
                .into_iter()
                .filter(|p| !reference.contains(p.as_str()))
                .map(move |p| format!("{f}: {p}"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "{} fixed parts of diagnostics are missing from docs/kernel-language.md:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn the_scan_splits_messages_at_placeholders() {
    let text = "cx.error(s, format!(\"annot!: {name} has {} parameters but the nest {{x}} has\"));";
    let lits = literals(text);
    assert_eq!(lits.len(), 1);
    assert!(reported(text, lits[0].0));
    assert_eq!(
        parts(&lits[0].1),
        vec![
            "has".to_string(),
            "parameters but the nest {x} has".to_string()
        ]
        .into_iter()
        .filter(|p| p.len() >= MIN_PART)
        .collect::<Vec<_>>()
    );
    let quiet = "let name = \"not a message at all\";";
    assert!(!reported(quiet, literals(quiet)[0].0));
}

/// Each builtin function the table allows outside `#[nukernel]` is in scope in a `#[nucode]`
/// function's host copy, and the reference's table says "anywhere" for exactly those.
#[test]
fn every_anywhere_builtin_works_in_nucode_functions() {
    use nuda_transforms::base::ir::builtins::BUILTIN_FNS;
    let reference = std::fs::read_to_string(root().join("docs/kernel-language.md")).unwrap();
    for b in BUILTIN_FNS {
        let row = format!("| `{}(", b.name);
        let line = reference.lines().find(|l| l.contains(&row));
        let documented = line.is_some_and(|l| l.contains("| anywhere |"));
        assert_eq!(
            !b.kernel_only(),
            documented,
            "the reference's row for `{}`",
            b.name
        );
        if b.kernel_only() {
            continue;
        }
        let item = format!("fn f(x: f32) -> f32 {{ {}(x) }}", b.name);
        let out = nuda_transforms::entry::nucode::expand(Default::default(), item.parse().unwrap())
            .unwrap_or_else(|e| panic!("#[nucode] with `{}`: {e}", b.name));
        let file: syn::File = syn::parse2(out).unwrap();
        let host = file.items.iter().find_map(|i| match i {
            syn::Item::Fn(f) if f.sig.ident == "f" => Some(f),
            _ => None,
        });
        let first = host.expect("the host's copy of `f`").block.stmts.first();
        let import = quote::quote!(#first).to_string();
        assert!(
            import.starts_with("# [allow (unused_imports)] use :: nuda :: __private ::")
                && import.contains(&format!(" {} ", b.name)),
            "the host's `f` does not import `{}`: {import}",
            b.name
        );
    }
}
