//! Where a raw run hangs: the user's shaders as given have no watchdog, so a batch that never
//! finishes says nothing of where it waits. One run of the instrumented application without
//! stress or shuffling, whose scheduler finds the wait that saw no progress, names the loop.

use crate::plan::SessionPlan;
use wgstress_runtime::gpu::engine::Mode;
use wgstress_runtime::run::record::Outcome;
use wgstress_runtime::run::runner::{self, Budget, RunConfig};
use wgstress_runtime::run::stop::Stop;

/// The wait an instrumented run of `session`'s application stalls at, when it does.
pub fn locate(session: &SessionPlan) -> Option<String> {
    let mut instrumented = session.engine_config();
    instrumented.mode = Mode::Instrumented;
    let mut engine =
        wgstress_runtime::gpu::engine::Engine::new(session.app.clone(), &instrumented).ok()?;
    let config = RunConfig {
        settings: session.stress.unstressed(),
        budget: Budget {
            runs: Some(1),
            time: None,
            failures: Some(1),
        },
        master_seed: session.master_seed,
        replay: None,
        adaptive: false,
        calibration: None,
        stop: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    };
    let summary = runner::run(&mut engine, &config, None, &mut |_| {}).ok()?;
    let failure = summary.stats.first_failure?;
    matches!(failure.outcome, Outcome::Hang | Outcome::Watchdog).then_some(failure.detail)
}

/// `stopped` with where the instrumented application waits, for a raw session that hung.
pub fn explain(stopped: Option<Stop>, session: &SessionPlan) -> Option<Stop> {
    match stopped {
        Some(Stop::Aborted(why)) if why.contains("hang timeout") => {
            let located = locate(session).map_or_else(
                || "instrumented without stress, it did not stall: the hang is the driver's or needs more than one run".to_string(),
                |at| format!("instrumented without stress, {at}"),
            );
            Some(Stop::Aborted(format!("{why}; {located}")))
        }
        other => other,
    }
}
