//! `nuda::Error`: every run-time failure, each with a message that says what to do next.
//! Layer 0 of the runtime (see `backend/README.md`).

use std::fmt;

/// Result type of every fallible nuda call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The compiler of a failed build ([`Error::Build`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compiler {
    /// The OpenCL driver's compiler.
    OpenCl,
    /// NVIDIA's NVRTC, for the CUDA backend and `NUDA_CUDA_CHECK`.
    Nvrtc,
    /// AMD's hiprtc, for the HIP backend and `NUDA_HIP_CHECK`.
    Hiprtc,
    /// clang for `amdgcn-amd-amdhsa`, ROCm's OpenCL compiler, for `NUDA_AMDGCN_CHECK`.
    Clang,
}

impl fmt::Display for Compiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compiler::OpenCl => "OpenCL",
            Compiler::Nvrtc => "NVRTC",
            Compiler::Hiprtc => "hiprtc",
            Compiler::Clang => "clang (amdgcn)",
        })
    }
}

/// What went wrong, with enough context to act on it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No device can run the request (no OpenCL platform under `NUDA_ENGINE=opencl`, say).
    NoDevice {
        /// Why there is none.
        reason: String,
    },
    /// `NUDA_DEVICE`, `NUDA_ENGINE` or a device index names no usable device.
    BadSelection {
        /// Where the selection came from: an environment variable or a function.
        source: String,
        /// The value given.
        value: String,
        /// Why it does not select a device.
        reason: String,
        /// The valid choices.
        choices: String,
    },
    /// Another configuration variable holds a value nuda does not understand.
    BadConfig {
        /// The environment variable.
        var: &'static str,
        /// The value given.
        value: String,
        /// The accepted values.
        expected: &'static str,
    },
    /// Shapes or lengths disagree.
    DimsMismatch {
        /// What was being done.
        what: String,
        /// The shape or length required.
        expected: String,
        /// The shape or length given.
        found: String,
    },
    /// A compiler (the OpenCL driver's, or NVRTC) rejected a program.
    Build {
        /// The compiler.
        compiler: Compiler,
        /// The program's name (its first kernel).
        program: String,
        /// The device it was built for.
        device: String,
        /// The compiler's log.
        log: String,
        /// The complete source, with line numbers.
        numbered_source: String,
        /// For a program nuda generated: the user's macro call it came from (`file:line:
        /// text`). Such a failure is nuda's bug, never the user's C.
        generated_from: Option<&'static str>,
    },
    /// The device ran out of memory or another resource.
    OutOfResources {
        /// The device.
        device: String,
        /// What was being allocated or run.
        what: String,
        /// The driver's words, or the limit that was exceeded.
        detail: String,
    },
    /// A kernel could not be launched or failed while running.
    Launch {
        /// The kernel.
        kernel: String,
        /// The device.
        device: String,
        /// What went wrong.
        reason: String,
    },
    /// A kernel did what safe Rust forbids: an index out of bounds, a division by zero, a
    /// zero loop step, or (native engine) a panic. The faulting operation touched no memory:
    /// a write was skipped, a read or a division gave zero. The other work-items ran.
    Kernel {
        /// The kernel: `nuwork!`, or `#[nukernel] name`.
        kernel: String,
        /// The device.
        device: String,
        /// `file:line:column` of the faulting operation in the user's source.
        location: String,
        /// What happened.
        fault: KernelFault,
    },
    /// A call into a backend's driver failed (for the OpenCL backend, an OpenCL call).
    Backend {
        /// The backend: `OpenCL`, or another registered one.
        backend: String,
        /// What nuda was doing.
        during: String,
        /// The device, or `-` before one is known.
        device: String,
        /// The driver's status code (OpenCL: the negative `CL_*` error code).
        status: i32,
        /// The status code's name, such as `CL_INVALID_KERNEL_ARGS`.
        status_name: String,
    },
    /// `nuda::dist`: MPI could not start, or a distributed array's rule was broken.
    Dist {
        /// What nuda was doing.
        during: String,
        /// What went wrong, and what to do.
        detail: String,
    },
    /// A distributed launch (`annot!(nudist; ..)`) or call failed on this rank.
    Rank {
        /// This rank.
        rank: usize,
        /// The number of ranks.
        size: usize,
        /// What this rank held (its rows of each distributed array).
        held: String,
        /// The error on this rank (its index is the global one for a distributed array).
        error: Box<Error>,
    },
    /// Two names a launch captures are handles of one array (copies of one `NuShared`), and
    /// iterations would race through them: one writes an element that another reads or
    /// writes through the other name. The launch ran nothing.
    Aliased {
        /// The macro form and where it is: `nuwork! at src/main.rs:12`.
        at: String,
        /// The first name, as the user wrote it.
        first: String,
        /// The second name.
        second: String,
    },
    /// A distributed launch failed on another rank, so this one stopped too (no rank is left
    /// waiting for the others).
    OtherRank {
        /// This rank.
        rank: usize,
        /// The number of ranks.
        size: usize,
        /// The rank that failed first.
        failed: usize,
        /// Its error, as it reported it.
        message: String,
    },
}

