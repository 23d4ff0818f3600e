//! NVRTC, NVIDIA's run-time CUDA compiler (layer 1, the CUDA backend): finding `libnvrtc`,
//! and compiling a program for one architecture to PTX or CUBIN with its log.
//!
//! cudarc loads `libnvrtc` by name, which finds it only on the loader's path. pip's
//! `nvidia-cuda-nvrtc-cu12` wheel puts it in `site-packages/nvidia/cuda_nvrtc/lib`, off that
//! path, so before cudarc asks, nuda looks there (and in `NUDA_NVRTC`, the CUDA toolkit's
//! usual folders, and wherever `python3` imports `nvidia.cuda_nvrtc` from) and loads it by its
//! full path; the loader then answers cudarc's request by name with the library already
//! loaded.

use cudarc::nvrtc::{result, sys};
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::OnceLock;

/// What one NVRTC compile produced.
pub(crate) struct Compiled {
    /// PTX for a `compute_XX` target, CUBIN for an `sm_XX` one.
    pub image: Vec<u8>,
    /// NVRTC's log: warnings and, with `-Xptxas -v`, ptxas's resource lines.
    pub log: String,
}

/// Why a compile gave no image: NVRTC is missing, or the program did not compile.
pub(crate) enum Failure {
    /// No libnvrtc could be loaded; the text says where nuda looked.
    Missing(String),
    /// NVRTC rejected the program; the text is its log.
    Rejected(String),
}

/// Makes sure libnvrtc is loaded, loading a pip-installed one by path if need be.
pub(crate) fn available() -> Result<(), String> {
    static FOUND: OnceLock<Result<(), String>> = OnceLock::new();
    FOUND.get_or_init(find).clone()
}

fn find() -> Result<(), String> {
    // SAFETY: only tries to open the library; no symbol is called.
    if unsafe { sys::is_culib_present() } {
        return Ok(());
    }
    let tried = candidates();
    for path in &tried {
        if path.is_file() && preload(path) {
            // SAFETY: as above.
            if unsafe { sys::is_culib_present() } {
                return Ok(());
            }
        }
    }
    Err(format!(
        "no NVRTC library (libnvrtc.so.12) on the loader's path, in NUDA_NVRTC or in pip's \
         site-packages; install it with `pip install nvidia-cuda-nvrtc-cu12` or set NUDA_NVRTC \
         to the library's path (looked in: {})",
        tried
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Loads the library at `path` for the rest of the process, its symbols global, so that
/// later loads by its name (`libnvrtc.so.12`) find it.
fn preload(path: &std::path::Path) -> bool {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: libnvrtc's initialisers only set up the compiler's own state.
    match unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) } {
        Ok(lib) => {
            // Kept loaded for the process: cudarc's handle to it is opened by name later.
            std::mem::forget(lib);
            true
        }
        Err(_) => false,
    }
}

/// Where a libnvrtc may be: `NUDA_NVRTC`, the CUDA toolkit's folders, and the
/// `nvidia/cuda_nvrtc/lib` folder of every Python site-packages nuda can think of.
fn candidates() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::env::var_os("NUDA_NVRTC")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    let mut dirs: Vec<PathBuf> = ["/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu"]
        .iter()
        .map(PathBuf::from)
        .collect();
    dirs.extend(site_package_dirs().map(|s| s.join("nvidia/cuda_nvrtc/lib")));
    // Last, the Python on the path, which knows where its own packages are (a conda or venv
    // that torch brought NVIDIA's wheels into, say).
    dirs.extend(python_nvrtc_dir());
    for d in dirs {
        out.push(d.join("libnvrtc.so.12"));
        out.push(d.join("libnvrtc.so"));
    }
    out
}

