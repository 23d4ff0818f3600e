//! Kernel source in OpenCL C, the dialect every backend that compiles source starts from.
//! Layer 0 of the runtime (see `README.md` in this folder).

use crate::fault::Site;

/// OpenCL C source embedded in the binary, holding one or more kernels.
#[derive(Debug)]
pub struct KernelSource {
    /// The OpenCL C text, without nuda's prelude (which defines `nu_idx` and `nu_sampler`).
    pub source: &'static str,
    /// For programs the macros generate: the fault record their kernels take first.
    pub(crate) faults: Option<FaultInfo>,
    /// Whether it calls the prelude's 64-bit atomics, which need two OpenCL extensions.
    pub(crate) int64_atomics: bool,
}

/// The bench's raw peer of an empty launch, which a backend with such a peer builds once and
/// launches with its driver's own calls alone (`Backend::raw_launch_time`).
// SAFETY: `nop` touches no memory.
pub(crate) static RAW_NOP: KernelSource =
    unsafe { KernelSource::new("kernel void nop(nu_idx n) {}") };

/// What a generated program's fault record may report.
#[derive(Debug)]
pub(crate) struct FaultInfo {
    /// The kernel as messages name it.
    pub label: &'static str,
    /// Where the user wrote it, and the line's text: what a failed build quotes.
    pub origin: &'static str,
    /// The program's check sites, by the number the device records.
    pub sites: &'static [&'static Site],
    /// Whether any check is compiled in, so the record must be read after each launch.
    pub read_back: bool,
}

impl KernelSource {
    /// Wraps a source text; it is compiled at its first launch on each device.
    ///
    /// # Safety
    ///
    /// nuda checks what the macros generate, but it cannot see inside hand-written OpenCL C.
    /// For every launch of this program's kernels the caller promises:
    /// - every access to global, constant, local or image memory stays within what the launch
    ///   passes: an array's dims are the `nu_idx` values after its pointer, a local buffer's
    ///   size is the one given to `local_array`;
    /// - the parameters match the launch's arguments in order and type (nuda checks their
    ///   number and OpenCL each one's size, not what the bytes mean);
    /// - no work-item writes a location another one reads or writes in the same launch,
    ///   unless atomics or a barrier order them, and every work-item of a group reaches each
    ///   barrier.
    ///
    /// A kernel that breaks these may overwrite any memory the device can reach, including
    /// other arrays and the driver's own, or hang the device.
    pub const unsafe fn new(source: &'static str) -> KernelSource {
        KernelSource {
            source,
            faults: None,
            int64_atomics: false,
        }
    }

    /// A program the macros generated: each kernel's first parameter is the fault record.
    pub(crate) fn generated(source: &'static str, faults: FaultInfo) -> KernelSource {
        const OPS: [&str; 10] = [
            "add", "sub", "min", "max", "and", "or", "xor", "xchg", "cmpxchg", "load",
        ];
        let calls = |op: &str, t: &str| {
            let call = |space: &str| source.contains(&format!("nu_{space}_{op}_{t}("));
            call("atomic") || call("latomic")
        };
        let int64_atomics = OPS.iter().any(|op| calls(op, "long") || calls(op, "ulong"));
        KernelSource {
            source,
            faults: Some(faults),
            int64_atomics,
        }
    }
}
