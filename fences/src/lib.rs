//! wgstress-fences: the search for the fences an application needs, without a device: which
//! of its candidate fence sites (`wgstress_instrument::placement`) must hold a storage
//! barrier for its failures to stop, or which variable must be made atomic.
//!
//! The algorithms are pure: `ddmin` and `shrink` ask an `Oracle` whether a set of sites
//! passes, and `trial` says how many runs a pass needs to mean something. The search
//! (`search`: confirm, rounds, make-atomic, verification, placements) asks a `Lab` for runs
//! and reports progress through a `Reporter` (`wgstress_model::reporter`); `source` is what it derives from the shaders
//! without a device (parts, sites, edits, patches), `suggest` the fix it suggests, and
//! `wgstress_model::fences::outcome` what it found.
//!
//! The `Lab` is the one boundary to a device: a lab names its error type, and every run,
//! calibration and timing goes through it, so the whole search runs here on a simulated GPU
//! (search/tests.rs) and this crate builds without wgpu. The GPU lab is the runtime's
//! (`wgstress_runtime::fences::gpu::GpuLab`, with its engines built ahead), as is the bridge
//! between a spec's `App` and the parts searched here (`wgstress_runtime::fences::parts`).
//! It prints nothing.

#![deny(unreachable_pub)]

pub mod cost;
pub mod ddmin;
mod error;
mod fewest;
pub mod lab;
mod merge;
mod pool;
pub mod rewrite;
pub mod search;
pub mod shrink;
pub mod source;
pub mod suggest;
pub mod trial;
pub mod trials;
mod with_fix;

pub use ddmin::{ddmin, Search};
pub use error::FenceError;
pub use lab::{FixSet, Lab};
pub use search::{search, FenceSearchConfig};
pub use trial::{FailureRate, Oracle, Sizing, Trial};
