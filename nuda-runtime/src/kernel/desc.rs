//! What a captured value is, as the kernel's parameter list and the launch-time proof need
//! it: each `Capture` impl describes itself with these, and the macros' support (`macro_support`)
//! reads them. Layer 5 (see `kernel/mod.rs`).

/// Where a captured array lives in the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// `global const T*`: read only.
    GlobalRead,
    /// `global T*`: written.
    GlobalWrite,
    /// `constant T*`.
    Constant,
    /// `local T*`: a `nulocal!` array, shared by a work-group.
    Local,
}

/// What a captured value is, as the kernel's parameter list needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CaptureDesc {
    /// A scalar of this OpenCL C type.
    Scalar(&'static str),
    /// An array: element type, rank, memory space.
    Array(&'static str, usize, Space),
    /// An image: channels, written or read.
    Image(usize, bool),
    /// A captured private array (`[T; N]`), passed by value: its struct type and element
    /// type; indexed as `name.v[k]`, with its length as `name__d0`.
    Private(&'static str, &'static str),
    /// A `nuwork!` capture named as a constant (`TS`), of this OpenCL C type, whose value the
    /// program text spells (this literal): the device compiler sees the number, and can
    /// unroll a loop over it. Still passed as a scalar parameter, which the body never reads.
    Const(&'static str, &'static str),
}

/// What the proof knows about one captured value at launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// An integer or `bool` scalar and its OpenCL C type.
    Int(i128, &'static str),
    /// A float scalar.
    Float,
    /// An array: its dims (padded with 1) and rank, and its element type.
    Array([usize; 3], usize, &'static str),
    /// An image: width and height.
    Image(usize, usize),
}
