//! Seeds (layer 5, with the tuner): what the repository knows about a tuned call site on a
//! class of device before anything is timed there. A seed gives the order a search times the
//! candidates in, best expected first, so that a search cut short by `NUDA_TUNE_BUDGET` has
//! timed the likely winners; and the candidate to run where no winner is stored and nothing
//! is tuned. Seeds ship in `defaults.json`, written by the bench's
//! `--static sm_90 --write-seeds` from the static lab's bounds (or by hand from a timed
//! run on a lent GPU, saying so in `source`).

use serde::{Deserialize, Serialize};
use std::sync::{Mutex, OnceLock};

/// One tuned call site on one class of device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Seed {
    /// The devices it applies to: those whose name contains one of these.
    pub devices: Vec<String>,
    /// The call site, `file:line:column`, its path's `..` resolved.
    pub site: String,
    /// The candidates' text, in the site's order.
    pub labels: Vec<String>,
    /// The order to time them in, best expected first.
    pub order: Vec<usize>,
    /// The candidate to run where nothing is stored and nothing is tuned.
    pub winner: usize,
    /// Where the order comes from.
    pub source: String,
}

/// The seeds shipped in the repository.
fn shipped() -> &'static [Seed] {
    static SEEDS: OnceLock<Vec<Seed>> = OnceLock::new();
    SEEDS.get_or_init(|| serde_json::from_str(include_str!("defaults.json")).unwrap_or_default())
}

/// What a seed's `devices` are matched against: the device's name, and on the native engine
/// the vector unit its kernels are compiled for in brackets (`wide::tier`, as
/// `[x86-64-avx512]`: the brackets keep `[x86-64]` from matching the wider units), which
/// decides their best register blocks; PoCL's device names carry their CPU class already.
pub(crate) fn class(info: &crate::backend::DeviceInfo) -> String {
    match info.kind {
        crate::backend::DeviceKind::Native => {
            format!("{} [{}]", info.name, crate::backend::native::wide::tier())
        }
        _ => info.name.clone(),
    }
}

/// The seed for `site` with these candidates on a device named `device`, if one is shipped.
pub(crate) fn find(device: &str, site: &str, labels: &[&str]) -> Option<&'static Seed> {
    find_in(shipped(), device, site, labels)
}

fn find_in<'s>(seeds: &'s [Seed], device: &str, site: &str, labels: &[&str]) -> Option<&'s Seed> {
    let site = normalize(site);
    seeds.iter().find(|s| {
        s.site == site
            && s.labels
                .iter()
                .map(String::as_str)
                .eq(labels.iter().copied())
            && s.devices.iter().any(|d| device.contains(d.as_str()))
            && valid(s)
    })
}

/// Whether a seed's indices name its candidates, each once in the order.
fn valid(s: &Seed) -> bool {
    let mut seen = vec![false; s.labels.len()];
    s.winner < s.labels.len()
        && s.order
            .iter()
            .all(|&k| k < seen.len() && !std::mem::replace(&mut seen[k], true))
}

/// `k` in the seed's order first, then every other candidate in the site's order.
pub(crate) fn order(seed: Option<&Seed>, n: usize) -> Vec<usize> {
    let mut out: Vec<usize> = seed.map_or_else(Vec::new, |s| s.order.clone());
    out.retain(|&k| k < n);
    let rest: Vec<usize> = (0..n).filter(|k| !out.contains(k)).collect();
    out.extend(rest);
    out
}

/// `file:line:column` with `a/../` taken out of the path (`crate::fault::tidy_paths`), so
/// that a file included through `#[path = "../../examples/.."]` has the same site as when
/// compiled where it is.
pub(crate) fn normalize(site: &str) -> String {
    crate::fault::tidy_paths(site)
}

/// The seeds the static lab ranked in this process (see `take_learned`).
static LEARNED: Mutex<Vec<Seed>> = Mutex::new(Vec::new());

