//! The compiler's stages are true (issue 51): every module of `nuda-transforms/src` uses only
//! modules of its own stage or earlier ones, no files import each other in a circle, and each
//! module's opening doc names its stage. The stages are the ones `lib.rs` lists. Paths are read
//! from the source text (`crate::x::..`, `crate::{x, y::..}`, `super::x`), tests included, so
//! a new import from a later stage fails here; the last two tests plant one of each. Unit
//! tests (`test.rs`, `*_test.rs`) sit above stage 7, as `lib.rs` says.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each stage folder under `src`, its stage, and whether it groups peer modules (then each
/// module in it is a module root too, and its doc names the stage), as `lib.rs` lists them.
const STAGES: &[(&str, u8, bool)] = &[
    ("base", 1, true),
    ("syntax", 2, false),
    ("checks", 3, true),
    ("annot", 4, false),
    ("emit", 5, false),
    ("proof", 6, false),
    ("entry", 7, true),
];

fn stage(folder: &str) -> Option<u8> {
    STAGES.iter().find(|s| s.0 == folder).map(|s| s.1)
}

fn grouped(folder: &str) -> bool {
    STAGES.iter().any(|s| s.0 == folder && s.2)
}

/// Every `.rs` file under `dir`, as (path relative to `src`, text).
fn files(dir: &Path, src: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, src, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(src).unwrap().to_string_lossy().to_string();
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

/// The code without comments (a `//` inside a string cuts a line short, which loses no path
/// in this crate).
fn code(text: &str) -> String {
    let lines = text.lines().map(|l| l.split("//").next().unwrap_or(""));
    lines.collect::<Vec<_>>().join("\n")
}

/// The paths after `prefix` in `code`: `prefix a::b`, and each of `prefix {a::b, c}`.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(inner.split(',').map(segments));
        } else {
            out.push(segments(rest));
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// The leading `a::b::c` of `text`, as segments.
fn segments(text: &str) -> Vec<String> {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(text.len());
    let segs = text[..end].split("::").filter(|s| !s.is_empty());
    segs.map(str::to_string).collect()
}

/// The file a module path names (`annot/dmine`), or its folder's `mod.rs` for a name it
/// defines: as a module key without `.rs` and `/mod`.
fn key_of(rel: &str) -> String {
    rel.trim_end_matches(".rs")
        .trim_end_matches("/mod")
        .to_string()
}

/// The module file among `known` that a path (from the crate root) reaches: the longest
/// prefix that is a file.
fn resolve(path: &[String], known: &BTreeSet<String>) -> Option<String> {
    (1..=path.len().min(4))
        .rev()
        .map(|n| path[..n].join("/"))
        .find(|k| known.contains(k))
}

/// Every breach in `tree` (file, text): an import from a later stage, a module whose doc does
/// not name its stage, a circle of files.
fn breaches(tree: &[(String, String)]) -> Vec<String> {
    let known: BTreeSet<String> = tree.iter().map(|(r, _)| key_of(r)).collect();
    let mut found = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in tree {
        let me = key_of(rel);
        let top = me.split('/').next().unwrap_or("").to_string();
        let code = code(text);
        found.extend(stage_breaches(rel, &top, &code));
        found.extend(doc_breach(rel, &me, &top, text));
        let parent: Vec<String> = me.split('/').map(str::to_string).collect();
        let mut targets = BTreeSet::new();
        for p in paths_after(&code, "crate::") {
            targets.extend(resolve(&p, &known));
        }
        for p in paths_after(&code, "super::") {
            // `super::super::x` also matches as `super::x`, one level too low: harmless,
            // as it names the same file or one that does not exist.
            let ups = 1 + p.iter().take_while(|s| *s == "super").count();
            let base = &parent[..parent.len().saturating_sub(ups)];
            let rest = p.iter().skip(ups - 1).cloned();
            let full: Vec<String> = base.iter().cloned().chain(rest).collect();
            targets.extend(resolve(&full, &known));
        }
        // A file and the folders around it are one module tree: a child naming its parent's
        // items (`super::Gen`) is no circle.
        targets.retain(|t| {
            !me.starts_with(&format!("{t}/")) && !t.starts_with(&format!("{me}/")) && *t != me
        });
        edges.insert(me, targets);
    }
    found.extend(circles(&edges));
    found
}

/// Imports of `rel` (in top module `top`) from a later stage. Unit tests sit above every
/// stage: they drive the pipeline from a macro's input.
fn stage_breaches(rel: &str, top: &str, code: &str) -> Vec<String> {
    let unit_test = rel.ends_with("/test.rs") || rel.ends_with("_test.rs");
    let Some(mine) = stage(top).filter(|_| !unit_test) else {
        return Vec::new();
    };
    let imports = paths_after(code, "crate::");
    let later = imports
        .iter()
        .filter_map(|p| Some((p[0].clone(), stage(&p[0])?)))
        .filter(|(_, s)| *s > mine);
    later
        .map(|(m, s)| format!("{rel} (stage {mine}) imports `{m}` (stage {s})"))
        .collect()
}

/// A module root (a stage folder, or a module of a grouping folder) whose opening doc does not
/// name its stage.
fn doc_breach(rel: &str, me: &str, top: &str, text: &str) -> Option<String> {
    let depth = me.split('/').count();
    if !(depth == 1 || (depth == 2 && grouped(top))) {
        return None;
    }
    let Some(n) = stage(top) else {
        return (rel != "lib.rs").then(|| format!("{rel}: a module outside the stage folders"));
    };
    let doc: String = text.lines().take_while(|l| l.starts_with("//!")).collect();
    let doc = doc.to_lowercase();
    (!doc.contains(&format!("stage {n}")))
        .then(|| format!("{rel}: its doc does not say `stage {n}`"))
}

/// Each circle of files in `edges`, once.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = BTreeSet::new();
    for start in edges.keys() {
        let mut path = vec![start.clone()];
        walk(edges, &mut path, &mut found);
    }
    found.into_iter().collect()
}

