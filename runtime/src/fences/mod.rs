//! The search for the fences an application needs: which of its candidate fence sites
//! (`wgstress_instrument::fences`) must hold a storage barrier for its failures to stop.
//!
//! The search itself (`ddmin`) is pure: it asks an `Oracle` whether a set of sites passes,
//! and `trial` says how many runs a pass needs to mean something. `gpu` answers those
//! questions with runs on a device; `shrink` orders the sites and keeps a failed fix
//! while a later round looks for what it lacks.

pub mod ddmin;
pub mod gpu;
pub mod shrink;
pub mod trial;

pub use ddmin::{ddmin, Search};
pub use trial::{FailureRate, Oracle, Trial};
