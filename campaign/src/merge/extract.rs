//! What an item's own log says it measured, per command: from its summary line when it has
//! one, else (a command killed mid-run) from its last batch lines, so what finished counts.

use crate::plan::Command;
use serde::Serialize;
use serde_json::Value;
use wgstress_runtime::stress::strategy::Replay;

/// What was counted: runs of an application, litmus instances, or mutants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
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
    pub fn of(command: Command) -> Unit {
        match command {
            Command::Run | Command::Compare | Command::Fences => Unit::Runs,
            Command::Litmus => Unit::Instances,
            Command::Mutants => Unit::Mutants,
            Command::Progress => Unit::ProgressRuns,
        }
    }

    /// What a unit is and what a failure is, for a table's heading.
    pub fn words(self) -> (&'static str, &'static str) {
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
pub struct Measure {
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
pub struct FirstFailure {
    /// Seconds of runs before it ended.
    pub after_seconds: f64,
    /// Its index among the session's runs.
    pub run: u64,
    pub seed: String,
    pub outcome: String,
    pub detail: String,
    /// What, with its seed, replays its stress (as the log has it: structured settings).
    pub settings: Option<Replay>,
}

/// The log's lines (`type`: start, batch, summary) turned into measures, and whether the
/// log has its summary (else the command was cut short).
pub fn measures(command: Command, lines: &[Value]) -> (Vec<Measure>, bool) {
    let summary = lines.iter().rev().find(|l| l["type"] == "summary");
    match (command, summary) {
        (Command::Run, Some(s)) => (vec![from_summary(s, None)], true),
        (Command::Compare, Some(s)) => {
            let rows = s["rows"].as_array().map_or(&[][..], Vec::as_slice);
            let measures = rows
                .iter()
                .map(|r| from_summary(r, Some(config(r))))
                .collect();
            (measures, true)
        }
        (Command::Run | Command::Compare, None) => (from_batches(command, lines), false),
        (Command::Fences, Some(s)) => (vec![fences(s)], true),
        (Command::Litmus, Some(s)) => (vec![litmus(s)], true),
        (Command::Mutants, Some(s)) => (mutants(s).into_iter().collect(), true),
        (Command::Progress, Some(s)) => (vec![progress(s)], true),
        (Command::Fences | Command::Litmus | Command::Mutants | Command::Progress, None) => {
            (Vec::new(), false)
        }
    }
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn seconds(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// "systematic, shuffled": a compare configuration (a summary row or a batch line).
fn config(line: &Value) -> String {
    let shuffle = match line["shuffle"].as_bool() {
        Some(true) => "shuffled",
        _ => "unshuffled",
    };
    format!("{}, {shuffle}", text(&line["strategy"]))
}

fn first_failure(failure: &Value, after_seconds: f64) -> Option<FirstFailure> {
    failure.is_object().then(|| FirstFailure {
        after_seconds,
        run: count(&failure["run"]),
        seed: text(&failure["seed"]),
        outcome: text(&failure["outcome"]),
        detail: text(&failure["detail"]),
        settings: serde_json::from_value(failure["replay"].clone()).ok(),
    })
}

/// A run summary (`wgstress run`'s, or a row of compare's).
fn from_summary(s: &Value, config: Option<String>) -> Measure {
    let after = s["time_to_first_failure"].as_f64();
    Measure {
        config,
        runs: count(&s["runs"]),
        failures: count(&s["failures"]),
        seconds: seconds(&s["seconds"]),
        first_failure: after.and_then(|a| first_failure(&s["first_failure"], a)),
        note: s["aborted"].as_str().map(|a| format!("aborted: {a}")),
    }
}

/// The batches of a log without its summary: per configuration, the last batch's totals and
/// the first failure any batch listed.
fn from_batches(command: Command, lines: &[Value]) -> Vec<Measure> {
    let mut measures: Vec<Measure> = Vec::new();
    for batch in lines.iter().filter(|l| l["type"] == "batch") {
        let key = (command == Command::Compare).then(|| config(batch));
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
        let counts = batch["counts"].as_object();
        m.runs = count(&batch["total_runs"]);
        m.seconds = seconds(&batch["seconds"]);
        m.failures = counts.map_or(0, |c| {
            c.iter()
                .filter(|(outcome, _)| outcome.as_str() != "pass")
                .map(|(_, n)| count(n))
                .sum()
        });
        if m.first_failure.is_none() {
            let failure = &batch["failures"][0]["failure"];
            m.first_failure = first_failure(failure, seconds(&failure["seconds"]));
        }
    }
    measures
}

fn fences(s: &Value) -> Measure {
    let before = s["before"].as_array().map_or(&[][..], Vec::as_slice);
    let kept = s["kept"].as_array().map_or(0, Vec::len);
    let verdict = text(&s["verdict"]);
    let note = match verdict.as_str() {
        "fixed" => format!("fixed with {kept} barrier(s)"),
        v => v.replace('_', " "),
    };
    Measure {
        config: None,
        runs: before.iter().map(|b| count(&b["runs"])).sum(),
        failures: before.iter().map(|b| count(&b["failures"])).sum(),
        seconds: before.iter().map(|b| seconds(&b["seconds"])).sum(),
        first_failure: None,
        note: Some(note),
    }
}

fn litmus(s: &Value) -> Measure {
    let counts = &s["counts"];
    let incoherent = count(&counts["incoherent"]);
    Measure {
        config: None,
        runs: count(&s["instances"]),
        failures: count(&counts["target"]),
        seconds: seconds(&s["seconds"]),
        first_failure: None,
        note: (incoherent > 0).then(|| format!("{incoherent} instances broke coherence")),
    }
}

/// A progress suite's runs and those that hung, with the strongest models the adapter was
/// consistent with and the ones it violated.
fn progress(s: &Value) -> Measure {
    let observed = s["observed"].as_array().map_or(&[][..], Vec::as_slice);
    let judgement = &s["judgement"];
    let name = |v: &Value| {
        let model = text(&v["model"]);
        match model.as_str() {
            "unfair" => model,
            _ => format!("{} {model}", text(&v["fairness"])),
        }
    };
    let strongest: Vec<String> = judgement["strongest"]
        .as_array()
        .map_or(Vec::new(), |a| a.iter().map(name).collect());
    let violated: Vec<String> = judgement["schedulers"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(|c| c["violations"].as_array().is_some_and(|v| !v.is_empty()))
        .map(|c| name(&c["scheduler"]))
        .collect();
    let mut note = format!("strongest: {}", strongest.join(", "));
    if !violated.is_empty() {
        note.push_str(&format!("; violated: {}", violated.join(", ")));
    }
    if let Some(e) = s["error"].as_str() {
        note.push_str(&format!("; aborted: {e}"));
    }
    Measure {
        config: None,
        runs: observed.iter().map(|o| count(&o["iterations"])).sum(),
        failures: observed.iter().map(|o| count(&o["hung_iterations"])).sum(),
        seconds: seconds(&s["seconds"]),
        first_failure: None,
        note: Some(note),
    }
}

/// The suite's mutants and those killed; a search (`mutants --search`) counts none.
fn mutants(s: &Value) -> Option<Measure> {
    let summary = s["summary"].as_object()?;
    let incoherent: Vec<String> = summary["incoherent"]
        .as_array()
        .map_or(Vec::new(), |a| a.iter().map(text).collect());
    Some(Measure {
        config: None,
        runs: count(&summary["mutants"]),
        failures: count(&summary["killed"]),
        seconds: seconds(&s["seconds"]),
        first_failure: None,
        note: (!incoherent.is_empty())
            .then(|| format!("coherence broken in {}", incoherent.join(", "))),
    })
}
