//! Comparing stress strategies on one application: every configuration gets the same budget,
//! spent in interleaved rounds so that drift of the machine (clocks, temperature, other load)
//! hits all of them alike.

use crate::error::Result;
use crate::gpu::engine::Engine;
use crate::run::runner::{run_into, summarize, Budget, RunConfig, Stream};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use wgstress_model::event::RunEvent;
use wgstress_model::reporter::Reporter;
use wgstress_model::run::calibration::Calibration;
use wgstress_model::run::log::CompareStart;
use wgstress_model::run::stop::Stop;
use wgstress_model::run::tally::seed_text;
use wgstress_model::stress::params::Settings;

pub struct ComparePlan {
    /// Each configuration, with what its calibration measured (its time comes out of the
    /// configuration's budget).
    pub configs: Vec<(Settings, Option<Calibration>)>,
    /// Budget of each configuration, calibration included.
    pub budget: Budget,
    /// Systematic stress adapts its shape per run.
    pub adaptive: bool,
    pub rounds: u32,
    pub master_seed: u64,
    pub stop: Arc<AtomicBool>,
}

use wgstress_model::run::summary::Comparison;

/// Runs every configuration of `plan` on `engine`, reporting its start, each batch and the
/// comparison to `reporter`.
pub fn run(
    engine: &mut Engine,
    plan: &ComparePlan,
    reporter: &mut dyn Reporter,
) -> Result<Comparison> {
    let configs: Vec<RunConfig> = plan
        .configs
        .iter()
        .enumerate()
        .map(|(i, (settings, calibration))| RunConfig {
            settings: settings.clone(),
            budget: plan.budget.less(
                calibration
                    .as_ref()
                    .map_or(Duration::ZERO, |c| Duration::from_secs_f64(c.seconds)),
            ),
            // Each configuration its own stream of seeds, the same in every round.
            master_seed: wgstress_model::stress::params::run_seed(plan.master_seed, i as u64),
            replay: None,
            adaptive: plan.adaptive,
            calibration: calibration.clone(),
            stop: plan.stop.clone(),
        })
        .collect();
    let mut streams: Vec<Stream> = configs
        .iter()
        .map(|c| Stream::new(c, engine.batch_size()))
        .collect();
    let start = CompareStart {
        app: engine.app().name.clone(),
        adapter: engine.gpu().describe(),
        rounds: plan.rounds,
        configurations: configs.iter().map(|c| c.settings.drawn()).collect(),
        master_seed: seed_text(plan.master_seed),
    };
    reporter.emit(RunEvent::CompareStart(&start).into())?;
    let mut stopped = None;
    'rounds: for _ in 0..plan.rounds {
        for (config, stream) in configs.iter().zip(streams.iter_mut()) {
            let share = config.budget.share(plan.rounds);
            stopped = run_into(engine, config, &share, stream, reporter)?;
            if stopped.is_some() {
                break 'rounds;
            }
        }
    }
    let rows = configs
        .iter()
        .zip(&streams)
        .map(|(config, stream)| summarize(engine, config, stream, stopped.clone()))
        .collect();
    let mut comparison = Comparison {
        app: engine.app().name.clone(),
        adapter: engine.gpu().describe(),
        rounds: plan.rounds,
        master_seed: seed_text(plan.master_seed),
        rows,
        stopped,
    };
    // The comparison is worth more than its log line: a failed write is reported in it.
    if let Err(e) = reporter.emit(RunEvent::CompareSummary(&comparison).into()) {
        if !comparison.stopped.as_ref().is_some_and(Stop::is_abort) {
            comparison.stopped = Some(Stop::Aborted(e.to_string()));
        }
    }
    Ok(comparison)
}
