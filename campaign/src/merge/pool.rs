//! Pooling: sessions of one item on one GPU (over shards, campaign directories and
//! re-runs) into a row, rows of one adapter model into one, and the shards into the list of
//! the missing and the cut short.

use super::extract::{Measure, Unit};
use super::read::{Attempt, ShardRun, Shards};
use super::report::*;
use crate::baseline::Baseline;
use crate::outcome::{BaselineJudgement, ExpectedOutcome, SessionOutcome};
use crate::plan::{quote, Command};
use crate::shard_log::AdapterPlace;
use std::collections::{BTreeMap, BTreeSet};
use wgstress_model::stress::params::Replay;

/// One measure of one attempt, with where it ran.
struct Sample<'a> {
    run: &'a ShardRun,
    attempt: &'a Attempt,
    measure: &'a Measure,
    /// The outcome of the attempt's session (the item's run and its re-runs here).
    outcome: SessionOutcome,
}

type RowKey = (String, Option<String>, String, AdapterPlace, String, String);

/// How the caller renders a failing run's settings as `wgstress run` options (the CLI's
/// replay line).
pub(crate) type Options<'a> = &'a dyn Fn(&Replay) -> String;

/// The report over `shards`, judged against `baseline` (read from `baseline_path`), each
/// first failure's replay rendered by `options`.
pub fn merge(
    shards: &Shards,
    baseline: Option<&Baseline>,
    baseline_path: Option<String>,
    options: Options,
) -> MergedReport {
    let runs = &shards.runs;
    let samples = samples(runs);
    let mut by_row: BTreeMap<RowKey, Vec<&Sample>> = BTreeMap::new();
    for s in &samples {
        let a = &s.run.start.adapter;
        let key = (
            s.attempt.item.name.clone(),
            s.measure.config.clone(),
            s.run.start.host.clone(),
            a.place,
            a.name.clone(),
            a.driver.clone(),
        );
        by_row.entry(key).or_default().push(s);
    }
    let expect =
        |item: &str, model: &str| baseline.map_or(ExpectedOutcome::Pass, |b| b.expect(item, model));
    let rows: Vec<Row> = by_row.values().map(|s| row(s, &expect, options)).collect();
    let models = pooled(&rows, &expect);
    let mut model_names: Vec<String> = Vec::new();
    for r in &rows {
        if !model_names.contains(&r.adapter.model()) {
            model_names.push(r.adapter.model());
        }
    }
    let (gpus, total) = throughput(runs);
    MergedReport {
        shards: runs.iter().map(shard_row).collect(),
        unexpected: rows.iter().filter(|r| r.judgement.unexpected()).count(),
        rows,
        models,
        model_names,
        gpus,
        total,
        missing: missing(runs),
        unreadable: shards
            .unreadable
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        damaged: shards
            .damaged
            .iter()
            .map(|(log, lines)| Damaged {
                log: log.display().to_string(),
                lines: *lines,
            })
            .collect(),
        duplicates: shards
            .duplicates
            .iter()
            .map(|(log, of)| Duplicate {
                log: log.display().to_string(),
                of: of.display().to_string(),
            })
            .collect(),
        baseline: baseline_path,
    }
}

/// Every measure of every attempt, with its session's outcome.
fn samples(runs: &[ShardRun]) -> Vec<Sample<'_>> {
    let mut out = Vec::new();
    for run in runs {
        for a in &run.attempts {
            let session: Vec<_> = run
                .attempts
                .iter()
                .filter(|b| b.item.key == a.item.key)
                .map(|b| b.done.as_ref().map(|d| d.exit))
                .collect();
            let outcome = SessionOutcome::of(&session);
            for measure in &a.measures {
                out.push(Sample {
                    run,
                    attempt: a,
                    measure,
                    outcome: config_outcome(a.item.command, outcome, measure),
                });
            }
            if a.measures.is_empty() && a.attempt == 0 {
                // Nothing measured (an error, or killed before its first batch): the row
                // still shows the item, with its outcome.
                out.push(Sample {
                    run,
                    attempt: a,
                    measure: &NOTHING,
                    outcome,
                });
            }
        }
    }
    out
}

static NOTHING: Measure = Measure {
    config: None,
    runs: 0,
    failures: 0,
    seconds: 0.0,
    first_failure: None,
    note: None,
};

/// compare fails when any configuration does; each configuration's row passes or fails by
/// its own runs.
fn config_outcome(command: Command, outcome: SessionOutcome, measure: &Measure) -> SessionOutcome {
    match (command, outcome) {
        (Command::Compare, SessionOutcome::Fail | SessionOutcome::Flaky)
            if measure.failures == 0 =>
        {
            SessionOutcome::Pass
        }
        (_, o) => o,
    }
}

