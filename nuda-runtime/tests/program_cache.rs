//! The program caches: in memory within a process, on disk across processes, `NUDA_CACHE=0`,
//! corrupt entries, and `NUDA_DUMP`.

mod common;

use common::{child, is_child, opencl, probe};
use nuda_runtime::{thread_stats, KernelSource, Launch, NuArray1};
use std::path::{Path, PathBuf};

// SAFETY: the one access is guarded by the dim `n`.
static TRIPLE: KernelSource = unsafe {
    KernelSource::new(
        "/* program_cache test kernel */
     kernel void triple(global int* a, nu_idx n) {
         nu_idx i = get_global_id(0);
         if (i < n) a[i] *= 3;
     }",
    )
};

fn run_triple() -> Vec<i32> {
    let mut a = NuArray1::<i32>::from_fn(10, |i| i as i32);
    Launch::new(&TRIPLE, "triple")
        .global([10])
        .array_mut(&mut a)
        .run()
        .unwrap();
    a.to_vec()
}

/// Run by the tests below in a child process: builds one program and reports how.
#[test]
fn child_build_once() {
    if !is_child() || opencl().is_none() {
        return;
    }
    let before = thread_stats();
    assert_eq!(run_triple(), (0..10).map(|i| 3 * i).collect::<Vec<i32>>());
    let d = thread_stats() - before;
    println!("PROBE compiled={}", d.programs_compiled);
    println!("PROBE from_disk={}", d.programs_from_disk);
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nuda-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn build_in_child(env: &[(&str, &str)]) -> (String, String) {
    let out = child("child_build_once", env);
    (probe(&out, "compiled"), probe(&out, "from_disk"))
}

/// The program binaries in a cache directory (its files; NUDA_CUDA_CHECK keeps a folder of
/// its own there).
fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_second_process_loads_the_binary_from_disk() {
    if opencl().is_none() {
        return;
    }
    let dir = temp_dir("cache");
    let env = [("NUDA_CACHE_DIR", dir.to_str().unwrap())];
    assert_eq!(
        build_in_child(&env),
        ("1".into(), "0".into()),
        "first process compiles"
    );
    assert_eq!(entries(&dir).len(), 1, "and stores one binary");
    assert_eq!(
        build_in_child(&env),
        ("0".into(), "1".into()),
        "second process hits the cache"
    );
    // A corrupt entry is detected, rebuilt and replaced.
    let entry = &entries(&dir)[0];
    let mut bytes = std::fs::read(entry).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(entry, &bytes).unwrap();
    assert_eq!(
        build_in_child(&env),
        ("1".into(), "0".into()),
        "corrupt entry is rebuilt"
    );
    assert_eq!(
        build_in_child(&env),
        ("0".into(), "1".into()),
        "and replaced"
    );
    // A well-formed entry the driver rejects (as after a driver change) is stale: rebuilt.
    write_entry(&entries(&dir)[0], b"not a program binary");
    assert_eq!(
        build_in_child(&env),
        ("1".into(), "0".into()),
        "stale entry is rebuilt"
    );
    assert_eq!(
        build_in_child(&env),
        ("0".into(), "1".into()),
        "and replaced again"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Writes a cache entry in nuda's format (magic, key, length, SHA-256, payload).
fn write_entry(path: &Path, payload: &[u8]) {
    use sha2::{Digest, Sha256};
    let key = path.file_stem().unwrap().to_str().unwrap();
    let mut bytes = b"NUDABIN1".to_vec();
    bytes.extend_from_slice(key.as_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&Sha256::digest(payload));
    bytes.extend_from_slice(payload);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn nuda_cache_0_turns_the_disk_cache_off() {
    if opencl().is_none() {
        return;
    }
    let dir = temp_dir("nocache");
    let env = [
        ("NUDA_CACHE_DIR", dir.to_str().unwrap()),
        ("NUDA_CACHE", "0"),
    ];
    assert_eq!(build_in_child(&env), ("1".into(), "0".into()));
    assert_eq!(build_in_child(&env), ("1".into(), "0".into()));
    assert!(entries(&dir).is_empty());
}

#[test]
fn nuda_dump_writes_the_full_program_text() {
    if opencl().is_none() {
        return;
    }
    let dir = temp_dir("dump");
    child(
        "child_build_once",
        &[("NUDA_DUMP", dir.to_str().unwrap()), ("NUDA_CACHE", "0")],
    );
    // The OpenCL C; with NUDA_CUDA_CHECK set, the CUDA C and PTX lie beside it.
    let files: Vec<_> = entries(&dir)
        .into_iter()
        .filter(|f| f.extension().is_some_and(|x| x == "cl"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0]
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("triple-"));
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains("typedef uint nu_idx;") && text.contains("every size fits in 32 bits"));
    assert!(text.contains("program_cache test kernel"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn later_launches_in_a_process_hit_the_memory_cache() {
    if opencl().is_none() {
        return;
    }
    run_triple();
    let before = thread_stats();
    run_triple();
    let d = thread_stats() - before;
    assert_eq!(
        (
            d.programs_compiled,
            d.programs_from_disk,
            d.programs_from_memory
        ),
        (0, 0, 1)
    );
}