/// What a kernel did that safe Rust forbids; see [`Error::Kernel`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KernelFault {
    /// An array index, or image write coordinates, outside the dims (boxed, to keep
    /// `nuda::Error` small).
    OutOfBounds(Box<OutOfBounds>),
    /// Integer division or remainder by zero, or of the type's minimum by -1, in Rust's words
    /// (`attempt to divide by zero`, `attempt to divide with overflow`, ..).
    Arithmetic(&'static str),
    /// A loop evaluated in the kernel had a step of zero.
    ZeroStep,
    /// A native work-item panicked, with the panic's message.
    Panic(String),
    /// `nuda::dist`: an index within a distributed array's global dims, in a row that this
    /// rank neither owns nor keeps as a halo row (boxed, as `OutOfBounds`).
    OutsideRows(Box<OutsideRows>),
}

/// An index into a distributed array outside this rank's rows and halo; see
/// [`KernelFault::OutsideRows`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideRows {
    /// The array, as the user wrote it.
    pub array: String,
    /// The global index, one value per dim.
    pub index: Vec<String>,
    /// The global dims.
    pub dims: Vec<u64>,
    /// The global rows this rank keeps, `start..end`: its own and its halo rows.
    pub kept: (u64, u64),
    /// The halo width, in rows.
    pub halo: u64,
}

/// An out-of-range access: which array, the index, the dims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The array or image, as the user wrote it.
    pub array: String,
    /// The index, one value per dim (image coordinates as `i32`).
    pub index: Vec<String>,
    /// The dims.
    pub dims: Vec<u64>,
}

impl fmt::Display for KernelFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelFault::OutOfBounds(b) => write!(
                f,
                "index [{}] is out of bounds for `{}` of dims {:?}; the access touched \
                 no memory (a write is skipped, a read gives zero); keep every index below \
                 the array's dims",
                b.index.join(", "),
                b.array,
                b.dims
            ),
            KernelFault::Arithmetic(what) => write!(f, "{what}; {}", arithmetic_advice(what)),
            KernelFault::ZeroStep => write!(
                f,
                "a loop step of zero; the loop ran no iteration; step by a positive value to \
                 count up or a negative one to count down"
            ),
            KernelFault::Panic(msg) => write!(f, "a work-item panicked: {msg}"),
            KernelFault::OutsideRows(r) => write!(
                f,
                "index [{}] of `{}` is within its dims {:?}, but row {} is neither this \
                 rank's nor one of its halo rows (it keeps rows {}..{}: its own and a halo \
                 of {} on either side); the access touched no memory (a write is skipped, a \
                 read gives zero); read only rows within the halo of the loop's row, or give \
                 the array a wider halo",
                r.index.join(", "),
                r.array,
                r.dims,
                r.index.first().map_or("?", String::as_str),
                r.kept.0,
                r.kept.1,
                r.halo
            ),
        }
    }
}

