//! BENCHMARKS.md's current section is what `scripts/bench-report` writes from the raw files
//! under `benchmarks/`: a figure edited by hand, or a raw file added without regenerating,
//! fails here.

use std::path::Path;
use std::process::Command;

fn report(args: &[&str]) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Command::new("python3")
        .arg(root.join("scripts/bench-report"))
        .args(args)
        .output()
        .expect("python3, which runs scripts/bench-report")
}

#[test]
fn benchmarks_md_current_section_is_generated_from_the_raw_files() {
    let out = report(&["--check"]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_figure_edited_by_hand_fails_the_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
    let start = text.find("<!-- bench-report: begin").unwrap();
    let row = start + text[start..].find("\n| ").unwrap() + 1;
    let row = row + text[row..].find("\n| ").unwrap() + 1;
    let row = row + text[row..].find("\n| ").unwrap() + 1;
    // The first figure of the first table's first row, one digit changed.
    let digit = row + text[row..].find(|c: char| c.is_ascii_digit()).unwrap();
    let mut planted = text.clone();
    let new = if &text[digit..=digit] == "9" {
        "8"
    } else {
        "9"
    };
    planted.replace_range(digit..=digit, new);
    let dir = std::env::temp_dir().join(format!("nuda-bench-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("BENCHMARKS.md");
    std::fs::write(&file, planted).unwrap();
    let out = report(&["--check", "--file", file.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(!out.status.success(), "a planted change passed the check");
    assert!(String::from_utf8_lossy(&out.stderr).contains("differs from the raw files"));
}

/// Issue 50: the generated section holds the static table, every model problem's kernels for
/// sm_90 beside an MI200's (gfx90a, both AMD compilers) and an MI300's (gfx940, clang).
#[test]
fn the_static_table_puts_amd_beside_sm_90() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
    let head = "### Static resources per kernel: sm_90 beside AMD's compilers";
    let table = &text[text.find(head).expect("the static table")..];
    let header = table.lines().find(|l| l.starts_with("| problem")).unwrap();
    for column in ["sm_90", "hiprtc gfx90a", "clang gfx90a", "clang gfx940"] {
        assert!(header.contains(column), "no `{column}` in {header}");
    }
    for problem in [
        "imgconv",
        "nbody",
        "sgemm",
        "dgemm",
        "md5",
        "scan",
        "histogram",
    ] {
        let rows = table
            .lines()
            .filter(|l| l.starts_with(&format!("| {problem} ")));
        assert!(rows.count() > 0, "no `{problem}` rows");
    }
}
