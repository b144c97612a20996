//! The run loop: batches of runs until the budget is spent or the user stops it, reporting
//! its start, each batch and its summary (the log's lines) to one reporter, which also
//! shows progress.

use crate::error::Result;
use crate::gpu::engine::{Engine, Mode};
use crate::run::pace::Pace;
use crate::stress::shapes::ShapeChooser;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
// A session's budget and configuration are the model's: the fence search, which has no
// device, sizes its trials with them.
use wgstress_model::event::RunEvent;
use wgstress_model::reporter::Reporter;
use wgstress_model::run::log::{Batch, BatchFailure, RunStart};
use wgstress_model::run::results_block::RunOutcome;
pub use wgstress_model::run::run_config::{Budget, RunConfig};
use wgstress_model::run::stop::Stop;
use wgstress_model::run::summary::{Ran, RunSummary};
use wgstress_model::run::tally::{seed_text, Failure, Tally};
use wgstress_model::stress::params::{run_seed, Replay, RunParams, Settings};
use wgstress_model::stress::strategy::Strategy;

/// One configuration's runs so far: their tally, the shapes they chose and the pace of its
/// batches. Kept across the rounds of a comparison.
pub(crate) struct Stream {
    pub tally: Tally,
    pub shapes: ShapeChooser,
    /// Batch sizes; a caller running many short streams of one application (the fence
    /// search's trials) carries it from one to the next.
    pub pace: Pace,
    /// Wall-clock time spent in `run_into`.
    pub wall: Duration,
}

impl Stream {
    pub(crate) fn new(config: &RunConfig, capacity: usize) -> Stream {
        let settings = &config.settings;
        let adaptive =
            config.adaptive && config.replay.is_none() && settings.strategy == Strategy::Systematic;
        let shapes = if adaptive {
            ShapeChooser::adaptive(&settings.shape, config.master_seed)
        } else {
            ShapeChooser::fixed(settings.shape.clone())
        };
        Stream {
            tally: Tally::default(),
            shapes,
            pace: Pace::new(capacity),
            wall: Duration::ZERO,
        }
    }

    /// The parameters of the next run: its arm's shape and iterations, the current loop limit.
    fn draw(
        &mut self,
        seed: u64,
        settings: &Settings,
        groups: u32,
        limit: u32,
    ) -> (usize, RunParams) {
        let index = self.shapes.choose();
        let arm = &self.shapes.arms()[index];
        let armed = Settings {
            iterations: arm.iterations(settings.iterations),
            ..settings.with_shape(&arm.shape)
        };
        let params = RunParams {
            watchdog_limit: limit,
            ..RunParams::draw(seed, &armed, groups)
        };
        (index, params)
    }
}

/// Runs `engine` under `config`, reporting its start, each batch and its summary to
/// `reporter`.
pub fn run(
    engine: &mut Engine,
    config: &RunConfig,
    reporter: &mut dyn Reporter,
) -> Result<RunSummary> {
    let mut stream = Stream::new(config, engine.batch_size());
    let start = RunStart {
        app: engine.app().name.clone(),
        adapter: engine.gpu().describe(),
        strategy: config.settings.strategy,
        raw: engine.mode() == Mode::Raw,
        shuffle: config.settings.shuffle,
        iterations: config.settings.iterations,
        shape: config.settings.shape.clone(),
        adaptive_shape: stream.shapes.is_adaptive(),
        calibration: config.calibration.clone(),
        settings: config.settings.drawn(),
        master_seed: seed_text(config.master_seed),
        replay: config.replay.map(seed_text),
    };
    reporter.emit(RunEvent::Start(&start).into())?;
    let stopped = run_into(engine, config, &config.budget, &mut stream, reporter)?;
    let mut summary = summarize(engine, config, &stream, stopped);
    // The summary is worth more than its log line: a failed write is reported in it.
    if let Err(e) = reporter.emit(RunEvent::Summary(&summary).into()) {
        if !summary.stopped.as_ref().is_some_and(Stop::is_abort) {
            summary.stopped = Some(Stop::Aborted(e.to_string()));
        }
    }
    Ok(summary)
}

