//! Environment configuration: `NUDA_ENGINE`, `NUDA_DEVICE`, `NUDA_CACHE`, `NUDA_CACHE_DIR`,
//! `NUDA_DUMP`, `NUDA_PROOF`, `NUDA_CL_WERROR`, `NUDA_CL_SUBGROUPS`, `NUDA_CL_PINNED`, `NUDA_PIN_HOST`, `NUDA_TUNE`, `NUDA_CUDA_CHECK`. Parsing is pure so that every malformed value
//! can be unit tested; the runtime reads the environment once, at first use ([`config`]).
//! Layer 0.

use crate::error::{Error, Result};
use std::path::PathBuf;

/// Which engines may run kernels (`NUDA_ENGINE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineChoice {
    /// CUDA and OpenCL devices if any exist, and the native engine after them.
    Auto,
    /// OpenCL devices only; no OpenCL is an error.
    OpenCl,
    /// CUDA devices only; no CUDA driver or GPU is an error.
    Cuda,
    /// HIP devices (AMD GPUs through ROCm) only; no HIP runtime or GPU is an error.
    Hip,
    /// The native engine only.
    Native,
}

/// A device named by `NUDA_DEVICE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceChoice {
    /// A nuda device index, as `nuda::devices()` lists it.
    Index(usize),
    /// A case-insensitive substring of the device name.
    Name(String),
}

/// What the environment asks for; each field holds its own parse error.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub engine: Result<EngineChoice>,
    pub device: Result<Option<DeviceChoice>>,
    pub cache: Result<Option<PathBuf>>,
    pub dump: Option<PathBuf>,
    /// `NUDA_PROOF=0` keeps every check and 64-bit `usize` (to rule the proof out when
    /// debugging); on by default.
    pub proof: Result<bool>,
    /// `NUDA_CL_WERROR=1` builds generated OpenCL C with `-Werror` (nuda's tests set it);
    /// off by default.
    pub werror: Result<bool>,
    /// `NUDA_CL_SUBGROUPS`: which OpenCL devices run the warp path in sub-groups of 32.
    pub subgroups: Result<GpuScope>,
    /// `NUDA_CL_PINNED`: which OpenCL devices stage large transfers through pinned memory.
    pub pinned: Result<GpuScope>,
    /// `NUDA_PIN_HOST`: whether the backends that can (CUDA, HIP) page-lock an array's host
    /// copy of 4 MiB or more once it has moved often, so later copies skip the staging
    /// (default on; `memory/host.rs`).
    pub pin_host: Result<bool>,
    /// `NUDA_TUNE`: how tuned call sites pick their candidate (see `tune`).
    pub tune: Result<TuneMode>,
    /// `NUDA_CUDA_CHECK=sm_80,sm_90`: every source-form program is also compiled by NVRTC
    /// for these architectures before its launch (empty: off).
    pub cuda_check: Result<Vec<String>>,
    /// `NUDA_HIP_CHECK=gfx90a,gfx1030`: every source-form program is also compiled by
    /// hiprtc, in the HIP dialect, for these AMD architectures (empty: off).
    pub hip_check: Result<Vec<String>>,
    /// `NUDA_AMDGCN_CHECK=gfx90a,gfx940`: every source-form program's OpenCL C is also
    /// compiled by clang for `amdgcn-amd-amdhsa`, as ROCm's OpenCL runtime would (empty: off).
    pub amdgcn_check: Result<Vec<String>>,
    /// `NUDA_TUNE_BUDGET=seconds`: a search times no new candidate past this (unset: no
    /// limit).
    pub tune_budget: Result<Option<f64>>,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The process's configuration, read from the environment at first use.
pub(crate) fn config() -> &'static Config {
    static CONFIG: std::sync::OnceLock<Config> = std::sync::OnceLock::new();
    CONFIG.get_or_init(Config::from_env)
}

impl Config {
    pub fn from_env() -> Config {
        let cache_dir = var("NUDA_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| dirs::cache_dir().map(|d| d.join("nuda")));
        Config {
            engine: EngineChoice::parse(var("NUDA_ENGINE").as_deref()),
            device: DeviceChoice::parse(var("NUDA_DEVICE").as_deref()),
            cache: parse_switch("NUDA_CACHE", var("NUDA_CACHE").as_deref()).map(|on| {
                if on {
                    cache_dir
                } else {
                    None
                }
            }),
            dump: var("NUDA_DUMP").map(PathBuf::from),
            proof: parse_switch("NUDA_PROOF", var("NUDA_PROOF").as_deref()),
            werror: var("NUDA_CL_WERROR")
                .map_or(Ok(false), |v| parse_switch("NUDA_CL_WERROR", Some(&v))),
            subgroups: GpuScope::parse("NUDA_CL_SUBGROUPS", var("NUDA_CL_SUBGROUPS").as_deref()),
            pinned: GpuScope::parse("NUDA_CL_PINNED", var("NUDA_CL_PINNED").as_deref()),
            pin_host: parse_switch("NUDA_PIN_HOST", var("NUDA_PIN_HOST").as_deref()),
            tune: TuneMode::parse(var("NUDA_TUNE").as_deref()),
            cuda_check: parse_architectures(var("NUDA_CUDA_CHECK").as_deref()),
            hip_check: parse_amd_architectures("NUDA_HIP_CHECK", var("NUDA_HIP_CHECK").as_deref()),
            amdgcn_check: parse_amd_architectures(
                "NUDA_AMDGCN_CHECK",
                var("NUDA_AMDGCN_CHECK").as_deref(),
            ),
            tune_budget: parse_seconds("NUDA_TUNE_BUDGET", var("NUDA_TUNE_BUDGET").as_deref()),
        }
    }
}

/// Which OpenCL devices take a path meant for GPUs (`NUDA_CL_SUBGROUPS`, `NUDA_CL_PINNED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuScope {
    /// GPUs and accelerators only (the default): on a CPU device such a path costs more than
    /// it buys (sub-groups of 32 made Intel's CPU runtime run scans ten times slower; pinned
    /// staging adds a copy where device memory is host memory).
    Auto,
    /// Every device that can, CPUs too: how these paths are tested without a GPU.
    On,
    /// None.
    Off,
}

