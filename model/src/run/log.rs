//! The lines the run loop logs (a run's or a comparison's start, each batch, the summary) and
//! where it writes them: a `RunLog`, which the log crate's writer is. The log's schema (every
//! command's lines, its version, the reader) is in that crate; these are its run lines.

use crate::error::Result;
use crate::run::calibration::Calibration;
use crate::run::results_block::{Record, RunOutcome};
use crate::run::summary::{Comparison, RunSummary};
use crate::run::tally::{Failure, RunCounts};
use crate::stress::params::{Drawn, RunParams, StressShape};
use crate::stress::strategy::Strategy;
use serde::{Deserialize, Serialize};

/// Where the run loop writes its lines; a failed write is an error the loop reports.
pub trait RunLog {
    fn write(&mut self, line: RunLine) -> Result<()>;
}

/// `log` for one more call that may write to it: a `&mut dyn` behind an `Option` does not
/// reborrow by itself.
pub fn reborrow<'a>(log: &'a mut Option<&mut dyn RunLog>) -> Option<&'a mut dyn RunLog> {
    match log {
        Some(log) => Some(&mut **log),
        None => None,
    }
}

/// A line of the run loop.
pub enum RunLine {
    Start(RunStart),
    CompareStart(CompareStart),
    Batch(Batch),
    Summary(Box<RunSummary>),
    CompareSummary(Box<Comparison>),
}

/// `wgstress run`'s start line.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunStart {
    pub app: String,
    pub adapter: String,
    pub strategy: Strategy,
    pub raw: bool,
    pub shuffle: bool,
    pub iterations: u32,
    pub shape: StressShape,
    pub adaptive_shape: bool,
    pub calibration: Option<Calibration>,
    pub settings: Drawn,
    pub master_seed: String,
    pub replay: Option<String>,
}

/// `wgstress compare`'s start line: its configurations, each run in every round.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareStart {
    pub app: String,
    pub adapter: String,
    pub rounds: u32,
    pub configurations: Vec<Drawn>,
    pub master_seed: String,
}

/// A batch of runs: its configuration (compare interleaves several), the session's totals so
/// far, and each failing run of the batch.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    pub strategy: Strategy,
    pub shuffle: bool,
    pub runs: usize,
    pub total_runs: u64,
    pub seconds: f64,
    pub counts: RunCounts,
    pub failures: Vec<BatchFailure>,
}

impl Batch {
    /// Runs of the session so far whose outcome is a failure.
    pub fn failing(&self) -> u64 {
        self.counts.failures()
    }
}

/// A failing run of a batch: the failure, the parameters it ran with and what it recorded.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchFailure {
    pub failure: Failure,
    pub params: RunParams,
    pub record: Record,
}

impl BatchFailure {
    pub fn outcome(&self) -> &RunOutcome {
        &self.failure.outcome
    }
}
