//! How nuda's pieces work, one page each, with runnable examples (each one a doctest that
//! `scripts/test` runs on OpenCL and on the native engine).

#[doc = include_str!("rustdoc/annotations.md")]
pub mod annotations {}

#[doc = include_str!("rustdoc/reductions.md")]
pub mod reductions {}

#[doc = include_str!("rustdoc/filters.md")]
pub mod filters {}

#[doc = include_str!("rustdoc/lazy_sync.md")]
pub mod lazy_sync {}

#[doc = include_str!("rustdoc/shared_writes.md")]
pub mod shared_writes {}

#[doc = include_str!("rustdoc/devices.md")]
pub mod devices {}

#[doc = include_str!("rustdoc/arrays.md")]
pub mod arrays {}

#[doc = include_str!("rustdoc/safety.md")]
pub mod safety {}

#[doc = include_str!("rustdoc/launch.md")]
pub mod launch {}

#[doc = include_str!("rustdoc/dist.md")]
pub mod dist {}
