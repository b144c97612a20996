//! Candidate fence sites: where a `storageBarrier()` could go in the application's entry
//! point, so a search can learn which fences an application needs.
//!
//! A site sits before and after every statement of the entry point that touches storage
//! memory (a load, a store, an atomic, a call of a function that names a storage variable),
//! at a point in uniform control flow, so that the barrier is valid for Tint as well as for
//! naga (see place.rs for the rules, uniformity.rs for what counts as uniform). Accesses in
//! non-uniform control flow get their sites at the nearest enclosing uniform point, around
//! the whole branch or loop.
//!
//! A non-uniform branch with an empty other side is split around the sites between its
//! accesses (split.rs).
//!
//! Sites go into the functions the entry point calls too, where every call of the function
//! is in uniform control flow (a barrier there is then in uniform flow; its arguments count
//! as non-uniform).

mod all;
mod calls;
mod module;
pub(crate) mod operands;
mod patch;
mod place;
mod results;
mod returns;
mod site;
mod split;
mod uniformity;

pub use all::{fences, Fences};
pub use patch::{fenced_at, fenced_at_atomic, Patched};
pub use site::{FenceSite, InLoop, Side};