fn walk(
    edges: &BTreeMap<String, BTreeSet<String>>,
    path: &mut Vec<String>,
    found: &mut BTreeSet<String>,
) {
    let last = path.last().cloned().unwrap_or_default();
    for next in edges.get(&last).into_iter().flatten() {
        if *next == path[0] {
            let mut circle = path.clone();
            let min = (0..circle.len()).min_by_key(|&i| &circle[i]).unwrap_or(0);
            circle.rotate_left(min);
            found.insert(format!(
                "a circle of imports: {} -> {}",
                circle.join(" -> "),
                circle[0]
            ));
        } else if !path.contains(next) && next > &path[0] && path.len() < 6 {
            path.push(next.clone());
            walk(edges, path, found);
            path.pop();
        }
    }
}

#[test]
fn the_compiler_s_stages_hold() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut tree = Vec::new();
    files(&src, &src, &mut tree);
    let found = breaches(&tree);
    assert!(
        found.is_empty(),
        "{} breaches:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn a_planted_back_edge_fails() {
    let tree = [
        (
            "base/ir/mod.rs".to_string(),
            "//! stage 1\nuse crate::emit::cl::ClEmitter;\n".to_string(),
        ),
        ("emit/mod.rs".to_string(), "//! stage 5\n".to_string()),
        (
            "emit/cl.rs".to_string(),
            "use crate::base::ir::Expr;\n".to_string(),
        ),
    ];
    let found = breaches(&tree);
    assert!(
        found
            .iter()
            .any(|f| f.contains("base/ir/mod.rs (stage 1) imports `emit` (stage 5)")),
        "{found:?}"
    );
}

#[test]
fn a_planted_circle_and_a_silent_doc_fail() {
    let tree = [
        ("annot/mod.rs".to_string(), "//! annotations\n".to_string()),
        ("annot/a.rs".to_string(), "use super::b::x;\n".to_string()),
        (
            "annot/b.rs".to_string(),
            "use crate::annot::a::y;\n".to_string(),
        ),
    ];
    let found = breaches(&tree);
    assert!(
        found
            .iter()
            .any(|f| f == "a circle of imports: annot/a -> annot/b -> annot/a"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|f| f.contains("annot/mod.rs: its doc does not say `stage 4`")),
        "{found:?}"
    );
}

/// The modules `README.md`'s list names (`- \`checks/capture\`: ..`) against those in the tree
/// (unit tests left out): every module listed, and no name that is gone.
fn readme_drift(tree: &[(String, String)], readme: &str) -> Vec<String> {
    let unit_test = |r: &String| r.ends_with("/test.rs") || r.ends_with("_test.rs");
    let modules: BTreeSet<String> = tree
        .iter()
        .filter(|(r, _)| r != "lib.rs" && !unit_test(r))
        .map(|(r, _)| key_of(r))
        .collect();
    let listed: BTreeSet<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("- `")?.split('`').next())
        .map(str::to_string)
        .collect();
    let missing = modules
        .difference(&listed)
        .map(|m| format!("not listed: {m}"));
    let stale = listed
        .difference(&modules)
        .map(|m| format!("listed, not in src: {m}"));
    missing.chain(stale).collect()
}

#[test]
fn the_readme_lists_every_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut tree = Vec::new();
    files(&src, &src, &mut tree);
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let drift = readme_drift(&tree, &readme);
    assert!(drift.is_empty(), "README.md's module list: {drift:?}");
    let planted = readme.replace("- `checks/sites`", "- `checks/gone`");
    assert_eq!(
        readme_drift(&tree, &planted),
        [
            "not listed: checks/sites",
            "listed, not in src: checks/gone"
        ]
    );
}
