//! The runtime's layers are true (issue 29, item 4): every module of `nuda-runtime/src` uses
//! only modules of its own layer or below, and its opening doc names its layer. The table is
//! the one `lib.rs` and `backend/README.md` draw. A path is read from the source text
//! (`crate::x::..`, `crate::{x, y::..}`, and the root's re-exports resolved through `lib.rs`),
//! so a new import from a layer above fails this test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each module (a top-level module, or a backend folder) and its layer.
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("element", 0),
    ("atomic", 0),
    ("shape", 0),
    ("config", 0),
    ("stats", 0),
    ("fault", 0),
    ("backend", 0),
    ("backend::c", 1),
    ("backend::cuda", 1),
    ("backend::hip", 1),
    ("backend::native", 1),
    ("backend::opencl", 1),
    ("device", 2),
    ("nudevs", 2),
    ("memory", 3),
    ("array", 4),
    ("image", 4),
    ("launch", 5),
    ("kernel", 5),
    ("reduce", 5),
    ("tune", 5),
    ("dist", 5),
    ("lab", 5),
    ("macro_support", 6),
];

/// Imports from above that remain, each with why: none.
const KNOWN: &[(&str, &str)] = &[];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|l| l.1)
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module a file belongs to: its top folder or file, or its backend folder.
fn module_of(rel: &str) -> String {
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        ["backend", sub, _, ..] => format!("backend::{sub}"),
        [first, ..] => first.trim_end_matches(".rs").to_string(),
        [] => String::new(),
    }
}

/// The module a path's first segment (and second, under `backend`) names; root re-exports go
/// through `roots`, the names `lib.rs` re-exports mapped to their modules.
fn target(first: &str, second: Option<&str>, roots: &BTreeMap<String, String>) -> Option<String> {
    let first = roots.get(first).map_or(first, |m| m.as_str());
    let (first, second) = match first.split_once("::") {
        Some((a, b)) => (a, Some(b)),
        None => (first, second),
    };
    match (first, second) {
        ("backend", Some(s)) if layer(&format!("backend::{s}")).is_some() => {
            Some(format!("backend::{s}"))
        }
        (f, _) => layer(f).map(|_| f.to_string()),
    }
}

/// The code of a file without comments and without its in-file `#[cfg(test)]` module.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    let lines = text.lines().map(|l| l.split("//").next().unwrap_or(""));
    lines.collect::<Vec<_>>().join("\n")
}

/// Every module `text` names through `crate::`.
fn uses(text: &str, roots: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + 7..];
        let group = rest
            .strip_prefix('{')
            .map(|g| &g[..g.find('}').unwrap_or(g.len())]);
        let paths: Vec<&str> = match group {
            Some(g) => g.split(',').map(str::trim).collect(),
            None => vec![rest],
        };
        for p in paths {
            let mut segs = p
                .split("::")
                .map(|s| s.trim_matches(|c: char| !c.is_alphanumeric() && c != '_'));
            let first = segs.next().unwrap_or("");
            let first = &first[..first
                .find(|c: char| !c.is_alphanumeric() && c != '_')
                .unwrap_or(first.len())];
            out.extend(target(first, segs.next(), roots));
        }
    }
    out
}

/// `lib.rs`'s re-exports: each name, and the module path it comes from.
fn roots() -> BTreeMap<String, String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut map = BTreeMap::new();
    let lib = code(&lib);
    let statements = lib
        .split(';')
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "));
    for line in statements.filter_map(|l| l.strip_prefix("pub use ").map(String::from)) {
        let line = line.replace(":: {", "::{");
        let (path, names) = match line.split_once("::{") {
            Some((p, n)) => (p.to_string(), n.trim_end_matches('}').to_string()),
            None => match line.rsplit_once("::") {
                Some((p, n)) => (p.to_string(), n.to_string()),
                None => continue,
            },
        };
        for n in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            // `pub use backend::native;` makes `crate::native` the backend folder.
            let full = if layer(&format!("{path}::{n}")).is_some() {
                format!("{path}::{n}")
            } else {
                path.clone()
            };
            map.insert(n.to_string(), full);
        }
    }
    map
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `(file, module, layer, used module, its layer)` for every import from a layer above.
fn violations(rel: &str, text: &str, roots: &BTreeMap<String, String>) -> Vec<String> {
    let module = module_of(rel);
    let Some(own) = layer(&module) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for used in uses(&code(text), roots) {
        let theirs = layer(&used).unwrap_or(0);
        let known = KNOWN.contains(&(module.as_str(), used.as_str()));
        if theirs > own && !known {
            out.push(format!("{rel} (layer {own}) uses {used} (layer {theirs})"));
        }
    }
    out.sort();
    out.dedup();
    out
}

