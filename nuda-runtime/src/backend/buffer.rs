//! Device memory as the layers above see it: an opaque buffer a backend allocated, and the
//! layout it was asked for. Layer 0 of the runtime (see `README.md` in this folder).

use std::any::Any;

/// How an array or image's elements are laid out in device memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A linear buffer.
    Buffer,
    /// A 2-D image of `width` by `height` texels with this many float channels.
    Image {
        /// Texels per row.
        width: usize,
        /// Rows.
        height: usize,
        /// Float channels per texel: 1 or 4.
        channels: usize,
    },
}

/// Memory a backend allocated on one of its devices. The memory layer keeps it per device
/// without knowing whose it is; the backend gets its own type back with `as_any`.
pub trait Buffer: Any + Send {
    /// The handle a kernel argument passes (OpenCL: the `cl_mem`), valid while the buffer
    /// lives.
    fn handle(&self) -> u64;
    /// The backend's own buffer type.
    fn as_any(&self) -> &dyn Any;
    /// The backend's own buffer type, mutably.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Host memory a backend page-locked for its copies (`Backend::pin_host`). The memory layer
/// releases it before it frees or moves the allocation.
pub trait HostPin: Send + Sync {
    /// Unlocks the memory. `false` where the driver may still hold it: the memory layer then
    /// never frees the allocation (a driver that thought freed memory locked could copy from
    /// pages the allocator gave to someone else).
    fn release(self: Box<Self>) -> bool;
}
