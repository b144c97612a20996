//! The JSON-lines log every command writes (`--log FILE`): one line per event, appended and
//! flushed at once, so that what ran is on disk even if the process or the device dies. Every
//! line is a `Line`; the first a command writes is its start line, which carries `VERSION`.
//! `merge` reads logs back through the same type (`read`), so a line it cannot read is an
//! error, never a count of zero. The schema is documented in docs/log.md.

#![deny(unreachable_pub)]

#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
mod read;
mod start;
mod summary;
mod write;

#[cfg(test)]
mod tests;

pub use read::{parse, LogReadError, Parsed};
pub use start::{
    FencesStart, LitmusStart, MutantsSearchStart, MutantsStart, ProgressMode, ProgressStart, Start,
    StartOf, TuneStart,
};
pub use summary::{
    FencesSummary, LitmusSummary, MutantsSummary, NotFixedInPlace, ProgressAppSummary,
    ProgressSummary, Summary, TuneSummary,
};
pub use write::JsonLog;

use serde::{Deserialize, Serialize};
use wgstress_model::run::log::Batch;
use wgstress_progress::observe::Observed;

/// The version of the schema, in every start line. A change that renames, removes or
/// retypes a field, or changes what one means, takes the next number.
pub(crate) const VERSION: u32 = 1;

/// One line of a log.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Line {
    /// What the command is about to do (`command` says which).
    Start(Start),
    /// A batch of runs of `run` or `compare` (and of each model of `progress APP`).
    Batch(Batch),
    /// A progress test's runs under one mapping (`progress` over tests).
    Test(Observed),
    /// What the command found (`command` says which), its last line.
    Summary(Box<Summary>),
}
