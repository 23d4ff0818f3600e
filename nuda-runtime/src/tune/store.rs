//! Where tuning winners live: a process-wide map, and `tune.json` in the cache directory.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// One site's result on one device.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    /// The winning candidate's index and text.
    pub winner: usize,
    pub label: String,
    /// Each candidate's best time in milliseconds; `null` for a dropped one.
    pub ms: Vec<Option<f64>>,
}

fn memo() -> &'static Mutex<HashMap<String, usize>> {
    static MEMO: OnceLock<Mutex<HashMap<String, usize>>> = OnceLock::new();
    MEMO.get_or_init(Mutex::default)
}

/// `tune.json` in the cache directory, if the cache is on.
pub(crate) fn path() -> Option<PathBuf> {
    let dir = crate::config::config().cache.as_ref().ok()?.clone()?;
    Some(dir.join("tune.json"))
}

fn load() -> BTreeMap<String, Record> {
    let text = path().and_then(|p| std::fs::read_to_string(p).ok());
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// The stored winner of `key`, if it names one of `labels`.
pub(crate) fn winner(key: &str, labels: &[&str]) -> Option<usize> {
    let mut m = memo().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&k) = m.get(key) {
        return Some(k);
    }
    let r = load().remove(key)?;
    let ok = labels.get(r.winner) == Some(&r.label.as_str());
    ok.then(|| {
        m.insert(key.to_string(), r.winner);
        r.winner
    })
}

/// Keeps the winner of `key`, in memory and on disk (best effort: a read-only cache only
/// costs a later run its search).
pub(crate) fn record(key: &str, labels: &[&str], winner: usize, times: &[Option<f64>]) {
    let mut m = memo().lock().unwrap_or_else(|e| e.into_inner());
    m.insert(key.to_string(), winner);
    let Some(p) = path() else { return };
    let mut all = load();
    all.insert(
        key.to_string(),
        Record {
            winner,
            label: labels[winner].to_string(),
            ms: times.iter().map(|t| t.map(|s| s * 1e3)).collect(),
        },
    );
    let Ok(text) = serde_json::to_string_pretty(&all) else {
        return;
    };
    let _ = std::fs::create_dir_all(p.parent().unwrap_or(&p));
    // Written beside and renamed, so a concurrent reader sees the old file or the new one;
    // named per process and per call, so two writers never share a temporary.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = p.with_extension(format!("json.{}.{n}", std::process::id()));
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, &p);
    }
}
