//! The run loop: batches of runs until the budget is spent or the user stops it, with a log
//! line per batch and an event per batch for whoever shows progress.

use crate::engine::Engine;
use crate::error::Result;
use crate::log::JsonLog;
use crate::strategy::{run_seed, RunParams, Settings};
use crate::tally::{seed_text, Failure, Stats, Tally};
use serde::Serialize;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a session runs: a number of runs, a time, or whichever ends first.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub runs: Option<u64>,
    pub time: Option<Duration>,
}

impl Budget {
    /// Whether the runs added to `tally` since `from` (runs, time) spend this budget.
    fn done(&self, tally: &Tally, from: (u64, Duration)) -> bool {
        self.runs.is_some_and(|n| tally.runs - from.0 >= n)
            || self.time.is_some_and(|t| tally.elapsed - from.1 >= t)
    }

    fn next_batch(&self, tally: &Tally, from: (u64, Duration), batch: usize) -> usize {
        match self.runs {
            Some(n) => batch.min((n - (tally.runs - from.0)) as usize),
            None => batch,
        }
    }

    /// A share of this budget: for interleaving several configurations in rounds.
    pub fn share(&self, parts: u32) -> Budget {
        Budget {
            runs: self.runs.map(|n| n.div_ceil(u64::from(parts))),
            time: self.time.map(|t| t / parts),
        }
    }
}

#[derive(Clone)]
pub struct RunConfig {
    pub settings: Settings,
    pub budget: Budget,
    /// Seeds of run i: `run_seed(master_seed, i)`.
    pub master_seed: u64,
    /// Replay: every run uses this seed's parameters.
    pub replay: Option<u64>,
    pub stop: Arc<AtomicBool>,
}

/// What the run loop reports as it goes; the library prints nothing itself.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A batch finished: its runs, how many of them failed, and how long it took.
    Batch {
        runs: u64,
        failures: u64,
        elapsed: Duration,
    },
    /// The device was lost and recreated; the runs of the batch in flight count as lost.
    DeviceLost(&'a str),
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub app: String,
    pub adapter: String,
    pub strategy: String,
    pub shuffle: bool,
    pub buffer_shuffle: bool,
    pub iterations: u32,
    pub batch: usize,
    pub master_seed: String,
    pub replay: Option<String>,
    /// The `run` options that replay a failing run together with its `--seed`.
    pub replay_options: String,
    pub interrupted: bool,
    /// Why the session ended early, if it did (a hang, say).
    pub aborted: Option<String>,
    #[serde(flatten)]
    pub stats: Stats,
}

/// Runs `engine` under `config`, logging each batch to `log`.
pub fn run(
    engine: &mut Engine,
    config: &RunConfig,
    mut log: Option<&mut JsonLog>,
    on_event: &mut dyn FnMut(Event),
) -> Result<Summary> {
    let mut tally = Tally::default();
    if let Some(log) = log.as_deref_mut() {
        log.write(&json!({
            "type": "start",
            "command": "run",
            "app": engine.app.name,
            "adapter": engine.gpu.describe(),
            "strategy": config.settings.strategy,
            "shuffle": config.settings.shuffle,
            "iterations": config.settings.iterations,
            "shape": config.settings.shape,
            "options": config.settings.replay_options(),
            "master_seed": seed_text(config.master_seed),
            "replay": config.replay.map(seed_text),
        }))?;
    }
    let aborted = run_into(
        engine,
        config,
        &config.budget,
        &mut tally,
        log.as_deref_mut(),
        on_event,
    )?;
    let mut summary = summarize(engine, config, &tally, aborted);
    if let Some(log) = log {
        let mut line = serde_json::to_value(&summary).expect("summary serializes");
        line["type"] = json!("summary");
        // The summary is worth more than its log line: a failed write is reported in it.
        if let Err(e) = log.write(&line) {
            summary.aborted.get_or_insert(e.to_string());
        }
    }
    Ok(summary)
}

pub fn summarize(
    engine: &Engine,
    config: &RunConfig,
    tally: &Tally,
    aborted: Option<String>,
) -> Summary {
    Summary {
        app: engine.app.name.clone(),
        adapter: engine.gpu.describe(),
        strategy: config.settings.strategy.to_string(),
        shuffle: config.settings.shuffle,
        buffer_shuffle: config.settings.buffer_shuffle,
        iterations: config.settings.iterations,
        batch: engine.batch_size(),
        master_seed: seed_text(config.master_seed),
        replay: config.replay.map(seed_text),
        replay_options: config.settings.replay_options(),
        interrupted: config.stop.load(Ordering::SeqCst),
        aborted,
        stats: tally.stats(),
    }
}

/// Adds runs to `tally` until `budget` more is spent or the user stops; returns why it
/// stopped early when an error (a hang, say) ended it. Run i of the tally uses seed
/// `run_seed(master_seed, i)`, so a session continued in rounds draws the same seeds.
pub fn run_into(
    engine: &mut Engine,
    config: &RunConfig,
    budget: &Budget,
    tally: &mut Tally,
    mut log: Option<&mut JsonLog>,
    on_event: &mut dyn FnMut(Event),
) -> Result<Option<String>> {
    let groups = engine.session.app_groups();
    let from = (tally.runs, tally.elapsed);
    while !budget.done(tally, from) && !config.stop.load(Ordering::SeqCst) {
        let n = budget.next_batch(tally, from, engine.batch_size());
        let params: Vec<RunParams> = (0..n as u64)
            .map(|i| {
                let seed = config
                    .replay
                    .unwrap_or_else(|| run_seed(config.master_seed, tally.runs + i));
                RunParams::draw(seed, &config.settings, groups)
            })
            .collect();
        let start = Instant::now();
        let results = engine.run(&params);
        if let Some(message) = engine.lost.take() {
            on_event(Event::DeviceLost(&message));
        }
        let results = match results {
            Ok(r) => r,
            Err(e) => return Ok(Some(e.to_string())),
        };
        let elapsed = start.elapsed();
        let failures = tally.add(&results, elapsed, &engine.inst.manifest);
        if let Some(log) = log.as_deref_mut() {
            // A log that can no longer be written ends the session, not its results.
            if let Err(e) = log.write(&batch_line(config, tally, n, &failures, &results)) {
                return Ok(Some(e.to_string()));
            }
        }
        on_event(Event::Batch {
            runs: n as u64,
            failures: failures.len() as u64,
            elapsed,
        });
    }
    Ok(None)
}

fn batch_line(
    config: &RunConfig,
    tally: &Tally,
    n: usize,
    failures: &[Failure],
    results: &[crate::engine::RunResult],
) -> serde_json::Value {
    let failing: Vec<_> = failures
        .iter()
        .zip(results.iter().filter(|r| r.outcome.is_failure()))
        .map(|(f, r)| json!({ "failure": f, "params": r.params, "record": r.record }))
        .collect();
    json!({
        "type": "batch",
        "strategy": config.settings.strategy,
        "shuffle": config.settings.shuffle,
        "runs": n,
        "total_runs": tally.runs,
        "seconds": tally.elapsed.as_secs_f64(),
        "counts": tally.stats().counts,
        "failures": failing,
    })
}