impl GpuScope {
    /// Parses `var`'s value: unset or `auto`, `1` or `0`.
    pub fn parse(var: &'static str, value: Option<&str>) -> Result<GpuScope> {
        let Some(v) = value else {
            return Ok(GpuScope::Auto);
        };
        match v.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(GpuScope::Auto),
            "1" | "on" | "true" | "yes" => Ok(GpuScope::On),
            "0" | "off" | "false" | "no" => Ok(GpuScope::Off),
            _ => Err(Error::BadConfig {
                var,
                value: v.into(),
                expected: "auto (GPUs only), 1 (every device that can) or 0 (none)",
            }),
        }
    }

    /// Whether a device takes the path: `gpu` says whether it is a GPU or an accelerator.
    pub fn takes(self, gpu: bool) -> bool {
        match self {
            GpuScope::Auto => gpu,
            GpuScope::On => true,
            GpuScope::Off => false,
        }
    }
}

/// Parses a number of seconds, positive.
pub fn parse_seconds(name: &'static str, value: Option<&str>) -> Result<Option<f64>> {
    let Some(v) = value else { return Ok(None) };
    match v.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => Ok(Some(s)),
        _ => Err(Error::BadConfig {
            var: name,
            value: v.into(),
            expected: "a positive number of seconds, such as 30 or 2.5",
        }),
    }
}

/// Parses `NUDA_CUDA_CHECK`: a comma-separated list of `sm_XX` architectures.
pub fn parse_architectures(value: Option<&str>) -> Result<Vec<String>> {
    let Some(v) = value else {
        return Ok(Vec::new());
    };
    let archs: Vec<String> = v
        .split(',')
        .map(|a| a.trim().to_ascii_lowercase())
        .collect();
    let bad = archs.iter().find(|a| {
        let digits = a.strip_prefix("sm_").unwrap_or("");
        digits.len() < 2
            || !digits
                .trim_end_matches(['a', 'f'])
                .chars()
                .all(|c| c.is_ascii_digit())
    });
    match bad {
        Some(a) => Err(Error::BadSelection {
            source: "NUDA_CUDA_CHECK".into(),
            value: v.into(),
            reason: format!("`{a}` is not a CUDA architecture"),
            choices: "a comma-separated list of sm_XX, such as sm_80,sm_90".into(),
        }),
        None => Ok(archs),
    }
}

/// Parses `NUDA_HIP_CHECK` or `NUDA_AMDGCN_CHECK`: a comma-separated list of AMD GPU
/// architectures, `gfx` and hexadecimal digits (`gfx90a`, `gfx1030`).
pub fn parse_amd_architectures(name: &'static str, value: Option<&str>) -> Result<Vec<String>> {
    let Some(v) = value else {
        return Ok(Vec::new());
    };
    let archs: Vec<String> = v
        .split(',')
        .map(|a| a.trim().to_ascii_lowercase())
        .collect();
    let bad = archs.iter().find(|a| {
        let digits = a.strip_prefix("gfx").unwrap_or("");
        digits.len() < 3 || !digits.chars().all(|c| c.is_ascii_hexdigit())
    });
    match bad {
        Some(a) => Err(Error::BadSelection {
            source: name.into(),
            value: v.into(),
            reason: format!("`{a}` is not an AMD GPU architecture"),
            choices: "a comma-separated list of gfxNNN, such as gfx90a,gfx1030".into(),
        }),
        None => Ok(archs),
    }
}

impl EngineChoice {
    /// Parses `NUDA_ENGINE`: `auto` (or unset), `opencl` or `native`, in any case.
    pub fn parse(value: Option<&str>) -> Result<EngineChoice> {
        let Some(v) = value else {
            return Ok(EngineChoice::Auto);
        };
        match v.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(EngineChoice::Auto),
            "opencl" | "ocl" | "cl" => Ok(EngineChoice::OpenCl),
            "cuda" | "nvidia" => Ok(EngineChoice::Cuda),
            "hip" | "rocm" | "amd" => Ok(EngineChoice::Hip),
            "native" | "rayon" | "cpu-native" => Ok(EngineChoice::Native),
            _ => Err(Error::BadSelection {
                source: "NUDA_ENGINE".into(),
                value: v.into(),
                reason: "unknown engine".into(),
                choices: "auto, cuda, hip, opencl, native".into(),
            }),
        }
    }
}

