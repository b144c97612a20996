//! wgstress-model: the data wgstress's commands produce and read, without a device. A run's
//! parameters and record, a session's tally and summary, a comparison, the fence search's
//! outcome, a progress report, litmus and tuning results: the types the JSON output and the
//! JSON-lines log are made of, with their serde attributes, and the pure functions over them
//! (statistics, the per-run draws from a seed, bounded file reads).
//!
//! Why no device: the log (`wgstress-log`) and campaigns (`wgstress-campaign`) read and write
//! these types on machines and in tools that never open a GPU, and should build without wgpu
//! and naga. So this crate depends on neither, nor on the crates that do (instrument,
//! runtime, litmus); they depend on it, and keep what needs a device, naga or a manifest
//! beside it as free functions (decoding a results block, describing a failure at its
//! source, checking a litmus environment against an adapter's limits).
//!
//! The modules by what they hold:
//! - `stress`: the stress strategies and progress models, each described once; access
//!   sequences; a session's settings and each run's parameters drawn from its seed; shapes
//!   and device profiles;
//! - `run`: a run's record and outcome, tallies, statistics, why runs stopped, calibration,
//!   summaries and comparisons, the run loop's log lines, progress-model reports;
//! - `event`, `reporter`: what the run loop, the fence search and a campaign's shards
//!   report as they go, as one typed event, and the one reporter they report to;
//! - `child_exit`, `adapter_place`: how a campaign's child command ended, and where it
//!   found its device;
//! - `fences`: what the fence search measured, found and suggests;
//! - `litmus`: litmus environments, counts, MC Mutants results, the environment search's and
//!   tuning's results;
//! - `read`, `location`, `error`: bounded file reads, places in files, and their error;
//! - `plural`: counts with the noun that agrees with them, for every crate's messages.

#![deny(unreachable_pub)]

pub mod adapter_place;
pub mod child_exit;
mod error;
pub mod escape;
pub mod event;
pub mod fences;
pub mod litmus;
pub mod location;
pub mod open;
pub mod plural;
pub mod read;
pub mod reporter;
pub mod run;
pub mod stress;

pub use error::FileError;
