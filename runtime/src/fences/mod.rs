//! The search for the fences an application needs: which of its candidate fence sites
//! (`wgstress_instrument::fences`) must hold a storage barrier for its failures to stop, or
//! which variable must be made atomic.
//!
//! The algorithms are pure: `ddmin` and `shrink` ask an `Oracle` whether a set of sites
//! passes, and `trial` says how many runs a pass needs to mean something. The search
//! (`search`: confirm, rounds, make-atomic, verification) asks a `Lab` for runs, and reports
//! progress through `Event`s; `gpu::GpuLab` answers on a device, and the tests answer with a
//! simulated one. `source` is what the search derives from the shader without a device, and
//! `outcome` what it found.

mod ahead;
pub mod cost;
pub mod ddmin;
pub mod event;
mod fewest;
pub mod gpu;
pub mod lab;
mod merge;
mod pool;
pub mod search;
pub mod shrink;
pub mod source;
pub mod suggest;
pub mod trial;
pub mod trials;
mod with_fix;

pub use ddmin::{ddmin, Search};
pub use lab::{FixSet, Lab};
pub use search::{search, FenceSearchConfig};
pub use trial::{FailureRate, Oracle, Sizing, Trial};
