//! How nuda's pieces work, one page each, with runnable examples (each one a doctest that
//! `scripts/test` runs on OpenCL and on the native engine).

#[doc = include_str!("docs/annotations.md")]
pub mod annotations {}

#[doc = include_str!("docs/reductions.md")]
pub mod reductions {}

#[doc = include_str!("docs/filters.md")]
pub mod filters {}

#[doc = include_str!("docs/lazy_sync.md")]
pub mod lazy_sync {}

#[doc = include_str!("docs/shared_writes.md")]
pub mod shared_writes {}

#[doc = include_str!("docs/devices.md")]
pub mod devices {}

#[doc = include_str!("docs/arrays.md")]
pub mod arrays {}

#[doc = include_str!("docs/safety.md")]
pub mod safety {}

#[doc = include_str!("docs/launch.md")]
pub mod launch {}

#[doc = include_str!("docs/dist.md")]
pub mod dist {}
