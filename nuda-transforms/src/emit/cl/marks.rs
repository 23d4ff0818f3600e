//! The dialect marks the emitter writes (emitters, OpenCL C): every construct whose
//! spelling differs between OpenCL C, CUDA C++ and HIP C++ goes through these, never as
//! one dialect's text; the runtime's dialect fills each (`nuda_abi::dialect`).

use nuda_abi::dialect::{Mk, Space};

/// A kernel definition: `kernel void [attrs]name(params) { body }`, with the mark after the
/// body's `{` where a dialect sets up local parameters.
pub fn kernel_def(name: &str, attrs: &str, params: &[String], body: &str) -> String {
    // A kernel whose tree or scan may take the warp path asks for warps (`NU_WARPS`, the
    // prelude's: OpenCL's sub-groups of exactly 32 where a device has them, nothing on CUDA
    // and HIP, whose warps are 32 wide by definition).
    let warps = if body.contains("#if NU_SHFL") {
        "NU_WARPS "
    } else {
        ""
    };
    format!(
        "{} void {warps}{attrs}{name}({}) {{{}\n{body}}}\n",
        Mk::kernel(name),
        params.join(", "),
        Mk::body()
    )
}

/// `global ` before a pointer's type.
pub fn global() -> String {
    Mk::space(Space::Global)
}

/// The fault record every generated kernel takes first (see the runtime's `fault`).
pub fn record_param() -> String {
    format!("{}uint* restrict nu_err", global())
}

/// The fault record as a helper function takes it.
pub fn err_param() -> String {
    format!("{}uint* nu_err", global())
}

/// A kernel parameter in local memory, `local ty* [restrict] name`.
pub fn local_param(ty: &str, name: &str, restrict: bool) -> String {
    Mk::local_param(ty, name, restrict)
}
