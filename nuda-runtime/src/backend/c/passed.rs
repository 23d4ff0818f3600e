//! Clean offline compile checks remembered on disk (layer 1, shared by the backends' compile
//! checks: NVRTC's, hiprtc's and clang's for AMD GPUs). The many processes of one test run
//! then compile each program once per checker. Not with `NUDA_DUMP`, which wants every
//! program's files written.

use super::disk_cache::DiskCache;

/// A check's memo: where it is kept and its key.
pub(crate) struct Passed(DiskCache, String);

impl Passed {
    /// The memo of `text` checked by `checker` (a name and version, such as `nvrtc 12.9`) with
    /// `options`, kept in the cache's folder `folder` (`nvrtc-checks`); `None` when the cache is
    /// off or a dump is asked for.
    pub fn new(folder: &str, checker: &str, text: &str, options: &[String]) -> Option<Passed> {
        let config = crate::config::config();
        let dir = config
            .cache
            .clone()
            .ok()
            .flatten()
            .filter(|_| config.dump.is_none())?;
        let key =
            DiskCache::key_of_text(&format!("{checker} check\n{}\n{text}", options.join(" ")));
        // A folder per checker: the cache's top level holds program binaries only.
        Some(Passed(DiskCache::new(dir.join(folder)), key))
    }

    /// Whether this check passed before.
    pub fn seen(&self) -> bool {
        self.0.load(&self.1).is_some()
    }

    /// Whether an AMD check may skip its compile: it passed before, and the static lab does
    /// not collect what AMD's compilers make of each launch.
    pub fn skips_amd(passed: &Option<Passed>) -> bool {
        !super::amd_lab::collecting() && passed.as_ref().is_some_and(Passed::seen)
    }

    /// Remembers that it passed.
    pub fn record(&self) {
        self.0.store(&self.1, b"passed");
    }
}

/// Each program's outcome under one checker, per (program, index type).
pub(crate) type Seen = std::sync::Mutex<
    std::collections::HashMap<(usize, usize, crate::backend::IndexType), crate::error::Result<()>>,
>;

/// `check` for every architecture in `archs` (a checker's list, or its setting's error), run
/// once per program and index type in this process; later calls get the first outcome.
pub(crate) fn once_per_process(
    seen: &'static std::sync::OnceLock<Seen>,
    archs: &crate::error::Result<Vec<String>>,
    (source, index): (&crate::backend::KernelSource, crate::backend::IndexType),
    check: impl Fn(&str) -> crate::error::Result<()>,
) -> crate::error::Result<()> {
    // Every source-form launch passes here: no clone of the list when the mode is off.
    let archs = archs.as_ref().map_err(Clone::clone)?;
    if archs.is_empty() {
        return Ok(());
    }
    remembered(seen, (source, index), || {
        archs.iter().try_for_each(|a| check(a))
    })
}

/// `run`'s outcome for this program and index type: run once per process, remembered in
/// `seen`, and given again to later calls; run every time while the static lab collects what
/// AMD's compilers make of each launch.
pub(crate) fn remembered(
    seen: &'static std::sync::OnceLock<Seen>,
    (source, index): (&crate::backend::KernelSource, crate::backend::IndexType),
    run: impl FnOnce() -> crate::error::Result<()>,
) -> crate::error::Result<()> {
    use std::sync::PoisonError;
    if super::amd_lab::collecting() {
        return run();
    }
    let seen = seen.get_or_init(Seen::default);
    let key = (source.source.as_ptr() as usize, source.source.len(), index);
    let known = seen
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .cloned();
    if let Some(done) = known {
        return done;
    }
    let outcome = run();
    seen.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(key, outcome.clone());
    outcome
}
