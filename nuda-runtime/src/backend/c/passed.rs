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

    /// Remembers that it passed.
    pub fn record(&self) {
        self.0.store(&self.1, b"passed");
    }
}