/// Keeps a ranking the lab made.
pub(crate) fn learn(seed: Seed) {
    let mut all = LEARNED.lock().unwrap_or_else(|e| e.into_inner());
    all.retain(|s| (s.site.as_str(), &s.labels) != (seed.site.as_str(), &seed.labels));
    all.push(seed);
}

/// The seeds the static lab made in this process, for the bench to write into
/// `defaults.json`: every tuned call site a lab device ran, its candidates ranked by their
/// static bound.
pub fn take_learned() -> Vec<Seed> {
    std::mem::take(&mut LEARNED.lock().unwrap_or_else(|e| e.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_seeds_parse_and_name_their_candidates() {
        let seeds: Vec<Seed> = serde_json::from_str(include_str!("defaults.json")).unwrap();
        assert!(seeds.iter().all(valid), "{seeds:?}");
        assert_eq!(shipped().len(), seeds.len());
    }

    /// A native seed names the vector unit: it applies to the native engine on that class
    /// of CPU, never to a PoCL device whose name mentions the same extension.
    #[test]
    fn native_seeds_name_the_vector_unit() {
        let native = crate::backend::native::NativeEngine::new(0);
        let class = class(crate::backend::Backend::info(&native));
        let tier = crate::backend::native::wide::tier();
        let token = format!("[{tier}]");
        assert!(
            class.starts_with("native engine") && class.ends_with(&token),
            "{class}"
        );
        let all = [Seed {
            devices: vec![token],
            site: "a.rs:1:1".into(),
            labels: vec!["a".into(), "b".into()],
            order: vec![1, 0],
            winner: 1,
            source: String::new(),
        }];
        assert!(find_in(&all, &class, "a.rs:1:1", &["a", "b"]).is_some());
        let pocl = "pthread-skylake-avx512-AMD EPYC";
        assert!(find_in(&all, pocl, "a.rs:1:1", &["a", "b"]).is_none());
        let base = [Seed {
            devices: vec!["[x86-64]".into()],
            ..all[0].clone()
        }];
        let wide = "native engine (rayon, 2 threads) [x86-64-avx512]";
        assert!(find_in(&base, wide, "a.rs:1:1", &["a", "b"]).is_none());
    }

    #[test]
    fn sites_through_parent_directories_are_the_same_site() {
        assert_eq!(
            normalize("benches/model_problems/../../examples/sgemm/kernels.rs:195:17"),
            "examples/sgemm/kernels.rs:195:17"
        );
        assert_eq!(normalize("a/b/../../c/d.rs:1:2"), "c/d.rs:1:2");
        assert_eq!(normalize("../x.rs:1:2"), "../x.rs:1:2");
    }

    #[test]
    fn an_order_names_every_candidate_once() {
        let s = Seed {
            devices: vec!["H200".into()],
            site: "a.rs:1:1".into(),
            labels: vec!["a".into(), "b".into(), "c".into()],
            order: vec![2, 0],
            winner: 2,
            source: String::new(),
        };
        assert!(valid(&s));
        assert_eq!(order(Some(&s), 3), vec![2, 0, 1]);
        assert_eq!(order(None, 3), vec![0, 1, 2]);
        assert!(!valid(&Seed {
            order: vec![2, 2],
            ..s.clone()
        }));
        assert!(!valid(&Seed {
            winner: 3,
            ..s.clone()
        }));
        let all = [s];
        let labels = ["a", "b", "c"];
        assert!(find_in(&all, "NVIDIA H200", "x/../a.rs:1:1", &labels).is_some());
        assert!(find_in(&all, "NVIDIA A100-SXM4-80GB", "a.rs:1:1", &labels).is_none());
        assert!(find_in(&all, "NVIDIA H200", "a.rs:1:1", &["a", "b"]).is_none());
        assert!(find_in(&all, "NVIDIA H200", "b.rs:1:1", &labels).is_none());
    }
}