fn counts<'a>(measures: impl Iterator<Item = (&'a Measure, f64)>) -> Counts {
    let mut c = Counts::default();
    for (m, wall) in measures {
        c.add(&Counts {
            runs: m.runs,
            failures: m.failures,
            seconds: m.seconds,
            wall_seconds: wall,
            time_to_first_failure: m.first_failure.as_ref().map(|f| f.after_seconds),
            ..Counts::default()
        });
    }
    c.rated()
}

fn place(run: &ShardRun, attempt: &Attempt) -> Place {
    Place {
        host: run.start.host.clone(),
        gpu: run.start.adapter.place,
        adapter: run.start.adapter.name.clone(),
        shard: run.start.shard,
        attempt: attempt.attempt,
        master_seed: attempt.seed.clone(),
        dir: run.dir.display().to_string(),
    }
}

fn row(
    samples: &[&Sample],
    expect: &dyn Fn(&str, &str) -> ExpectedOutcome,
    options: Options,
) -> Row {
    let first = samples[0];
    let adapter = first.run.start.adapter.clone();
    let wall = |s: &Sample| s.attempt.done.as_ref().map_or(0.0, |d| d.seconds);
    let mut sessions: BTreeMap<(String, u32), SessionOutcome> = BTreeMap::new();
    let mut notes: Vec<String> = Vec::new();
    let mut first_failures = Vec::new();
    for s in samples {
        sessions.insert(
            (s.run.dir.display().to_string(), s.run.start.shard.index),
            s.outcome,
        );
        let extra = [s.measure.note.clone(), s.attempt.error.clone()];
        for note in extra.into_iter().flatten() {
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        if let Some(f) = &s.measure.first_failure {
            first_failures.push(FirstFailureAt {
                replay: replay(s, &f.seed, f.settings.as_ref().map(options)),
                failure: f.clone(),
                at: place(s.run, s.attempt),
            });
        }
    }
    let outcome = SessionOutcome::pool(sessions.values().copied());
    let expected = expect(&first.attempt.item.name, &adapter.model());
    Row {
        item: first.attempt.item.name.clone(),
        command: first.attempt.item.command,
        config: first.measure.config.clone(),
        unit: Unit::of(first.attempt.item.command),
        host: first.run.start.host.clone(),
        counts: counts(samples.iter().map(|s| (s.measure, wall(s)))),
        sessions: sessions.len(),
        complete: samples.iter().all(|s| s.attempt.complete),
        first_failures,
        notes,
        outcome,
        expected,
        judgement: BaselineJudgement::of(expected, outcome),
        adapter,
    }
}

/// `wgstress run APP --adapter NAME --seed SEED OPTIONS` (`--browser` for a browser's
/// adapter): the failing run's stress again (a log without its settings gives the seed alone).
fn replay(s: &Sample, seed: &str, options: Option<String>) -> String {
    let app: Vec<String> = s.attempt.item.app_args.iter().map(|a| quote(a)).collect();
    let adapter = match s.run.start.adapter.place {
        AdapterPlace::Listed(_) => format!("--adapter {}", quote(&s.run.start.adapter.name)),
        AdapterPlace::Browser => "--browser".to_string(),
    };
    let line = format!("wgstress run {} {adapter} --seed {seed}", app.join(" "));
    match options {
        Some(options) => format!("{line} {options}"),
        None => line,
    }
}

fn pooled(rows: &[Row], expect: &dyn Fn(&str, &str) -> ExpectedOutcome) -> Vec<Pooled> {
    let mut groups: BTreeMap<(String, Option<String>, String), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        let key = (r.item.clone(), r.config.clone(), r.adapter.model());
        groups.entry(key).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|((item, config, model), rows)| {
            let mut counts = Counts::default();
            for r in &rows {
                counts.add(&r.counts);
            }
            let counts = counts.rated();
            let outcome = SessionOutcome::pool(rows.iter().map(|r| r.outcome));
            let first_failure = rows
                .iter()
                .flat_map(|r| &r.first_failures)
                .min_by(|a, b| a.failure.after_seconds.total_cmp(&b.failure.after_seconds))
                .cloned();
            Pooled {
                command: rows[0].command,
                unit: rows[0].unit,
                gpus: rows
                    .iter()
                    .map(|r| format!("{} {}", r.host, r.adapter.place))
                    .collect(),
                judgement: BaselineJudgement::of(expect(&item, &model), outcome),
                item,
                config,
                model,
                counts,
                first_failure,
                outcome,
            }
        })
        .collect()
}

