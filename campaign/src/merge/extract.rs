//! What an item's own log says it measured, per command: from its summary line when it has
//! one, else (a command killed mid-run) from its last batch lines, so what finished counts.

use crate::plan::Command;
use serde::Serialize;
use wgstress_log::{FencesSummary, Line, LitmusSummary, MutantsSummary, ProgressSummary, Summary};
use wgstress_model::fences::outcome::FenceVerdict;
use wgstress_model::run::log::Batch;
use wgstress_model::run::results_block::RunOutcome;
use wgstress_model::run::summary::RunSummary;
use wgstress_model::run::tally::Failure;
use wgstress_model::stress::params::Replay;
use wgstress_progress::model::{Fairness, Model, ProgressScheduler as Scheduler};

/// What was counted: runs of an application, litmus instances, or mutants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Unit {
    /// Runs of an application; failures are failing runs.
    Runs,
    /// Litmus instances; failures are instances that showed the test's target behaviour.
    Instances,
    /// Mutants of the MC Mutants suite; failures are mutants killed.
    Mutants,
    /// Runs of progress litmus tests (a test under a mapping, once); failures are runs in
    /// which some instance did not terminate.
    ProgressRuns,
}

impl Unit {
    pub(crate) fn of(command: Command) -> Unit {
        match command {
            Command::Run | Command::Compare | Command::Fences => Unit::Runs,
            Command::Litmus => Unit::Instances,
            Command::Mutants => Unit::Mutants,
            Command::Progress => Unit::ProgressRuns,
        }
    }

    /// What a unit is and what a failure is, for a table's heading.
    pub(crate) fn words(self) -> (&'static str, &'static str) {
        match self {
            Unit::Runs => ("runs", "failing"),
            Unit::Instances => ("instances", "target"),
            Unit::Mutants => ("mutants", "killed"),
            Unit::ProgressRuns => ("test runs", "hung"),
        }
    }
}

/// One configuration's counts (compare has one per strategy and shuffle; the others one).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Measure {
    /// compare's configuration, as "systematic, shuffled"; none for the other commands.
    pub config: Option<String>,
    pub runs: u64,
    pub failures: u64,
    /// Seconds of the runs themselves.
    pub seconds: f64,
    pub first_failure: Option<FirstFailure>,
    /// What else the command concluded (fences' verdict, coherence broken).
    pub note: Option<String>,
}

/// The first failing run of a session, as its log gives it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct FirstFailure {
    /// Seconds of runs before it ended.
    pub after_seconds: f64,
    /// Its index among the session's runs.
    pub run: u64,
    pub seed: String,
    pub outcome: RunOutcome,
    pub detail: String,
    /// What, with its seed, replays its stress (as the log has it: structured settings).
    pub settings: Option<Replay>,
}

/// The log's lines turned into measures, and whether the log has its summary (else the
/// command was cut short). A summary of another command than the item's counts nothing.
pub(crate) fn measures(command: Command, lines: &[Line]) -> (Vec<Measure>, bool) {
    let summary = lines.iter().rev().find_map(|l| match l {
        Line::Summary(s) => Some(s.as_ref()),
        _ => None,
    });
    match (command, summary) {
        (Command::Run, Some(Summary::Run(s))) => (vec![from_summary(s, None)], true),
        (Command::Compare, Some(Summary::Compare(c))) => {
            let measures = c
                .rows
                .iter()
                .map(|r| from_summary(r, Some(config(&r.strategy.to_string(), r.shuffle))))
                .collect();
            (measures, true)
        }
        (Command::Run | Command::Compare, None) => (from_batches(command, lines), false),
        (Command::Fences, Some(Summary::Fences(s))) => (vec![fences(s)], true),
        (Command::Litmus, Some(Summary::Litmus(s))) => (vec![litmus(s)], true),
        (Command::Mutants, Some(Summary::Mutants(s))) => (vec![mutants(s)], true),
        // A search scores environments, not the suite: it counts no mutants.
        (Command::Mutants, Some(Summary::MutantsSearch(_))) => (Vec::new(), true),
        (Command::Progress, Some(Summary::Progress(s))) => (vec![progress(s)], true),
        (_, _) => (Vec::new(), false),
    }
}

/// "systematic, shuffled": a compare configuration (a summary row or a batch line).
fn config(strategy: &str, shuffle: bool) -> String {
    let shuffle = match shuffle {
        true => "shuffled",
        false => "unshuffled",
    };
    format!("{strategy}, {shuffle}")
}

fn first_failure(failure: &Failure, after_seconds: f64) -> FirstFailure {
    FirstFailure {
        after_seconds,
        run: failure.run,
        seed: failure.seed.clone(),
        outcome: failure.outcome.clone(),
        detail: failure.detail.clone(),
        settings: Some(failure.replay.clone()),
    }
}

