//! hiprtc, AMD's run-time HIP compiler (layer 1, the HIP backend): finding it (ROCm 6's
//! `libhiprtc`, or ROCm 5's `libamdhip64`, which carries it), and compiling a program for
//! one architecture to a code object with its log.
//!
//! Each compile runs in a child process (`fork`): the hiprtc of ROCm 5.2 (Debian's) aborts
//! the whole process on an architecture it does not know (gfx940 and newer), and a check
//! must answer with an `Err` and let the next launch run. The parent never calls into
//! hiprtc itself (it only loads the library and looks up symbols), so no lock of hiprtc's is
//! held by another thread when a child is forked; glibc resets malloc's locks in the child.
//! A child that neither answers nor exits within [`TIMEOUT`] is killed.
//!
//! The library is loaded into a link-map namespace of its own (`dlmopen`): hiprtc's
//! compiler (comgr) brings clang and LLVM, and where PoCL is loaded too, both register
//! LLVM's command-line options in one registry and LLVM aborts ("registered more than
//! once"). In its own namespace hiprtc has its own copy of LLVM.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// What one compile produced.
pub(crate) struct Compiled {
    /// The code object: an AMDGPU ELF.
    pub code: Vec<u8>,
    /// hiprtc's log (warnings).
    pub log: String,
}

/// Why a compile gave no code object.
pub(crate) enum Failure {
    /// No hiprtc could be loaded; the text says where nuda looked.
    Missing(String),
    /// hiprtc rejected the program; the text is its log.
    Rejected(String),
    /// The compiler crashed or hung (an architecture it does not know, say).
    Crashed(String),
}

/// The longest a compile may take before its child is killed.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(300);

type Prog = *mut c_void;

/// hiprtc's entry points, loaded once.
struct Api {
    create: unsafe extern "C" fn(
        *mut Prog,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int,
    compile: unsafe extern "C" fn(Prog, c_int, *const *const c_char) -> c_int,
    log_size: unsafe extern "C" fn(Prog, *mut usize) -> c_int,
    log: unsafe extern "C" fn(Prog, *mut c_char) -> c_int,
    code_size: unsafe extern "C" fn(Prog, *mut usize) -> c_int,
    code: unsafe extern "C" fn(Prog, *mut c_char) -> c_int,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int,
    /// The namespace's own C library's per-thread character tables, which it sets up for
    /// its first thread only: any other thread that calls hiprtc must call this first
    /// (hiprtc's `isspace` crashed without it).
    ctype_init: Option<unsafe extern "C" fn()>,
    /// Which library it came from, for the cache key and messages.
    path: String,
}

// SAFETY: function pointers into a library that is never unloaded.
unsafe impl Send for Api {}
// SAFETY: as above; nothing here is mutated after loading.
unsafe impl Sync for Api {}

/// Where hiprtc may be: `NUDA_HIPRTC`, ROCm 6's own library, then ROCm 5's runtime.
fn candidates() -> Vec<String> {
    let mut c: Vec<String> = std::env::var("NUDA_HIPRTC").into_iter().collect();
    for name in [
        "libhiprtc.so.6",
        "libhiprtc.so",
        "libamdhip64.so.6",
        "libamdhip64.so.5",
    ] {
        c.push(name.into());
        c.push(format!("/opt/rocm/lib/{name}"));
    }
    c
}

fn api() -> Result<&'static Api, String> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<Api, String> {
    let tried = candidates();
    for path in &tried {
        let Ok(name) = CString::new(path.as_str()) else {
            continue;
        };
        // SAFETY: loading a library runs its initialisers; these are AMD's HIP libraries,
        // whose initialisers only set up their own state, in a namespace of their own.
        let lib = unsafe { libc::dlmopen(libc::LM_ID_NEWLM, name.as_ptr(), libc::RTLD_NOW) };
        if lib.is_null() {
            continue;
        }
        // SAFETY: `lib` is a loaded library's handle.
        if let Some(api) = unsafe { symbols(lib, path) } {
            return Ok(api);
        }
    }
    Err(format!(
        "no hiprtc (AMD's HIP compiler) could be loaded; install it with `apt-get install \
         libamdhip64-5` (Debian, ROCm 5.2) or ROCm, or set NUDA_HIPRTC to the library's path \
         (looked for: {})",
        tried.join(", ")
    ))
}

/// hiprtc's symbols in `lib`, if it has them (the library stays loaded for the process).
///
/// # Safety
///
/// `lib` is a handle `dlmopen` returned.
unsafe fn symbols(lib: *mut c_void, path: &str) -> Option<Api> {
    let sym = |name: &CStr| {
        // SAFETY: the caller's handle; a NUL-terminated name.
        let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    };
    // SAFETY: each symbol has hiprtc's documented C signature (hiprtc.h), which the field's
    // function type spells.
    unsafe {
        Some(Api {
            create: as_fn(sym(c"hiprtcCreateProgram")?),
            compile: as_fn(sym(c"hiprtcCompileProgram")?),
            log_size: as_fn(sym(c"hiprtcGetProgramLogSize")?),
            log: as_fn(sym(c"hiprtcGetProgramLog")?),
            code_size: as_fn(sym(c"hiprtcGetCodeSize")?),
            code: as_fn(sym(c"hiprtcGetCode")?),
            version: as_fn(sym(c"hiprtcVersion")?),
            ctype_init: sym(c"__ctype_init").map(|p| as_fn(p)),
            path: path.to_string(),
        })
    }
}