pub(crate) fn summarize(
    engine: &Engine,
    config: &RunConfig,
    stream: &Stream,
    stopped: Option<Stop>,
) -> RunSummary {
    let ran = match engine.mode() {
        Mode::Instrumented => Ran::Stressed(config.settings.strategy),
        Mode::Raw => Ran::Raw,
    };
    let watched = ran != Ran::Raw;
    RunSummary {
        app: engine.app().name.clone(),
        adapter: engine.gpu().describe(),
        strategy: ran,
        shuffle: config.settings.shuffle,
        buffer_shuffle: config.settings.buffer_shuffle,
        iterations: config.settings.iterations,
        calibration: config.calibration.clone(),
        shapes: if config.settings.strategy == Strategy::Systematic {
            stream.shapes.records()
        } else {
            Vec::new()
        },
        loop_limit: engine.loop_limit.limit(),
        // A raw run has no watchdog: its loops teach nothing and are limited by nothing.
        loop_limit_learned: watched && engine.loop_limit.is_learned(),
        longest_passing_loop: engine.loop_limit.seen.filter(|_| watched),
        loop_limit_warning: engine.loop_limit.warning().filter(|_| watched),
        batch: engine.batch_size(),
        master_seed: seed_text(config.master_seed),
        replay: config.replay.map(seed_text),
        stopped,
        wall_seconds: stream.wall.as_secs_f64(),
        stats: stream.tally.stats(),
    }
}

/// Adds runs to `stream` until `budget` more is spent or the user stops; returns why it
/// stopped early, when Ctrl-C or an error (a hang, say) ended it. Run i of the tally uses seed
/// `run_seed(master_seed, i)`, so a session continued in rounds draws the same seeds. Each
/// batch is sized so that it ends before the budget's time does.
pub(crate) fn run_into(
    engine: &mut Engine,
    config: &RunConfig,
    budget: &Budget,
    stream: &mut Stream,
    reporter: &mut dyn Reporter,
) -> Result<Option<Stop>> {
    let started = Instant::now();
    let error = paced_batches(engine, config, budget, stream, reporter, started);
    stream.wall += started.elapsed();
    Ok(Stop::of(error?, &config.stop))
}

