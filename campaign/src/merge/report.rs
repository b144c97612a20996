//! The merged report: what every shard, host and GPU measured, pooled per item and GPU and
//! per item and adapter model, the throughput of each GPU and of all, and the shards that
//! are missing or were cut short. The renderings (text, HTML) and `--json` show this value.

use super::extract::{FirstFailure, Unit};
use crate::outcome::{BaselineJudgement, ExpectedOutcome, SessionOutcome};
use crate::plan::Command;
use crate::shard::Shard;
use crate::shard_log::Adapter;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct MergedReport {
    /// Every shard read, where it ran, and whether it finished.
    pub(crate) shards: Vec<ShardRow>,
    /// Per item (and compare configuration), host and GPU.
    pub(crate) rows: Vec<Row>,
    /// Per item (and configuration) and adapter model, pooled over hosts and GPUs.
    pub(crate) models: Vec<Pooled>,
    /// The adapter models, in the order of the side-by-side table's columns.
    pub(crate) model_names: Vec<String>,
    /// Per host and GPU: runs and seconds.
    pub(crate) gpus: Vec<GpuRow>,
    pub(crate) total: Total,
    /// Per campaign (plan and shard count): the shards no directory holds.
    pub(crate) missing: Vec<Missing>,
    /// Shard logs without a start line (killed before they wrote one).
    pub(crate) unreadable: Vec<String>,
    /// Logs with whole lines that are not JSON (skipped), and how many.
    pub(crate) damaged: Vec<Damaged>,
    /// Shard logs that copy one counted already (the same shard's start line), not counted.
    pub(crate) duplicates: Vec<Duplicate>,
    /// The baseline the rows were judged against, if any.
    pub(crate) baseline: Option<String>,
    /// Rows whose judgement is unexpected (a pass, a failure or an error).
    pub(crate) unexpected: usize,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Damaged {
    pub log: String,
    /// Lines skipped.
    pub lines: usize,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Duplicate {
    /// The copy, not counted.
    pub log: String,
    /// The log counted.
    pub of: String,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct ShardRow {
    pub host: String,
    pub adapter: Adapter,
    pub shard: Shard,
    pub plan: String,
    pub digest: String,
    pub dir: String,
    /// The shard's log has its end line.
    pub finished: bool,
    pub interrupted: bool,
    /// Items started but not ended (their logs count up to where they stopped).
    pub cut_short: Vec<String>,
    /// Items of the shard never started.
    pub not_run: Vec<String>,
}

/// Runs and failures, pooled.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct Counts {
    pub runs: u64,
    pub failures: u64,
    pub rate: f64,
    /// Wilson score interval of the rate, 95%.
    pub interval_95: [f64; 2],
    /// Seconds of the runs themselves.
    pub seconds: f64,
    /// Wall-clock seconds of the commands (start-up and calibration included).
    pub wall_seconds: f64,
    /// The shortest time to a first failure among the sessions.
    pub time_to_first_failure: Option<f64>,
}

impl Counts {
    /// Adds a measure's runs, failures and seconds (and the command's wall-clock seconds).
    pub(crate) fn add(&mut self, other: &Counts) {
        self.runs += other.runs;
        self.failures += other.failures;
        self.seconds += other.seconds;
        self.wall_seconds += other.wall_seconds;
        self.time_to_first_failure = match (self.time_to_first_failure, other.time_to_first_failure)
        {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// With the rate and its Wilson interval of the runs added.
    pub(crate) fn rated(self) -> Counts {
        let rate = match self.runs {
            0 => 0.0,
            n => self.failures as f64 / n as f64,
        };
        let (lo, hi) = wgstress_model::run::stats::wilson_95(self.failures, self.runs);
        // No failure: the lower bound is 0, not the rounding error the formula leaves.
        let lo = if self.failures == 0 { 0.0 } else { lo };
        Counts {
            rate,
            interval_95: [lo, hi],
            ..self
        }
    }
}

/// Where something ran.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Place {
    pub host: String,
    pub gpu: wgstress_model::adapter_place::AdapterPlace,
    pub adapter: String,
    pub shard: Shard,
    pub attempt: u32,
    /// The `--master-seed` the attempt ran with (run, compare and fences).
    pub master_seed: Option<String>,
    pub dir: String,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct FirstFailureAt {
    #[serde(flatten)]
    pub failure: FirstFailure,
    /// The command that replays it (its stress, shuffle and layout; not the GPU's timing).
    pub replay: String,
    pub at: Place,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Row {
    pub item: String,
    pub command: Command,
    pub config: Option<String>,
    pub unit: Unit,
    pub host: String,
    pub adapter: Adapter,
    #[serde(flatten)]
    pub counts: Counts,
    /// Sessions pooled: shards that ran it here, each with its re-runs.
    pub sessions: usize,
    /// Every session's log has its summary line.
    pub complete: bool,
    pub first_failures: Vec<FirstFailureAt>,
    pub notes: Vec<String>,
    pub outcome: SessionOutcome,
    pub expected: ExpectedOutcome,
    pub judgement: BaselineJudgement,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Pooled {
    pub item: String,
    pub command: Command,
    pub config: Option<String>,
    pub unit: Unit,
    /// The adapter's name and driver.
    pub model: String,
    #[serde(flatten)]
    pub counts: Counts,
    /// The GPUs pooled, as `host #N`.
    pub gpus: Vec<String>,
    /// The earliest first failure among them.
    pub first_failure: Option<FirstFailureAt>,
    pub outcome: SessionOutcome,
    pub judgement: BaselineJudgement,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct GpuRow {
    pub host: String,
    pub adapter: Adapter,
    pub shards: Vec<Shard>,
    /// Application runs (run, compare, fences), not litmus instances or mutants.
    pub runs: u64,
    /// Seconds its commands took, one after another.
    pub busy_seconds: f64,
    pub runs_per_second: f64,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Total {
    pub hosts: usize,
    pub gpus: usize,
    pub runs: u64,
    pub busy_seconds: f64,
    /// From the first shard's start to the last one's end: the campaign's wall clock.
    pub wall_seconds: f64,
    /// Runs over the wall clock: with several GPUs at once, more than any one of them.
    pub runs_per_second: f64,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Missing {
    pub plan: String,
    pub digest: String,
    pub shards: u32,
    pub missing: Vec<u32>,
    pub plan_items: usize,
    /// Items of the plan that no shard read lists.
    pub items_unseen: usize,
}

impl MergedReport {
    /// Whether `merge` exits 1: some row's result was not what the baseline (or, without
    /// one, a pass) expected.
    pub fn failed(&self) -> bool {
        self.unexpected > 0
    }
}