/// A symbol's address as the function pointer type `F`.
///
/// # Safety
///
/// `F` is a function pointer type with the symbol's C signature.
unsafe fn as_fn<F>(p: *mut c_void) -> F {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>()) };
    // SAFETY: the caller's contract; `F` is pointer-sized, as checked above.
    unsafe { std::mem::transmute_copy(&p) }
}

/// hiprtc's version and library, for cache keys and messages.
pub(crate) fn version() -> Result<String, String> {
    let api = api()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two out-parameters, as hiprtc.h declares; the call reads no other state.
    let status = unsafe { (api.version)(&mut major, &mut minor) };
    match status {
        0 => Ok(format!("hiprtc {major}.{minor} ({})", api.path)),
        s => Err(format!("hiprtcVersion failed with status {s}")),
    }
}

/// The stack of the thread that forks the compiling child, which the child's compile runs
/// on: clang recurses deeply, and a test harness's threads have 2 MiB (hiprtc crashed with
/// SIGSEGV on larger kernels there).
const STACK: usize = 256 << 20;

/// `text` compiled by hiprtc with `options`, in a child process; `name` names the program.
/// A child killed by a signal is tried once more: ROCm 5.2's hiprtc once crashed (SIGSEGV)
/// compiling a 10-line kernel for gfx90a that it compiles every other time (session 45's
/// CI); a crash that comes back, as gfx940's abort does, is reported.
pub(crate) fn compile(text: &str, name: &str, options: &[String]) -> Result<Compiled, Failure> {
    match compile_once(text, name, options) {
        Err(Failure::Crashed(why)) if why.starts_with("hiprtc crashed") => {
            compile_once(text, name, options).map_err(|e| match e {
                Failure::Crashed(again) => Failure::Crashed(format!("{again}, twice")),
                other => other,
            })
        }
        answer => answer,
    }
}

/// One compile of [`compile`]'s, on a thread of its own that forks the child.
fn compile_once(text: &str, name: &str, options: &[String]) -> Result<Compiled, Failure> {
    let api = api().map_err(Failure::Missing)?;
    let (text, name, options) = (text.to_string(), name.to_string(), options.to_vec());
    let forker = std::thread::Builder::new()
        .name("nuda-hiprtc".into())
        .stack_size(STACK)
        .spawn(move || compile_in_child(api, &text, &name, &options));
    match forker.map(std::thread::JoinHandle::join) {
        Ok(Ok(answer)) => answer,
        _ => Err(Failure::Crashed(
            "cannot start a thread to compile with hiprtc".into(),
        )),
    }
}

/// Forks a child that compiles `text` and answers through a pipe; waits for it.
fn compile_in_child(
    api: &'static Api,
    text: &str,
    name: &str,
    options: &[String],
) -> Result<Compiled, Failure> {
    let c = |s: &str| CString::new(s.replace('\0', " ")).unwrap_or_default();
    let (text, name) = (c(text), c(name));
    let options: Vec<CString> = options.iter().map(|o| c(o)).collect();
    let mut fds = [0 as c_int; 2];
    // SAFETY: `fds` has room for the two descriptors `pipe` writes.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(Failure::Crashed(
            "cannot make a pipe for the hiprtc child".into(),
        ));
    }
    // SAFETY: the child only calls hiprtc and writes to the pipe before `_exit`; see the
    // module's doc for why no lock can be held across the fork.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: in the child: the write end is ours, and `_exit` skips the parent's
        // destructors and atexit handlers.
        unsafe {
            libc::close(fds[0]);
            let answer = run(api, &text, &name, &options);
            write_all(fds[1], &answer);
            libc::_exit(0);
        }
    }
    // SAFETY: the parent closes the child's end; a failed fork leaves both ends to close.
    unsafe { libc::close(fds[1]) };
    if pid < 0 {
        // SAFETY: the read end is still open and ours.
        unsafe { libc::close(fds[0]) };
        return Err(Failure::Crashed("cannot fork a child for hiprtc".into()));
    }
    let bytes = read_until_exit(fds[0], pid);
    decode(&bytes.0, bytes.1)
}