fn paced_batches(
    engine: &mut Engine,
    config: &RunConfig,
    budget: &Budget,
    stream: &mut Stream,
    reporter: &mut dyn Reporter,
    started: Instant,
) -> Result<Option<String>> {
    // A hang in calibration ends the runs it was for before they start.
    if let Some(why) = config.calibration.as_ref().and_then(|c| c.aborted.clone()) {
        return Ok(Some(why));
    }
    let groups = engine.session.app_groups();
    let from = stream.tally.runs;
    while !config.stop.load(Ordering::SeqCst)
        && budget.failures.is_none_or(|n| stream.tally.failures() < n)
    {
        let time_left = budget.time.map(|t| t.saturating_sub(started.elapsed()));
        let runs_left = budget
            .runs
            .map(|n| n.saturating_sub(stream.tally.runs - from));
        let Some(n) = stream
            .pace
            .next(time_left, Duration::ZERO, runs_left, engine.timeout())
        else {
            break;
        };
        let limit = engine.loop_limit.limit();
        let (arms, params): (Vec<usize>, Vec<RunParams>) = (0..n as u64)
            .map(|i| {
                let seed = config
                    .replay
                    .unwrap_or_else(|| run_seed(config.master_seed, stream.tally.runs + i));
                stream.draw(seed, &config.settings, groups, limit)
            })
            .unzip();
        let start = Instant::now();
        let results = engine.run(&params);
        if let Some(message) = engine.lost.take() {
            // A reporter that can no longer write ends the session, not its results.
            if let Err(e) = reporter.emit(RunEvent::DeviceLost(&message).into()) {
                return Ok(Some(e.to_string()));
            }
        }
        let results = match results {
            Ok(r) => r,
            Err(e) => return Ok(Some(e.to_string())),
        };
        let elapsed = start.elapsed();
        // Runs stopped by the watchdog and hangs are the slow ones; the time the engine spent
        // confirming hangs is the batch's, not its runs', and stays out of their pace.
        let stalled = results
            .iter()
            .filter(|r| matches!(r.outcome, RunOutcome::Watchdog | RunOutcome::Hang))
            .count();
        stream
            .pace
            .observe(n, stalled, elapsed.saturating_sub(engine.confirming));
        // `--until-failures N` ends at the N-th failure: the batch's runs after it ran, but
        // count nowhere (not in the tally, the shapes, the loop limit or the log), and the
        // batch's time is theirs in proportion.
        let (results, elapsed) = match budget.failures {
            Some(wanted) => {
                let failed = results.iter().map(|r| r.outcome.is_failure());
                let left = wanted - stream.tally.failures();
                let kept = through_failure(failed, left).unwrap_or(results.len());
                let share = kept as f64 / results.len().max(1) as f64;
                let mut results = results;
                results.truncate(kept);
                (results, elapsed.mul_f64(share))
            }
            None => (results, elapsed),
        };
        let n = results.len();
        for (arm, r) in arms.iter().zip(&results) {
            stream.shapes.record(*arm, r.outcome.is_failure());
            // A slow wait's attempt that ended is a passing run too: its waits teach the limit
            // how long a legitimate wait lasts.
            if r.outcome == RunOutcome::Pass {
                engine.loop_limit.observe_pass(r.record.max_trips);
            }
        }
        let replay = |run: &RunParams| match engine.mode() {
            Mode::Raw => Replay::Raw,
            Mode::Instrumented => Replay::Stressed(config.settings.replay(run)),
        };
        let failures = crate::run::batch_tally::add(
            &mut stream.tally,
            &results,
            elapsed,
            &engine.manifests(),
            &replay,
        );
        // A log that can no longer be written ends the session, not its results.
        let line = batch_line(config, &stream.tally, n, &failures, &results);
        if let Err(e) = reporter.emit(RunEvent::Batch(&line).into()) {
            return Ok(Some(e.to_string()));
        }
    }
    Ok(None)
}

/// How many runs of a batch to count for its `left`-th failure to be the last counted, given
/// whether each `failed`; `None` when fewer fail.
fn through_failure(failed: impl IntoIterator<Item = bool>, left: u64) -> Option<usize> {
    let nth = usize::try_from(left.max(1) - 1).unwrap_or(usize::MAX);
    failed
        .into_iter()
        .enumerate()
        .filter(|(_, failed)| *failed)
        .nth(nth)
        .map(|(i, _)| i + 1)
}

fn batch_line(
    config: &RunConfig,
    tally: &Tally,
    n: usize,
    failures: &[Failure],
    results: &[crate::gpu::engine::RunResult],
) -> Batch {
    let failures = failures
        .iter()
        .zip(results.iter().filter(|r| r.outcome.is_failure()))
        .map(|(f, r)| BatchFailure {
            failure: f.clone(),
            params: r.params.clone(),
            record: r.record,
        })
        .collect();
    Batch {
        strategy: config.settings.strategy,
        shuffle: config.settings.shuffle,
        runs: n,
        total_runs: tally.runs,
        seconds: tally.elapsed.as_secs_f64(),
        counts: tally.stats().counts,
        failures,
    }
}

#[cfg(test)]
mod tests {
    use super::through_failure;

    #[test]
    fn a_batch_is_counted_through_the_failure_that_completes_the_budget() {
        let batch = [false, true, false, true, true, false];
        assert_eq!(through_failure(batch, 1), Some(2));
        assert_eq!(through_failure(batch, 2), Some(4));
        assert_eq!(through_failure(batch, 3), Some(5));
        assert_eq!(through_failure(batch, 4), None);
        assert_eq!(through_failure([false; 4], 1), None);
    }
}