/// A run summary (`wgstress run`'s, or a row of compare's).
fn from_summary(s: &RunSummary, config: Option<String>) -> Measure {
    let stats = &s.stats;
    Measure {
        config,
        runs: stats.runs,
        failures: stats.failures,
        seconds: stats.seconds,
        first_failure: stats
            .time_to_first_failure
            .zip(stats.first_failure.as_ref())
            .map(|(after, f)| first_failure(f, after)),
        note: match &s.stopped {
            Some(wgstress_model::run::stop::Stop::Aborted(a)) => Some(format!("aborted: {a}")),
            _ => None,
        },
    }
}

/// The batches of a log without its summary: per configuration, the last batch's totals and
/// the first failure any batch listed.
fn from_batches(command: Command, lines: &[Line]) -> Vec<Measure> {
    let mut measures: Vec<Measure> = Vec::new();
    let batches = lines.iter().filter_map(|l| match l {
        Line::Batch(b) => Some(b),
        _ => None,
    });
    for batch in batches {
        let key = (command == Command::Compare)
            .then(|| config(&batch.strategy.to_string(), batch.shuffle));
        let at = match measures.iter().position(|m| m.config == key) {
            Some(i) => i,
            None => {
                measures.push(Measure {
                    config: key,
                    runs: 0,
                    failures: 0,
                    seconds: 0.0,
                    first_failure: None,
                    note: Some("cut short: counted to its last batch".into()),
                });
                measures.len() - 1
            }
        };
        let m = &mut measures[at];
        m.runs = batch.total_runs;
        m.seconds = batch.seconds;
        m.failures = Batch::failing(batch);
        if m.first_failure.is_none() {
            m.first_failure = batch
                .failures
                .first()
                .map(|f| first_failure(&f.failure, f.failure.seconds));
        }
    }
    measures
}

fn fences(s: &FencesSummary) -> Measure {
    let outcome = &s.outcome;
    let note = match &outcome.verdict {
        FenceVerdict::Fixed => format!(
            "fixed with {}",
            wgstress_model::plural::count(outcome.kept.len(), "barrier", "barriers")
        ),
        FenceVerdict::DoesNotFail => "does not fail".into(),
        FenceVerdict::WatchdogStops { .. } => "watchdog stops".into(),
        FenceVerdict::NotFixed { .. } => "not fixed".into(),
        FenceVerdict::Unverified { .. } => "unverified".into(),
        FenceVerdict::Interrupted { .. } => "interrupted".into(),
        FenceVerdict::Aborted { .. } => "aborted".into(),
    };
    Measure {
        config: None,
        runs: outcome.before.iter().map(|b| b.runs.runs).sum(),
        failures: outcome.before.iter().map(|b| b.runs.failures).sum(),
        seconds: outcome.before.iter().map(|b| b.runs.seconds).sum(),
        first_failure: None,
        note: Some(note),
    }
}

fn litmus(s: &LitmusSummary) -> Measure {
    let incoherent = s.counts.incoherent;
    Measure {
        config: None,
        runs: s.instances,
        failures: s.counts.target,
        seconds: s.seconds,
        first_failure: None,
        note: (incoherent > 0).then(|| format!("{incoherent} instances broke coherence")),
    }
}

/// A scheduler as merge's notes name it: "unfair", else its fairness and model as the log
/// spells them ("weak hsa-obe").
fn name(s: &Scheduler) -> String {
    let model = match s.model {
        Model::Unfair => return "unfair".into(),
        Model::Hsa => "hsa",
        Model::Obe => "obe",
        Model::HsaObe => "hsa-obe",
        Model::Lobe => "lobe",
        Model::Fair => "fair",
    };
    let fairness = match s.fairness {
        Fairness::Weak => "weak",
        Fairness::Strong => "strong",
    };
    format!("{fairness} {model}")
}

/// A progress suite's runs and those that hung, with the strongest models the adapter was
/// consistent with and the ones it violated.
fn progress(s: &ProgressSummary) -> Measure {
    let strongest: Vec<String> = s.judgement.strongest.iter().map(name).collect();
    let violated: Vec<String> = s
        .judgement
        .schedulers
        .iter()
        .filter(|c| !c.violations.is_empty())
        .map(|c| name(&c.scheduler))
        .collect();
    let mut note = format!("strongest: {}", strongest.join(", "));
    if !violated.is_empty() {
        note.push_str(&format!("; violated: {}", violated.join(", ")));
    }
    if let Some(e) = &s.error {
        note.push_str(&format!("; aborted: {e}"));
    }
    Measure {
        config: None,
        runs: s.observed.iter().map(|o| u64::from(o.iterations)).sum(),
        failures: s
            .observed
            .iter()
            .map(|o| u64::from(o.hung_iterations))
            .sum(),
        seconds: s.seconds,
        first_failure: None,
        note: Some(note),
    }
}

/// The suite's mutants and those killed.
fn mutants(s: &MutantsSummary) -> Measure {
    let incoherent = &s.summary.incoherent;
    Measure {
        config: None,
        runs: s.summary.mutants as u64,
        failures: s.summary.killed as u64,
        seconds: s.seconds,
        first_failure: None,
        note: (!incoherent.is_empty())
            .then(|| format!("coherence broken in {}", incoherent.join(", "))),
    }
}