/// In the child: the compile's answer, encoded as `[ok][log length][log][code length][code]`.
fn run(api: &Api, text: &CString, name: &CString, options: &[CString]) -> Vec<u8> {
    let ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    if let Some(init) = api.ctype_init {
        // SAFETY: glibc's initialiser of this thread's character tables, in the namespace's
        // own C library; it takes nothing and may run more than once.
        unsafe { init() };
    }
    let mut prog: Prog = std::ptr::null_mut();
    // SAFETY: the strings outlive the calls; no headers are passed (count 0, null arrays).
    let created = unsafe {
        (api.create)(
            &mut prog,
            text.as_ptr(),
            name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if created != 0 {
        return encode(
            false,
            &format!("hiprtcCreateProgram failed with status {created}"),
            &[],
        );
    }
    // SAFETY: `prog` was created above; the option pointers are valid C strings.
    let status = unsafe { (api.compile)(prog, ptrs.len() as c_int, ptrs.as_ptr()) };
    let log = read_log(api, prog);
    if status != 0 {
        return encode(
            false,
            &format!("{log}\n(hiprtcCompileProgram: status {status})"),
            &[],
        );
    }
    let mut size = 0usize;
    // SAFETY: `prog` compiled; the buffer has the size hiprtc reports.
    let code = unsafe {
        (api.code_size)(prog, &mut size);
        let mut code = vec![0u8; size];
        (api.code)(prog, code.as_mut_ptr().cast());
        code
    };
    encode(true, &log, &code)
}

/// The program's log, as hiprtc wrote it.
fn read_log(api: &Api, prog: Prog) -> String {
    let mut size = 0usize;
    // SAFETY: `prog` is a created program; the buffer has the size hiprtc reports.
    unsafe {
        (api.log_size)(prog, &mut size);
        let mut log = vec![0u8; size.max(1)];
        (api.log)(prog, log.as_mut_ptr().cast());
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        String::from_utf8_lossy(&log[..end]).into_owned()
    }
}

fn encode(ok: bool, log: &str, code: &[u8]) -> Vec<u8> {
    let mut out = vec![u8::from(ok)];
    out.extend((log.len() as u64).to_le_bytes());
    out.extend(log.as_bytes());
    out.extend((code.len() as u64).to_le_bytes());
    out.extend(code);
    out
}

/// The child's answer, or why there is none.
fn decode(bytes: &[u8], exit: Result<(), String>) -> Result<Compiled, Failure> {
    let field = |at: usize| -> Option<(&[u8], usize)> {
        let len = u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?) as usize;
        Some((bytes.get(at + 8..at + 8 + len)?, at + 8 + len))
    };
    let parsed = bytes.first().and_then(|&ok| {
        let (log, next) = field(1)?;
        let (code, _) = field(next)?;
        Some((
            ok == 1,
            String::from_utf8_lossy(log).into_owned(),
            code.to_vec(),
        ))
    });
    match (parsed, exit) {
        (Some((true, log, code)), _) => Ok(Compiled { code, log }),
        (Some((false, log, _)), _) => Err(Failure::Rejected(log)),
        (None, Err(why)) => Err(Failure::Crashed(why)),
        (None, Ok(())) => Err(Failure::Crashed("hiprtc's child gave no answer".into())),
    }
}

/// Writes all of `bytes` to `fd`.
///
/// # Safety
///
/// `fd` is an open descriptor.
unsafe fn write_all(fd: c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid slice; the caller promises `fd`.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

/// Everything the child writes to `fd` until it closes it or [`TIMEOUT`] passes, and how the
/// child ended (killed past the timeout).
fn read_until_exit(fd: c_int, pid: libc::pid_t) -> (Vec<u8>, Result<(), String>) {
    let (start, mut out, mut buf) = (Instant::now(), Vec::new(), vec![0u8; 1 << 16]);
    let mut timed_out = false;
    loop {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut p, 1, 1000) };
        if ready == 0 && start.elapsed() > TIMEOUT {
            timed_out = true;
            // SAFETY: `pid` is our child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            break;
        }
        if ready <= 0 {
            continue;
        }
        // SAFETY: `buf` has room for its length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            break;
        }
        out.extend_from_slice(&buf[..n as usize]);
    }
    // SAFETY: the read end is ours; `pid` is our child, reaped once.
    let status = unsafe {
        libc::close(fd);
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        status
    };
    (out, exit_of(status, timed_out))
}

/// How a child ended, as a message where it did not exit normally.
fn exit_of(status: c_int, timed_out: bool) -> Result<(), String> {
    if timed_out {
        return Err(format!(
            "hiprtc did not finish within {} s and was stopped",
            TIMEOUT.as_secs()
        ));
    }
    if libc::WIFSIGNALED(status) {
        return Err(format!(
            "hiprtc crashed (signal {})",
            libc::WTERMSIG(status)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_round_trip_and_a_silent_child_is_a_crash() {
        let c = decode(&encode(true, "w", &[1, 2, 3]), Ok(()))
            .ok()
            .expect("decoded");
        assert_eq!((c.log.as_str(), c.code), ("w", vec![1, 2, 3]));
        assert!(
            matches!(decode(&encode(false, "bad", &[]), Ok(())), Err(Failure::Rejected(l)) if l == "bad")
        );
        let crashed = decode(&[], Err("hiprtc crashed (signal 6)".into()));
        assert!(matches!(crashed, Err(Failure::Crashed(w)) if w.contains("signal 6")));
    }
}