/// Every Python site-packages nuda can think of: the user's, a virtual environment's and
/// the system's (pip's NVIDIA wheels land in one of them).
pub(super) fn site_package_dirs() -> impl Iterator<Item = PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let venv = std::env::var_os("VIRTUAL_ENV").map(PathBuf::from);
    let roots = [
        home.map(|h| h.join(".local/lib")),
        venv.map(|v| v.join("lib")),
        Some(PathBuf::from("/usr/local/lib")),
        Some(PathBuf::from("/usr/lib")),
    ];
    roots
        .into_iter()
        .flatten()
        .flat_map(|root| site_packages(&root).collect::<Vec<_>>())
}

/// `nvidia/cuda_nvrtc/lib` of the package `python3` imports, if it imports one.
fn python_nvrtc_dir() -> Option<PathBuf> {
    let script = "import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0])";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(dir.trim()).join("lib"))
}

/// `root/python3.*/{site,dist}-packages`, and Debian's `root/python3/dist-packages`.
fn site_packages(root: &std::path::Path) -> impl Iterator<Item = PathBuf> {
    let pythons = std::fs::read_dir(root).into_iter().flatten().flatten();
    pythons
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("python3"))
        })
        .flat_map(|p| [p.join("site-packages"), p.join("dist-packages")])
}

/// NVRTC's version, as `major.minor`.
pub(crate) fn version() -> Result<String, String> {
    available()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is loaded; both pointers are to live integers.
    let r = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    match r {
        sys::nvrtcResult::NVRTC_SUCCESS => Ok(format!("{major}.{minor}")),
        other => Err(format!("nvrtcVersion failed ({other:?})")),
    }
}

/// Compiles `source` (program name `name`) with `options`; `cubin` asks for the CUBIN
/// (an `sm_XX` target) rather than the PTX.
pub(crate) fn compile(
    source: &str,
    name: &str,
    options: &[String],
    cubin: bool,
) -> Result<Compiled, Failure> {
    available().map_err(Failure::Missing)?;
    let src = CString::new(source)
        .map_err(|_| Failure::Rejected("the program contains a NUL byte".into()))?;
    let cname = CString::new(name).unwrap_or_default();
    let prog = result::create_program(&src, Some(&cname))
        .map_err(|e| Failure::Rejected(format!("nvrtcCreateProgram: {e:?}")))?;
    // SAFETY: `prog` was just created and is destroyed once, below, after its last use.
    let built = unsafe { result::compile_program(prog, options) };
    // SAFETY: as above.
    let log = unsafe { result::get_program_log(prog) }
        .map(|l| c_text(&l))
        .unwrap_or_default();
    let image = match built {
        // SAFETY: as above; the program compiled.
        Ok(()) => unsafe { image(prog, cubin) }.map_err(Failure::Rejected),
        Err(_) => Err(Failure::Rejected(log.clone())),
    };
    // SAFETY: as above; not used again.
    let _ = unsafe { result::destroy_program(prog) };
    image.map(|image| Compiled { image, log })
}

/// The compiled image of `prog`.
///
/// # Safety
///
/// `prog` must be a live program that compiled.
unsafe fn image(prog: sys::nvrtcProgram, cubin: bool) -> Result<Vec<u8>, String> {
    if !cubin {
        // SAFETY: the caller's promise.
        let ptx = unsafe { result::get_ptx(prog) }.map_err(|e| format!("nvrtcGetPTX: {e:?}"))?;
        return Ok(c_text(&ptx).into_bytes());
    }
    let mut size = 0usize;
    // SAFETY: the caller's promise; `size` is a live integer.
    let r = unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) };
    if r != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(format!("nvrtcGetCUBINSize: {r:?}"));
    }
    let mut out = vec![0u8; size];
    // SAFETY: the caller's promise; `out` has the `size` bytes NVRTC reported.
    let r = unsafe { sys::nvrtcGetCUBIN(prog, out.as_mut_ptr().cast()) };
    if r != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(format!("nvrtcGetCUBIN: {r:?}"));
    }
    Ok(out)
}

/// A NUL-terminated C string's text.
fn c_text(bytes: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = bytes
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).trim().to_string()
}
