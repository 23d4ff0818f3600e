//! The on-disk cache of program binaries, under `NUDA_CACHE_DIR` (default: the user cache
//! directory plus `/nuda`). `NUDA_CACHE=0` turns it off.
//!
//! An entry is keyed by a SHA-256 of the device name, vendor, platform, driver version and the
//! complete program text, so a new driver or a changed kernel never meets an old binary. The
//! file holds a magic, its key, the payload length and the payload's own digest: a truncated or
//! corrupt entry fails the check and is rebuilt. Writes go to a temporary file renamed into
//! place, so concurrent processes never read half an entry.

use crate::backend::DeviceInfo;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

const MAGIC: &[u8; 8] = b"NUDABIN1";

pub(crate) struct DiskCache {
    dir: PathBuf,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl DiskCache {
    pub fn new(dir: PathBuf) -> DiskCache {
        DiskCache { dir }
    }

    /// The cache key of `text` built for `info`.
    pub fn key(info: &DeviceInfo, text: &str) -> String {
        let mut h = Sha256::new();
        for part in [
            &info.name,
            &info.vendor,
            &info.platform,
            &info.driver_version,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.update(text.as_bytes());
        hex(&h.finalize())
    }

    /// A digest of a program text alone, for dump file names.
    pub fn key_of_text(text: &str) -> String {
        hex(&Sha256::digest(text.as_bytes()))
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.clbin"))
    }

    /// The binary stored under `key`, if present and intact.
    pub fn load(&self, key: &str) -> Option<Vec<u8>> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let payload = parse(&bytes, key);
        if payload.is_none() {
            // Corrupt: drop it so the rebuilt binary replaces it.
            let _ = std::fs::remove_file(self.path(key));
        }
        payload
    }

    /// Stores `binary` under `key`. The cache is an optimisation: failures are reported once
    /// on stderr and otherwise ignored.
    pub fn store(&self, key: &str, binary: &[u8]) {
        if let Err(e) = self.try_store(key, binary) {
            static WARNED: AtomicBool = AtomicBool::new(false);
            if !WARNED.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "nuda: cannot write the program cache in {}: {e}",
                    self.dir.display()
                );
            }
        }
    }

    fn try_store(&self, key: &str, binary: &[u8]) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut entry = Vec::with_capacity(binary.len() + 112);
        entry.extend_from_slice(MAGIC);
        entry.extend_from_slice(key.as_bytes());
        entry.extend_from_slice(&(binary.len() as u64).to_le_bytes());
        entry.extend_from_slice(&Sha256::digest(binary));
        entry.extend_from_slice(binary);
        // Unique per process and per write: two threads (two devices of one model, say) may
        // store the same key at once, and each must rename a file it wrote whole.
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = self
            .dir
            .join(format!("{key}.{}.{n}.tmp", std::process::id()));
        std::fs::write(&tmp, &entry)?;
        std::fs::rename(&tmp, self.path(key))
    }
}

/// The payload of an entry if its header matches `key` and its digest matches its bytes.
fn parse(bytes: &[u8], key: &str) -> Option<Vec<u8>> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let rest = rest.strip_prefix(key.as_bytes())?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let (digest, payload) = rest.split_first_chunk::<32>()?;
    let whole = u64::from_le_bytes(*len) == payload.len() as u64;
    let intact = Sha256::digest(payload).as_slice() == digest;
    (whole && intact && !payload.is_empty()).then(|| payload.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> (DiskCache, PathBuf) {
        let dir = std::env::temp_dir().join(format!("nuda-disk-cache-test-{}", std::process::id()));
        (DiskCache::new(dir.clone()), dir)
    }

    #[test]
    fn round_trip_and_corruption() {
        let (c, dir) = cache();
        c.store("k1", b"binary bits");
        assert_eq!(c.load("k1").as_deref(), Some(&b"binary bits"[..]));
        let path = dir.join("k1.clbin");
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(c.load("k1"), None, "a flipped bit must fail the digest");
        assert!(!path.exists(), "a corrupt entry is removed");
        std::fs::write(&path, &bytes[..20]).unwrap();
        assert_eq!(c.load("k1"), None, "a truncated entry is rejected");
        assert_eq!(c.load("absent"), None);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn key_depends_on_driver_and_text() {
        let mut info = crate::device::test::fake("gpu", crate::DeviceKind::Gpu, 0);
        let k1 = DiskCache::key(&info, "kernel void f() {}");
        assert_ne!(k1, DiskCache::key(&info, "kernel void g() {}"));
        info.driver_version = "2.0".into();
        assert_ne!(k1, DiskCache::key(&info, "kernel void f() {}"));
    }
}