fn is_test(rel: &str) -> bool {
    rel.ends_with("/test.rs") || rel.ends_with("_test.rs") || rel.contains("/tests/")
}

/// Every module file (not `lib.rs`, not a test): its path under `src/` and its text.
fn module_files() -> Vec<(String, String)> {
    let mut all = Vec::new();
    files(&src(), &mut all);
    let rel = |p: &Path| {
        p.strip_prefix(src())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/")
    };
    (all.iter())
        .map(|p| (rel(p), p))
        .filter(|(r, _)| r != "lib.rs" && !is_test(r))
        .map(|(r, p)| (r, std::fs::read_to_string(p).unwrap()))
        .collect()
}

#[test]
fn no_module_imports_a_layer_above_its_own() {
    let roots = roots();
    let bad: Vec<String> = (module_files().iter())
        .flat_map(|(rel, text)| violations(rel, text, &roots))
        .collect();
    assert!(
        bad.is_empty(),
        "imports from a layer above:\n{}",
        bad.join("\n")
    );
}

/// No two modules import each other, even within a layer: the module graph has no circle.
#[test]
fn no_modules_import_each_other() {
    let roots = roots();
    let mut graph: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (rel, text) in module_files() {
        let module = module_of(&rel);
        let used = uses(&code(&text), &roots)
            .into_iter()
            .filter(|u| *u != module);
        graph.entry(module.clone()).or_default().extend(used);
    }
    let circles: Vec<String> = graph.keys().filter_map(|m| circle(&graph, m)).collect();
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

/// A path from `start` back to itself, if the graph has one.
fn circle(graph: &BTreeMap<String, Vec<String>>, start: &str) -> Option<String> {
    let (mut stack, mut seen) = (vec![vec![start.to_string()]], Vec::new());
    while let Some(path) = stack.pop() {
        for next in graph.get(path.last()?).into_iter().flatten() {
            if next == start {
                return Some(format!("{} -> {start}", path.join(" -> ")));
            }
            if !seen.contains(next) {
                seen.push(next.clone());
                stack.push([path.clone(), vec![next.clone()]].concat());
            }
        }
    }
    None
}

/// Every module's opening doc names its layer, the one in the table.
#[test]
fn every_module_names_its_layer() {
    let mut bad = Vec::new();
    for (module, n) in LAYERS {
        let path = module.replace("::", "/");
        let file = [format!("{path}/mod.rs"), format!("{path}.rs")]
            .into_iter()
            .map(|f| src().join(f))
            .find(|f| f.exists())
            .unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        let doc: String = text.lines().take_while(|l| l.starts_with("//!")).collect();
        if !doc.to_lowercase().contains(&format!("layer {n}")) {
            bad.push(format!("{module}: its opening doc should say `layer {n}`"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The check sees an import from above, in each form a path takes, and not one from below.
#[test]
fn the_check_catches_an_import_from_above() {
    let roots = roots();
    let v = |rel: &str, text: &str| violations(rel, text, &roots);
    assert_eq!(v("memory/mod.rs", "use crate::launch::Launch;").len(), 1);
    assert_eq!(
        v(
            "memory/mod.rs",
            "use crate::{error::Error, array::NuArray1};"
        )
        .len(),
        1
    );
    assert_eq!(
        v("backend/opencl/mod.rs", "let d = crate::current_device();").len(),
        1
    );
    assert_eq!(
        v("backend/c/prelude.rs", "use crate::backend::cuda::X;").len(),
        0
    );
    assert_eq!(
        v(
            "launch/mod.rs",
            "use crate::array::NuArray1; // crate::macro_support"
        )
        .len(),
        0
    );
    assert_eq!(
        v(
            "fault/mod.rs",
            "/// see [`x`](crate::macro_support::x)\nfn f() {}"
        )
        .len(),
        0
    );
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().push(b.to_string());
        }
        g
    };
    let g = graph(&[
        ("kernel", "launch"),
        ("launch", "array"),
        ("array", "kernel"),
    ]);
    let found = circle(&g, "kernel");
    assert_eq!(
        found.as_deref(),
        Some("kernel -> launch -> array -> kernel")
    );
    assert_eq!(circle(&graph(&[("kernel", "launch")]), "kernel"), None);
}