fn throughput(runs: &[ShardRun]) -> (Vec<GpuRow>, Total) {
    let mut gpus: BTreeMap<(String, AdapterPlace, String), GpuRow> = BTreeMap::new();
    for run in runs {
        let a = &run.start.adapter;
        let row = gpus
            .entry((run.start.host.clone(), a.place, a.name.clone()))
            .or_insert_with(|| GpuRow {
                host: run.start.host.clone(),
                adapter: a.clone(),
                shards: Vec::new(),
                runs: 0,
                busy_seconds: 0.0,
                runs_per_second: 0.0,
            });
        row.shards.push(run.start.shard);
        for attempt in &run.attempts {
            if Unit::of(attempt.item.command) == Unit::Runs {
                row.runs += attempt.measures.iter().map(|m| m.runs).sum::<u64>();
            }
            // An item killed before it ended has no seconds of its own in the shard's log:
            // the seconds its runs took count instead, so its runs do not come for free.
            let ran: f64 = attempt.measures.iter().map(|m| m.seconds).sum();
            row.busy_seconds += attempt.done.as_ref().map_or(ran, |d| d.seconds);
        }
    }
    let mut gpus: Vec<GpuRow> = gpus.into_values().collect();
    for g in &mut gpus {
        g.runs_per_second = per_second(g.runs, g.busy_seconds);
    }
    let start = runs
        .iter()
        .map(|r| r.start.started)
        .fold(f64::INFINITY, f64::min);
    let end = runs
        .iter()
        .map(|r| r.last)
        .fold(f64::NEG_INFINITY, f64::max);
    let runs_total = gpus.iter().map(|g| g.runs).sum();
    let wall = (end - start).max(0.0);
    let hosts: BTreeSet<&str> = gpus.iter().map(|g| g.host.as_str()).collect();
    let total = Total {
        hosts: hosts.len(),
        gpus: gpus.len(),
        runs: runs_total,
        busy_seconds: gpus.iter().map(|g| g.busy_seconds).sum(),
        wall_seconds: wall,
        runs_per_second: per_second(runs_total, wall),
    };
    (gpus, total)
}

fn per_second(runs: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        runs as f64 / seconds
    } else {
        0.0
    }
}

fn shard_row(run: &ShardRun) -> ShardRow {
    let started: BTreeSet<&str> = run.attempts.iter().map(|a| a.item.key.as_str()).collect();
    let name = |key: &str| {
        let item = run.start.items.iter().find(|i| i.key == key);
        item.map_or(key.to_string(), |i| i.name.clone())
    };
    ShardRow {
        host: run.start.host.clone(),
        adapter: run.start.adapter.clone(),
        shard: run.start.shard,
        plan: run.start.plan.name.clone(),
        digest: run.start.plan.digest.clone(),
        dir: run.dir.display().to_string(),
        finished: run.end.is_some(),
        interrupted: run.end.as_ref().is_some_and(|e| e.interrupted),
        cut_short: run
            .attempts
            .iter()
            .filter(|a| a.done.is_none())
            .map(|a| name(&a.item.key))
            .collect(),
        not_run: run
            .start
            .items
            .iter()
            .filter(|i| !started.contains(i.key.as_str()))
            .map(|i| i.name.clone())
            .collect(),
    }
}

fn missing(runs: &[ShardRun]) -> Vec<Missing> {
    let mut campaigns: BTreeMap<(String, u32), Vec<&ShardRun>> = BTreeMap::new();
    for run in runs {
        let key = (run.start.plan.digest.clone(), run.start.shard.count);
        campaigns.entry(key).or_default().push(run);
    }
    campaigns
        .into_iter()
        .filter_map(|((digest, count), runs)| {
            let present: BTreeSet<u32> = runs.iter().map(|r| r.start.shard.index).collect();
            let seen: BTreeSet<&str> = runs
                .iter()
                .flat_map(|r| r.start.items.iter().map(|i| i.key.as_str()))
                .collect();
            let plan_items = runs[0].start.plan.items;
            let missing: Vec<u32> = (0..count).filter(|i| !present.contains(i)).collect();
            (!missing.is_empty()).then(|| Missing {
                plan: runs[0].start.plan.name.clone(),
                digest,
                shards: count,
                missing,
                plan_items,
                items_unseen: plan_items.saturating_sub(seen.len()),
            })
        })
        .collect()
}
