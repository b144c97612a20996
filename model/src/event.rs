//! What the libraries report as they go, as one typed event: the time since the reporter
//! started and what happened, for a run (its log lines, its batches, a lost device), the
//! fence search or a campaign's shard. Whoever shows or records them (the CLI's log, bar and
//! notes) takes them through one `Reporter` (reporter.rs); the libraries print nothing.

use crate::child_exit::Exit;
use crate::fences::measured::Trial;
use crate::run::calibration::Calibration;
use crate::run::log::{Batch, CompareStart, RunStart};
use crate::run::summary::{Comparison, RunSummary};
use crate::stress::params::Settings;
use crate::stress::strategy::Strategy;
use std::time::Duration;

#[derive(Clone, Copy, Debug)]
pub struct Event<'a> {
    /// Since the reporter started (`Reporter::started`).
    pub elapsed: Duration,
    pub kind: EventKind<'a>,
}

#[derive(Clone, Copy, Debug)]
pub enum EventKind<'a> {
    Run(RunEvent<'a>),
    Search(SearchEvent<'a>),
    Shard(ShardEvent<'a>),
}

impl<'a> From<RunEvent<'a>> for EventKind<'a> {
    fn from(event: RunEvent<'a>) -> Self {
        EventKind::Run(event)
    }
}

impl<'a> From<SearchEvent<'a>> for EventKind<'a> {
    fn from(event: SearchEvent<'a>) -> Self {
        EventKind::Search(event)
    }
}

impl<'a> From<ShardEvent<'a>> for EventKind<'a> {
    fn from(event: ShardEvent<'a>) -> Self {
        EventKind::Shard(event)
    }
}

/// What the run loop (`run`, `compare`, each model of `progress APP`) reports: every line
/// of the JSON-lines log it writes, and a lost device.
#[derive(Clone, Copy, Debug)]
pub enum RunEvent<'a> {
    /// `run` starts.
    Start(&'a RunStart),
    /// `compare` starts.
    CompareStart(&'a CompareStart),
    /// A batch finished: its runs, its failing runs, the session's totals so far.
    Batch(&'a Batch),
    /// The device was lost and recreated; the runs of the batch in flight count as lost.
    DeviceLost(&'a str),
    /// `run` ended: its summary.
    Summary(&'a RunSummary),
    /// `compare` ended: its comparison.
    CompareSummary(&'a Comparison),
}

/// What the fence search reports as it goes.
#[derive(Clone, Copy, Debug)]
pub enum SearchEvent<'a> {
    /// Systematic stress showed no failure: the other strategies share the rest of the
    /// budget.
    TryingOthers,
    /// A strategy's stress was calibrated before its confirming runs.
    Calibrated {
        settings: &'a Settings,
        calibration: &'a Calibration,
    },
    /// The application runs as is under `strategy` for `time`.
    Confirming { strategy: Strategy, time: Duration },
    /// A round of the search starts: trials of `runs_per_trial` runs, sized for the failure
    /// rate `rate` under `strategy`, over `sites` candidate sites.
    Round {
        rate: f64,
        strategy: Strategy,
        runs_per_trial: u64,
        sites: usize,
    },
    /// A barrier at every site still fails: make-atomic is tried, every candidate variable
    /// together, then the fewest that pass; in a later round, `kept` (the failed fix's
    /// variables) stay atomic while the others are searched.
    MakeAtomic { kept: &'a [String] },
    /// A trial of a set of `sites` fences ended.
    Trial { sites: usize, trial: Trial },
    /// The trials of a round are over.
    TrialsDone,
    /// The fix found runs for `time` under `strategy`.
    Verifying {
        sites: usize,
        time: Duration,
        strategy: Strategy,
    },
    /// The fix (`kept` barriers) failed its verification: another round, with trials sized
    /// for the failure rate `rate` it left; `pooled`: the round resizes its trials from the
    /// failures of the sets it asks that hold the fix (a fix of barriers alone; the fence
    /// search's pool.rs).
    Refining {
        kept: usize,
        rate: f64,
        pooled: bool,
    },
}

/// What a campaign's shard reports as each item's attempt starts and ends: the adapter by
/// its place (`#index`, or the browser), the item by its name, the attempt (0 the first, then
/// re-runs).
#[derive(Clone, Copy, Debug)]
pub enum ShardEvent<'a> {
    Started {
        adapter: crate::adapter_place::AdapterPlace,
        item: &'a str,
        attempt: u32,
    },
    Finished {
        adapter: crate::adapter_place::AdapterPlace,
        item: &'a str,
        attempt: u32,
        exit: Exit,
        seconds: f64,
    },
}
