//! The lines the run loop logs (a run's or a comparison's start, each batch; the summaries
//! are `summary`'s): it reports each as an event (`crate::event::RunEvent`), which the log
//! crate's writer subscribes to. The log's schema (every command's lines, its version, the
//! reader) is in that crate; these are its run lines.

use crate::run::calibration::Calibration;
use crate::run::results_block::{Record, RunOutcome};
use crate::run::tally::{Failure, RunCounts};
use crate::stress::params::{Drawn, RunParams, StressShape};
use crate::stress::strategy::Strategy;
use serde::{Deserialize, Serialize};

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
