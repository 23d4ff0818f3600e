//! Generated code names the facade's paths through `src/paths.rs` alone (`NUDA`, `KERNEL`,
//! `PRIVATE`), so moving one is a one-line change: no other source file of the compiler may
//! spell `::nuda` (test files may).

use std::path::{Path, PathBuf};

/// The lines of `text` that spell a path under `::nuda` by hand.
fn spelled(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            l.match_indices("::nuda").any(|(at, m)| {
                let next = l[at + m.len()..].chars().next();
                !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
        .collect()
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            sources(&p, out);
        } else if name.ends_with(".rs") && name != "test.rs" && !name.ends_with("_test.rs") {
            out.push(p);
        }
    }
}

#[test]
fn only_paths_rs_spells_the_facades_paths() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let found: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("paths.rs"))
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let lines: Vec<String> = spelled(&text).into_iter().map(String::from).collect();
            lines
                .into_iter()
                .map(move |l| format!("{}: {}", f.display(), l.trim()))
        })
        .collect();
    assert!(
        found.is_empty(),
        "spell these through crate::base::paths:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_a_path_spelled_by_hand() {
    assert_eq!(spelled("quote!(::nuda::kernel::Capture)").len(), 1);
    assert_eq!(spelled("quote!(::nuda)").len(), 1);
    assert!(spelled("quote!(#KERNEL::Capture); ::nuda_abi::x").is_empty());
}