/// What an arithmetic fault did instead, and what to change: each kind its own words (a
/// clamp or a loop count is no division).
fn arithmetic_advice(what: &str) -> &'static str {
    if what.contains("clamp") {
        "the value was left unclamped instead; make sure min <= max and that neither bound is NaN"
    } else if what.contains("loop") {
        "the loop ran no iteration; keep a loop below 2^64 iterations (split it, or step further)"
    } else {
        "the operation gave zero instead; make sure the divisor is never zero \
         (nor -1 with the type's minimum)"
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDevice { reason } => write!(
                f,
                "no device: {reason}; install an OpenCL driver (Debian: apt install pocl-opencl-icd) \
                 or set NUDA_ENGINE=native to run on the CPU"
            ),
            Error::BadSelection { source, value, reason, choices } => write!(
                f,
                "bad device selection {source}={value:?}: {reason}; choose one of: {choices}"
            ),
            Error::BadConfig { var, value, expected } => {
                write!(f, "bad value {var}={value:?}: expected {expected}")
            }
            Error::DimsMismatch { what, expected, found } => write!(
                f,
                "dims mismatch in {what}: expected {expected}, found {found}; \
                 make the shapes agree"
            ),
            Error::Build { compiler, program, device, log, numbered_source, generated_from: None } => write!(
                f,
                "{compiler} build of `{program}` failed on {device}; fix the OpenCL C below \
                 (NUDA_DUMP=<dir> keeps every source)\n--- build log ---\n{}\n--- source ---\n{}",
                log.trim_end(),
                numbered_source
            ),
            Error::Build { compiler, program, device, log, numbered_source, generated_from: Some(at) } => write!(
                f,
                "{compiler} on {device} could not build the code that nuda generated for `{program}` at \
                 {at}; this is a bug in nuda, not in your code: please report it with this \
                 message (NUDA_DUMP=<dir> keeps every source)\n--- build log ---\n{}\n--- source ---\n{}",
                log.trim_end(),
                numbered_source
            ),
            Error::OutOfResources { device, what, detail } => write!(
                f,
                "out of device resources on {device} while {what}: {detail}; \
                 use smaller arrays or work-groups, or free device arrays first"
            ),
            Error::Launch { kernel, device, reason } => {
                write!(f, "launch of `{kernel}` on {device} failed: {reason}")
            }
            Error::Kernel { kernel, device, location, fault } => {
                write!(f, "{kernel} at {location} on {device}: {fault}")
            }
            Error::Dist { during, detail } => write!(f, "{during}: {detail}"),
            Error::Aliased { at, first, second } => write!(
                f,
                "{at}: `{first}` and `{second}` are the same array (two copies of one NuShared), \
                 and iterations would race through them, one writing an element that another \
                 reads or writes through the other name; nothing ran; capture the array under \
                 one name, or write into another array"
            ),
            Error::Rank { rank, size, held, error } => {
                write!(f, "{error} (on rank {rank} of {size}, which holds {held})")
            }
            Error::OtherRank { rank, size, failed, message } => write!(
                f,
                "rank {failed} of {size} failed, so rank {rank} stopped too; rank {failed} \
                 reported: {message}"
            ),
            Error::Backend { backend, during, device, status, status_name } => write!(
                f,
                "{backend} error {status_name} ({status}) on {device} while {during}; \
                 check the driver (for OpenCL, with `clinfo`), or set NUDA_ENGINE=native"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Numbers the lines of a source text, as build errors show it.
pub fn number_lines(source: &str) -> String {
    let width = source.lines().count().max(1).to_string().len();
    source
        .lines()
        .enumerate()
        .map(|(i, line)| format!("{:>width$} | {line}\n", i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_source_aligns_line_numbers() {
        let text = (1..=10)
            .map(|i| format!("l{i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let numbered = number_lines(&text);
        assert!(numbered.starts_with(" 1 | l1\n"));
        assert!(numbered.ends_with("10 | l10\n"));
    }

    #[test]
    fn messages_say_what_to_do() {
        let e = Error::Backend {
            backend: "OpenCL".into(),
            during: "x".into(),
            device: "d".into(),
            status: -48,
            status_name: "CL_INVALID_KERNEL".into(),
        };
        let text = e.to_string();
        assert!(
            text.contains("OpenCL error CL_INVALID_KERNEL (-48) on d while x"),
            "{text}"
        );
        assert!(text.contains("NUDA_ENGINE=native"), "{text}");
        let e = Error::NoDevice {
            reason: "none".into(),
        };
        assert!(e.to_string().contains("NUDA_ENGINE=native"));
    }
}