impl DeviceChoice {
    /// Parses `NUDA_DEVICE`: a device index, or a name substring.
    pub fn parse(value: Option<&str>) -> Result<Option<DeviceChoice>> {
        let Some(v) = value.map(str::trim) else {
            return Ok(None);
        };
        if v.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
            return match v.parse::<usize>() {
                Ok(i) => Ok(Some(DeviceChoice::Index(i))),
                Err(_) => Err(Error::BadSelection {
                    source: "NUDA_DEVICE".into(),
                    value: v.into(),
                    reason: "not a device index (a whole number from 0) nor a name".into(),
                    choices: "an index or a name substring from `nuda::devices()`".into(),
                }),
            };
        }
        Ok(Some(DeviceChoice::Name(v.to_lowercase())))
    }
}

/// Parses an on/off switch such as `NUDA_CACHE`; unset means on.
pub(crate) fn parse_switch(var: &'static str, value: Option<&str>) -> Result<bool> {
    let Some(v) = value else { return Ok(true) };
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "on" | "true" | "yes" => Ok(true),
        "0" | "off" | "false" | "no" => Ok(false),
        _ => Err(Error::BadConfig {
            var,
            value: v.into(),
            expected: "0 or 1 (off/on)",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_scope_values() {
        let parse = |v| GpuScope::parse("NUDA_CL_PINNED", v);
        assert_eq!(parse(None).unwrap(), GpuScope::Auto);
        assert_eq!(parse(Some(" AUTO ")).unwrap(), GpuScope::Auto);
        assert_eq!(parse(Some("1")).unwrap(), GpuScope::On);
        assert_eq!(parse(Some("off")).unwrap(), GpuScope::Off);
        let e = parse(Some("cpu")).unwrap_err().to_string();
        assert!(e.contains("NUDA_CL_PINNED") && e.contains("auto"), "{e}");
        assert!(GpuScope::Auto.takes(true) && !GpuScope::Auto.takes(false));
        assert!(GpuScope::On.takes(false) && !GpuScope::Off.takes(true));
    }

    #[test]
    fn engine_values() {
        assert_eq!(EngineChoice::parse(None).unwrap(), EngineChoice::Auto);
        assert_eq!(
            EngineChoice::parse(Some("OpenCL")).unwrap(),
            EngineChoice::OpenCl
        );
        assert_eq!(
            EngineChoice::parse(Some("native")).unwrap(),
            EngineChoice::Native
        );
        assert_eq!(
            EngineChoice::parse(Some("CUDA")).unwrap(),
            EngineChoice::Cuda
        );
        let e = EngineChoice::parse(Some("metal")).unwrap_err().to_string();
        assert!(
            e.contains("NUDA_ENGINE") && e.contains("auto, cuda, hip, opencl, native"),
            "{e}"
        );
    }

    #[test]
    fn device_values() {
        assert_eq!(
            DeviceChoice::parse(Some(" 2 ")).unwrap(),
            Some(DeviceChoice::Index(2))
        );
        assert_eq!(
            DeviceChoice::parse(Some("GeForce")).unwrap(),
            Some(DeviceChoice::Name("geforce".into()))
        );
        assert_eq!(DeviceChoice::parse(None).unwrap(), None);
        for bad in ["-1", "1x", "99999999999999999999999"] {
            let e = DeviceChoice::parse(Some(bad)).unwrap_err().to_string();
            assert!(e.contains("NUDA_DEVICE"), "{e}");
        }
    }

    #[test]
    fn switches() {
        assert!(parse_switch("NUDA_CACHE", None).unwrap());
        assert!(!parse_switch("NUDA_CACHE", Some("0")).unwrap());
        assert!(parse_switch("NUDA_CACHE", Some("maybe")).is_err());
    }
}

/// What `NUDA_TUNE` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TuneMode {
    /// The first candidate, always.
    Off,
    /// A stored winner, else the first candidate.
    Use,
    /// A stored winner, else tune now.
    Tune,
    /// Tune now, whatever is stored.
    Force,
}

impl TuneMode {
    /// Parses `NUDA_TUNE`: unset, `0`, `1` or `force`.
    pub fn parse(value: Option<&str>) -> Result<TuneMode> {
        let Some(v) = value else {
            return Ok(TuneMode::Use);
        };
        match v.trim().to_ascii_lowercase().as_str() {
            "0" | "off" | "false" | "no" => Ok(TuneMode::Off),
            "1" | "on" | "true" | "yes" => Ok(TuneMode::Tune),
            "force" => Ok(TuneMode::Force),
            _ => Err(Error::BadConfig {
                var: "NUDA_TUNE",
                value: v.into(),
                expected: "0, 1 or force",
            }),
        }
    }
}
